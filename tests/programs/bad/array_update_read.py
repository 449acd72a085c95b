import hwgen
from hwgen import float32


def build(N: int = 8):
    @hwgen.region
    def array_update_read(A: float32[N], C: float32[N]):
        @hwgen.task
        def t():
            buf: float32[N]
            for i in range(N):
                buf[i] = A[i]
            for i in range(N):
                buf[i] = buf[i] * 2.0
                C[i] = buf[i]  # LINE

    return array_update_read
