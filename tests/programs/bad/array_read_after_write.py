import hwgen
from hwgen import int8, int32


def build(N: int = 300):
    @hwgen.region
    def array_read_after_write(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            buf: int8[N]
            for i in range(N):
                buf[i] = A[i]
                B[i] = buf[i] + 1  # LINE

    return array_read_after_write
