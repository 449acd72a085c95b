import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4, D: int = 2):
    @hwgen.region
    def reconvergent(A: int8[N], B: int32[N]):
        s1 = Stream[int8, D]
        s2 = Stream[int8, D]

        @hwgen.task
        def split():
            for i in range(N):
                s1.put(A[i])
            for i in range(N):
                s2.put(A[i])

        @hwgen.task
        def join():
            for i in range(N):
                y: int8 = s2.get()  # LINE
                x: int8 = s1.get()
                B[i] = x + y

    return reconvergent
