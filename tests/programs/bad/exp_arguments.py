import hwgen
from hwgen import float32


def build(N: int = 4):
    @hwgen.region
    def exp_arguments(A: float32[N], B: float32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                B[i] = hwgen.exp(A[i], 2.0)  # LINE

    return exp_arguments
