import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def division(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: int32 = A[i]
                B[i] = 1000 // x  # LINE

    return division
