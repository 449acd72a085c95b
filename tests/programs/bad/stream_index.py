import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def stream_index(A: int8[N], B: int32[N]):
        s = Stream[int8, 2][2]

        @hwgen.task
        def producer():
            for i in range(N):
                s[2].put(A[i])  # LINE

        @hwgen.task
        def consumer():
            for i in range(N):
                B[i] = s[0].get()

    return stream_index
