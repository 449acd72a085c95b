import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def unknown_type(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: float32 = A[i]  # LINE
                B[i] = x

    return unknown_type
