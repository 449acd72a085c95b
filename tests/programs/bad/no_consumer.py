import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def no_consumer(A: int8[N], B: int32[N]):
        s = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(N):
                s.put(A[i])  # LINE
                B[i] = A[i]

    return no_consumer
