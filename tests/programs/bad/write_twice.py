import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def write_twice(A: int8[N], C: int32[N]):
        @hwgen.task
        def t():
            acc: int32 = 0
            for k in range(N):
                x: int32 = A[k] * 3
                acc += x
                C[k] = x
            C[N - 1] = acc  # LINE

    return write_twice
