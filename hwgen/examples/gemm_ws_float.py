"""Weight-stationary GEMM in floating point: C = A @ B, float32 sums, on a K x N grid.

As ``gemm_ws``: PE (k, j) holds B[k, j]; rows of A enter on the left and move right; partial
sums move down each column, each PE adding A[i, k] * B[k, j], so no PE adds into its own
result and every PE starts a row per clock. ``BITS=32``: float32 inputs; ``BITS=16``:
bfloat16 inputs, widened to float32 (exactly) before the multiply, so each product is exact
and only the sums round: the bf16 x bf16 -> fp32 multiply-accumulate of ML accelerators.
The sums are added in k order, as ``reference`` does in numpy float32.
"""
import numpy as np

import hwgen
from hwgen import R, S, Stream, bfloat16, float32

TEST_SIZES = [{"M": 6, "N": 3, "K": 4, "BITS": 32}, {"M": 5, "N": 2, "K": 3, "BITS": 16}]


def build(M: int = 16, N: int = 4, K: int = 4, BITS: int = 32):
    T = {32: float32, 16: bfloat16}.get(BITS)
    if T is None:
        raise hwgen.HwgenError(f"BITS must be 32 (float32) or 16 (bfloat16), not {BITS}")

    @hwgen.region
    def gemm_ws_float(A: T[M, K] @ [R, S(0)], B: T[K, N] @ [S(0), S(1)],
                      C: float32[M, N] @ [R, S(1)]):
        a_in = Stream[T, 2][K, N]          # a_in[k, j]: A values entering PE (k, j) from the left
        psum = Stream[float32, 2][K, N]    # psum[k, j]: partial sums entering PE (k, j) from above

        @hwgen.task(mapping=[K, N])
        def pe():
            k, j = hwgen.get_pid()
            w: float32 = B[k, j]           # the stationary weight (bfloat16 widened exactly)
            for i in range(M):
                if j == 0:
                    a: T = A[i, k]
                else:
                    a: T = a_in[k, j].get()
                if j < N - 1:
                    a_in[k, j + 1].put(a)
                x: float32 = a
                if k == 0:
                    s: float32 = x * w
                else:
                    s: float32 = psum[k, j].get() + x * w
                if k < K - 1:
                    psum[k + 1, j].put(s)
                else:
                    C[i, j] = s

    return gemm_ws_float


def reference(A, B):
    """float32 products and sums, added in k order (not numpy's blocked matmul order)."""
    a, b = A.astype(np.float32), B.astype(np.float32)
    with np.errstate(all="ignore"):
        C = a[:, :1] * b[:1, :]
        for k in range(1, a.shape[1]):
            C = C + a[:, k:k + 1] * b[k:k + 1, :]
    return {"C": C}
