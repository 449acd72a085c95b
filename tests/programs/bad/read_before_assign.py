import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def read_before_assign(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            acc: int32
            for i in range(N):
                acc += A[i]  # LINE
                B[i] = acc

    return read_before_assign
