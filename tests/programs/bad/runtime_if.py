import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def runtime_if(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: int32 = A[i]
                if x > 0:  # LINE
                    B[i] = x

    return runtime_if
