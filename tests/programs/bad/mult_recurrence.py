import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def mult_recurrence(A: int8[N], B: int32[1]):
        @hwgen.task
        def t():
            p: int32 = 1
            for i in range(N):
                p = p * A[i]  # LINE
            B[0] = p

    return mult_recurrence
