import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def get_in_max(A: int8[N], B: int32[N]):
        s = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(N):
                s.put(A[i])

        @hwgen.task
        def consumer():
            for i in range(N):
                B[i] = max(s.get(), 0)  # LINE

    return get_in_max
