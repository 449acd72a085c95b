"""Stream operations and tensor writes under conditions on a loop variable (`if j % 2 == 0`,
`if j % 3 != 1`): each branch runs on its own iterations, the counts known at compile time."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int16


def build(M: int = 3, N: int = 4):
    @hwgen.region
    def periodic_branches(A: int8[M, N], B: int16[M, N]):
        pipe = Stream[int8, 4]

        @hwgen.task
        def producer():
            for i in range(M):
                for j in range(N):
                    if j % 2 == 0:
                        pipe.put(A[i, j])
                    else:
                        pipe.put(A[i, j] // 2)

        @hwgen.task
        def consumer():
            for i in range(M):
                for j in range(N):
                    if j % 3 != 1:
                        B[i, j] = pipe.get()
                    else:
                        B[i, j] = pipe.get() * 2

    return periodic_branches


def reference(A):
    a = A.astype(np.int64)
    v = np.where(np.arange(A.shape[1]) % 2 == 0, a, a // 2)
    return {"B": np.where(np.arange(A.shape[1]) % 3 != 1, v, v * 2)}
