"""Matrix-vector product in floating point: y = A @ x, float32 sums, one row per task.

Task i owns row i of A and y[i]; x enters task 0 and moves down the chain. Each task sums its
row's products in a float accumulator: a float add takes six clocks, so hardware keeps six
partial sums (term k goes to sum k % 6) and adds them pairwise at the end (``ir.accumulate``),
starting a term every clock. ``reference`` adds in exactly that order; against numpy's own
``A @ x`` the sums agree to a few ulps. ``BITS=32``: float32 inputs; ``BITS=16``: bfloat16
inputs, widened exactly to float32 before the multiply.
"""
import numpy as np

import hwgen
from hwgen import R, S, Stream, bfloat16, float32

TEST_SIZES = [{"M": 3, "K": 17, "BITS": 32}, {"M": 2, "K": 5, "BITS": 16}]


def build(M: int = 8, K: int = 64, BITS: int = 32):
    T = {32: float32, 16: bfloat16}.get(BITS)
    if T is None:
        raise hwgen.HwgenError(f"BITS must be 32 (float32) or 16 (bfloat16), not {BITS}")

    @hwgen.region
    def gemv_float(A: T[M, K] @ [S(0), R], x: T[K] @ [R], y: float32[M] @ [S(0)]):
        x_in = Stream[T, 2][M]             # x_in[i]: x entering task i from task i - 1

        @hwgen.task(mapping=[M])
        def row():
            i = hwgen.get_pid()
            acc: float32 = 0
            for k in range(K):
                if i == 0:
                    xk: T = x[k]
                else:
                    xk: T = x_in[i].get()
                if i < M - 1:
                    x_in[i + 1].put(xk)
                a: float32 = A[i, k]
                b: float32 = xk
                acc += a * b
            y[i] = acc

    return gemv_float


def reference(A, x, lanes=6):
    """float32 products, summed as hardware does: term k into partial sum k % lanes (sum 0
    starting at +0, the others at -0), then the partial sums used added pairwise in order."""
    a, v = A.astype(np.float32), x.astype(np.float32)
    with np.errstate(all="ignore"):
        products = a * v[None, :]
        sums = [np.full(a.shape[0], 0.0 if s == 0 else -0.0, np.float32) for s in range(lanes)]
        for k in range(a.shape[1]):
            sums[k % lanes] = sums[k % lanes] + products[:, k]
        sums = sums[:max(1, min(a.shape[1], lanes))]
        while len(sums) > 1:
            pairs = [sums[i] + sums[i + 1] for i in range(0, len(sums) - 1, 2)]
            sums = pairs + sums[2 * len(pairs):]
    return {"y": sums[0]}
