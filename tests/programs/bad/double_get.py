"""Two gets of one stream in one statement: the interpreter runs it; hardware refuses it, a
stream moving one element per clock (two statements would each take a clock of their own)."""
import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def double_get(A: int8[2 * N], B: int32[N]):
        pipe = Stream[int8, 4]

        @hwgen.task
        def producer():
            for i in range(2 * N):
                pipe.put(A[i])

        @hwgen.task
        def consumer():
            for i in range(N):
                B[i] = pipe.get() - pipe.get()  # LINE

    return double_get
