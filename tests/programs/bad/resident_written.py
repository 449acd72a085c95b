import hwgen
from hwgen import int8, int32, resident


def build(N: int = 4):
    @hwgen.region
    def resident_written(A: int8[N],
                         W: resident(int8[N]),  # LINE
                         B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                W[i] = A[i]
                B[i] = A[i]

    return resident_written
