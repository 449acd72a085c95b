import hwgen
from hwgen import UInt, int8, int32


def build(N: int = 4):
    @hwgen.region
    def slice_range(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                w: UInt(16) = A[i]
                B[i] = w[8 * i:8 * i + 8]  # LINE

    return slice_range
