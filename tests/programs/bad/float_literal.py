import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def float_literal(A: int8[N], C: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                C[i] = A[i] % 2.5  # LINE

    return float_literal
