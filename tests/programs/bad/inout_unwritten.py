import hwgen
from hwgen import int8


def build(N: int = 4):
    @hwgen.region
    def inout_unwritten(A: int8[N]):  # LINE
        @hwgen.task
        def t():
            for i in range(N - 1):
                A[i] += 1

    return inout_unwritten
