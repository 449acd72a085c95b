import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def rebind_tensor(A: int8[N], C: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                A = 3  # LINE
                C[i] = A

    return rebind_tensor
