import hwgen
from hwgen import int8


def build(N: int = 4):
    @hwgen.region
    def inout_shared(A: int8[N]):
        @hwgen.task(mapping=[2])
        def t():
            p = hwgen.get_pid()
            for i in range(N - p):
                A[i + p] = A[i + p] + 1  # LINE

    return inout_shared
