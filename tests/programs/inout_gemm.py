"""An in-out tensor: ``C[i, j] += A[i, k] * B[k, j]`` on a row of tasks, each owning a band of
rows of ``C``. The host sends ``C`` and receives it back with the products added; each element
is a sum held in a local across ``k`` (``ir.element_sums``)."""
import numpy as np

import hwgen
from hwgen import int8, int32


def build(M: int = 4, N: int = 3, K: int = 5, P: int = 2):
    Mt = M // P

    @hwgen.region
    def inout_gemm(A: int8[M, K], B: int8[K, N], C: int32[M, N]):
        @hwgen.task(mapping=[P])
        def band():
            p = hwgen.get_pid()
            for i in range(p * Mt, (p + 1) * Mt):
                for j in range(N):
                    for k in range(K):
                        C[i, j] += A[i, k] * B[k, j]

    return inout_gemm


def reference(A, B, C):
    return {"C": (C + A.astype(np.int64) @ B.astype(np.int64)).astype(np.int32)}
