"""Stream operations and tensor writes under conditions on loop variables (`if k > 0`,
`if k == 0`, `if k >= 2 and k < N - 1` inside `if i == 0`): each branch runs on the iterations where
its condition holds, the counts known at compile time."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32


def build(M: int = 2, N: int = 6):
    @hwgen.region
    def iteration_branches(A: int8[M, N], B: int32[M, N], C: int32[M, N]):
        s = Stream[int8, 2]

        @hwgen.task
        def rotate():
            for i in range(M):
                for k in range(N):
                    if k > 0:
                        s.put(A[i, k - 1])      # k - 1 stays in range: k > 0 here
                    else:
                        s.put(A[i, N - 1])

        @hwgen.task
        def accumulate():
            for i in range(M):
                acc: int32 = 0
                for k in range(N):
                    x: int8 = s.get()
                    acc += x
                    if i == 0:
                        if k >= 2 and k < N - 1:
                            B[i, k] = acc
                        else:
                            B[i, k] = 0 - acc
                    else:
                        B[i, k] = 0 - acc
                    C[i, k] = x

    return iteration_branches


def reference(A):
    x = np.roll(A.astype(np.int64), 1, axis=1)
    acc = np.cumsum(x, axis=1)
    k = np.arange(A.shape[1])
    inner = (np.arange(A.shape[0])[:, None] == 0) & (k >= 2) & (k < A.shape[1] - 1)
    return {"B": np.where(inner, acc, -acc), "C": x}
