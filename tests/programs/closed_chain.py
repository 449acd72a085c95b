"""Two closed streams in a row: the second task reads the first with `for v in s:` and
puts on the second under a condition of its own, so that the second stream has a slot per slot
of the first (schedule.masked counts them in order)."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32

def build(N: int = 9):
    @hwgen.region
    def closed_chain(X: int8[N], Y: int32[2]):
        s = Stream[int8, 2, N]
        t = Stream[int8, 3, N]

        @hwgen.task
        def first():
            for i in range(N):
                x: int8 = X[i]
                if x > 0:
                    s.put(x)
            s.close()

        @hwgen.task
        def second():
            for v in s:
                if v % 2 == 0:
                    t.put(v // 2)
            t.close()

        @hwgen.task
        def third():
            total: int32 = 0
            count: int32 = 0
            for w in t:
                total += w
                count += 1
            Y[0] = total
            Y[1] = count

    return closed_chain

def reference(X):
    kept = X[(X > 0) & (X % 2 == 0)].astype(np.int64) // 2
    return {"Y": np.array([kept.sum(), kept.size])}
