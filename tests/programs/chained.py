"""Two tasks on a grid of 2, chained (`hwgen.chain`): each PE scales its row of A, then sums
it up in reverse; a third task, not chained, collects the two sums. Locals of the same name
in both tasks (`x`) stay apart."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int16, int32


def build(N: int = 6):
    @hwgen.region
    def chained(A: int8[2, N], B: int32[2, N], T: int32[2]):
        pipe = Stream[int16, 2][2]
        sums = Stream[int32, 2][2]

        @hwgen.task(mapping=[2])
        def scale():
            p = hwgen.get_pid()
            for i in range(N):
                x: int16 = A[p, i] * 3 + 1
                pipe[p].put(x)

        @hwgen.task(mapping=[2])
        def accumulate():
            p = hwgen.get_pid()
            x: int32 = 0
            for i in range(N):
                x += pipe[p].get()
                B[p, i] = x
            sums[p].put(x)

        @hwgen.task
        def collect():
            with hwgen.meta_for(2) as q:
                T[q] = sums[q].get()

        hwgen.chain(scale, accumulate)

    return chained


def reference(A):
    b = (A.astype(np.int64) * 3 + 1).cumsum(axis=1)
    return {"B": b, "T": b[:, -1]}
