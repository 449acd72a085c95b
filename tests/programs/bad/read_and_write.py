import hwgen
from hwgen import int8


def build(N: int = 4):
    @hwgen.region
    def read_and_write(A: int8[N]):
        @hwgen.task
        def t():
            for i in range(N):
                x: int8 = A[i]
                A[i] = x + 1  # LINE

    return read_and_write
