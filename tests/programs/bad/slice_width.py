import hwgen
from hwgen import UInt, int8, int32


def build(N: int = 4):
    @hwgen.region
    def slice_width(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                w: UInt(32) = A[i]
                B[i] = w[i:2 * i + 1]  # LINE

    return slice_width
