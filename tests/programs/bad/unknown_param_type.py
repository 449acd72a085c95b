import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def unknown_param_type(A: int7[N], B: int32[N]):  # LINE
        @hwgen.task
        def t():
            for i in range(N):
                B[i] = A[i]

    return unknown_param_type
