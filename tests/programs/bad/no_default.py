import hwgen
from hwgen import int8, int32


def build(N):  # LINE
    @hwgen.region
    def no_default(A: int8[N], C: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                C[i] = A[i]

    return no_default
