"""Two puts on every other iteration: the interpreter runs it (tests/ir/test_interp.py);
hardware refuses it, a stream moving one element per clock."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32


def build(M: int = 2, N: int = 4):
    @hwgen.region
    def double_put(A: int8[M, N], B: int32[M, N]):
        pipe = Stream[int8, 4]

        @hwgen.task
        def producer():
            for i in range(M):
                for j in range(N):
                    if j % 2 == 0:
                        pipe.put(A[i, j])
                        pipe.put(A[i, j + 1])  # LINE

        @hwgen.task
        def consumer():
            for i in range(M):
                for j in range(N):
                    B[i, j] = pipe.get() + 1

    return double_put


def reference(A):
    return {"B": A.astype(np.int64) + 1}
