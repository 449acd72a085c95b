import hwgen
from hwgen import UInt, int8, int32


def build(N: int = 4):
    @hwgen.region
    def slice_update_unassigned(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                w: UInt(16)
                w[0:8] += A[i]  # LINE
                B[i] = w

    return slice_update_unassigned
