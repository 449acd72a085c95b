import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def unbalanced(A: int8[N], B: int32[N]):
        s = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(N):
                s.put(A[i])  # LINE: put

        @hwgen.task
        def consumer():
            for i in range(N - 1):
                B[i] = s.get()

    return unbalanced
