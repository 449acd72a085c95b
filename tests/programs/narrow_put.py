"""Compiles, but the first put narrows an int16 sum into an int8 stream (a warning); the second
clamps it first and the third reinterprets the bits of a packed word (no warning)."""
import hwgen
from hwgen import Stream, UInt, int8, int16


def build(N: int = 4):
    @hwgen.region
    def narrow_put(A: int8[N], B: int8[N], C: int16[N], D: int16[N], E: int16[N]):
        s = Stream[int8, 2]
        t = Stream[int8, 2]
        u = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(N):
                v: int16 = A[i] + B[i]
                s.put(v)  # WARN s
                t.put(min(max(v, -128), 127))
                w: UInt(16) = 0
                w[8:16] = A[i]
                u.put(w[8:16])

        @hwgen.task
        def consumer():
            for i in range(N):
                C[i] = s.get()
                D[i] = t.get()
                E[i] = u.get()

    return narrow_put
