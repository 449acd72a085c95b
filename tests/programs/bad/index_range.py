import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def index_range(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                B[i] = A[i + 1]  # LINE

    return index_range
