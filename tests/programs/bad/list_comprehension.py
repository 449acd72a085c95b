import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def list_comprehension(A: int8[N], C: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: int32 = sum([A[i] for _ in range(2)])  # LINE
                C[i] = x

    return list_comprehension
