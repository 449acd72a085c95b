"""Compiles, with a warning: the stream 'spare' is declared but never used."""
import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def unused_stream(A: int8[N], C: int32[N]):
        s = Stream[int8, 2]
        spare = Stream[int8, 2]  # WARN spare

        @hwgen.task
        def producer():
            for i in range(N):
                s.put(A[i])

        @hwgen.task
        def consumer():
            for i in range(N):
                C[i] = s.get()

    return unused_stream
