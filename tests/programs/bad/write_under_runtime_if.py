import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def write_under_runtime_if(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: int32 = A[i]
                if x > 0:
                    B[i] = x  # LINE

    return write_under_runtime_if
