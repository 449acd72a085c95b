import hwgen
from hwgen import int8


def build(N: int = 4):
    @hwgen.region
    def inout_read_after_write(A: int8[N], B: int8[N]):
        @hwgen.task
        def t():
            for i in range(N):
                A[i] = 0
            for i in range(N):
                B[i] = A[i]  # LINE

    return inout_read_after_write
