"""Two int8 GEMM layers with ReLU and requantization between them, as a chain of tasks:
Y = q(relu(X @ W1)) @ W2, where q(v) = clamp(v >> SHIFT, 0, 127) brings the int32 activation
back to int8.

The first GEMM puts each element of H = X @ W1 on a stream as soon as its sum is done; ReLU and
requantization each take one element, transform it and pass it on; the second GEMM collects the
whole of H in a local array (it needs every row of H for each column of Y) and then computes Y.
Whether this chain should run fused on one device, or cut where an intermediate is too large
for the block RAM with the intermediate sent to the host and back, is what ``hwgen fusion``
decides (docs/mapping.md).
"""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32

TEST_SIZES = [{"M": 4, "K": 4, "N": 4, "P": 4}, {"M": 3, "K": 5, "N": 2, "P": 3}]
SHIFT = 4


def build(M: int = 8, K: int = 8, N: int = 8, P: int = 8):
    @hwgen.region
    def gemm_relu_gemm(X: int8[M, K], W1: int8[K, N], W2: int8[N, P], Y: int32[M, P]):
        h = Stream[int32, 4]        # X @ W1, element by element
        r = Stream[int32, 4]        # after ReLU
        q = Stream[int8, 4]         # requantized to int8

        @hwgen.task
        def gemm1():
            for i in range(M):
                for j in range(N):
                    acc: int32 = 0
                    for k in range(K):
                        acc += X[i, k] * W1[k, j]
                    h.put(acc)

        @hwgen.task
        def relu():
            for e in range(M * N):
                v: int32 = h.get()
                r.put(max(v, 0))

        @hwgen.task
        def requantize():
            for e in range(M * N):
                v: int32 = r.get()
                q.put(min(max(v >> SHIFT, 0), 127))

        @hwgen.task
        def gemm2():
            H: int8[M * N]
            for e in range(M * N):
                H[e] = q.get()
            for i in range(M):
                for j in range(P):
                    acc: int32 = 0
                    for n in range(N):
                        acc += H[i * N + n] * W2[n, j]
                    Y[i, j] = acc

    return gemm_relu_gemm


def reference(X, W1, W2):
    h = X.astype(np.int64) @ W1.astype(np.int64)
    q = np.minimum(np.maximum(h, 0) >> SHIFT, 127)
    return {"Y": q @ W2.astype(np.int64)}
