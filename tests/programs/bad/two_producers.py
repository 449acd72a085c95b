import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def two_producers(A: int8[N], B: int32[N]):
        s = Stream[int8, 2]

        @hwgen.task(mapping=[2])
        def producer():
            for i in range(N):
                s.put(A[i])  # LINE

        @hwgen.task
        def consumer():
            for i in range(N):
                B[i] = s.get()

    return two_producers
