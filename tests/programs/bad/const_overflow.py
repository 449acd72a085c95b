import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def const_overflow(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: int8 = 300  # LINE
                B[i] = A[i] + x

    return const_overflow
