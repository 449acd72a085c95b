import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def meta_if_runtime(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: int32 = A[i]
                with hwgen.meta_if(x > 0):  # LINE
                    x = 0
                B[i] = x

    return meta_if_runtime
