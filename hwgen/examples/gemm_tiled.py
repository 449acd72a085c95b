"""A larger GEMM on a smaller grid: C = A @ B with C of (P*TM) x (Q*TN) on P x Q PEs.

The output-stationary array of ``gemm_os`` walks TM x TN tiles: PE (i, j) computes the
elements C[i*TM + t, j*TN + u] of its block one after the other, accumulating over K for each
and writing it when done, while A and B values keep flowing right and down every cycle.
"""
import hwgen
from hwgen import R, S, Stream, int8, int32

TEST_SIZES = [{"P": 2, "Q": 2, "TM": 2, "TN": 2, "K": 8}, {"P": 3, "Q": 2, "TM": 1, "TN": 3, "K": 5}]


def build(P: int = 4, Q: int = 4, TM: int = 2, TN: int = 2, K: int = 32):
    M, N = P * TM, Q * TN

    @hwgen.region
    def gemm_tiled(A: int8[M, K] @ [S(0), R], B: int8[K, N] @ [R, S(1)],
                   C: int32[M, N] @ [S(0), S(1)]):
        a_in = Stream[int8, 2][P, Q]
        b_in = Stream[int8, 2][P, Q]

        @hwgen.task(mapping=[P, Q])
        def pe():
            i, j = hwgen.get_pid()
            for t in range(TM):
                for u in range(TN):
                    c: int32 = 0
                    for k in range(K):
                        if j == 0:
                            a: int8 = A[i * TM + t, k]
                        else:
                            a: int8 = a_in[i, j].get()
                        if i == 0:
                            b: int8 = B[k, j * TN + u]
                        else:
                            b: int8 = b_in[i, j].get()
                        if j < Q - 1:
                            a_in[i, j + 1].put(a)
                        if i < P - 1:
                            b_in[i + 1, j].put(b)
                        c += a * b
                    C[i * TM + t, j * TN + u] = c

    return gemm_tiled


def reference(A, B):
    return {"C": A.astype("int64") @ B.astype("int64")}
