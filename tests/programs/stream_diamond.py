"""A diamond of streams: task a feeds b directly and through c, so no one of its streams can be
cut into stages on its own (tests/mapping/test_materialise.py)."""
import numpy as np
import hwgen
from hwgen import Stream, int8, int16

def build(N: int = 4):
    @hwgen.region
    def stream_diamond(A: int8[N], B: int16[N]):
        ab = Stream[int8, 4]
        ac = Stream[int8, 4]
        cb = Stream[int8, 4]

        @hwgen.task
        def a():
            for i in range(N):
                v: int8 = A[i]
                ab.put(v)
                ac.put(v)

        @hwgen.task
        def c():
            for i in range(N):
                cb.put(ac.get())

        @hwgen.task
        def b():
            for i in range(N):
                x: int16 = ab.get()
                y: int16 = cb.get()
                B[i] = x + y

    return stream_diamond

def reference(A):
    return {"B": 2 * A.astype(np.int64)}
