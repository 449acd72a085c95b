import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def array_initialised(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            buf: int8[N] = [1, 2]  # LINE
            for i in range(N):
                B[i] = A[i]

    return array_initialised
