import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def untyped_accumulator(A: int8[N], C: int32[N]):
        @hwgen.task
        def t():
            acc = 0
            for i in range(N):
                acc += A[i]  # LINE
            C[0] = acc

    return untyped_accumulator
