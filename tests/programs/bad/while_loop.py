import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def while_loop(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            i: int32 = 0
            while i < N:  # LINE
                B[i] = A[i]
                i += 1

    return while_loop
