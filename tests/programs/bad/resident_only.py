import hwgen
from hwgen import int8, int32, resident


def build(N: int = 4):
    @hwgen.region
    def resident_only(W: resident(int8[N]),  # LINE
                      B: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
                B[i] = W[i]

    return resident_only
