import hwgen
from hwgen import UInt, int8, int32


def build(N: int = 4):
    @hwgen.region
    def slice_empty(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                w: UInt(16) = A[i]
                B[i] = w[i + 8:i]  # LINE

    return slice_empty
