import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def array_rewrite_own(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            buf: int32[N]
            for i in range(N):
                buf[i] = A[i]
                buf[i] = buf[i] * 2  # LINE
                B[i] = buf[i]

    return array_rewrite_own
