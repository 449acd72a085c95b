"""Scaled dot-product attention, O = softmax(Q Kᵀ / sqrt(D)) V, as a pipeline of three tasks.

``qk`` streams the scores of each query row against every key (float32 sums over D);
``softmax`` keeps a row, its running maximum, the exponentials of its scores less that maximum
and their sum, and streams the probabilities (each exponential times the sum's reciprocal);
``pv`` takes a row of probabilities and sums them against each column of V. ``BITS=16``: Q, K
and V in bfloat16, widened exactly to float32. The exponential is ``hwgen.exp``, an
approximation (relative error below 2.5e-4) that interpreter and hardware compute alike, so the
outputs match the interpreter bit for bit and numpy's attention within ``TOLERANCE``
(absolute, for inputs in ``INPUT_RANGE``).
"""
import math

import numpy as np

import hwgen
from hwgen import Stream, bfloat16, float32

TEST_SIZES = [{"L": 4, "D": 3, "BITS": 32}, {"L": 5, "D": 2, "BITS": 16}]
TOLERANCE = 5e-4            # absolute, against numpy in float64 (inputs in INPUT_RANGE)
INPUT_RANGE = (-2.0, 2.0)


def build(L: int = 8, D: int = 8, BITS: int = 32):
    T = {32: float32, 16: bfloat16}.get(BITS)
    if T is None:
        raise hwgen.HwgenError(f"BITS must be 32 (float32) or 16 (bfloat16), not {BITS}")
    scale = 1.0 / math.sqrt(D)

    @hwgen.region
    def attention(Q: T[L, D], K: T[L, D], V: T[L, D], O: float32[L, D]):
        scores = Stream[float32, 4]        # S[i, j] / sqrt(D), row by row
        probs = Stream[float32, 4]         # softmax(S)[i, j], row by row

        @hwgen.task
        def qk():
            for i in range(L):
                for j in range(L):
                    s: float32 = 0
                    for d in range(D):
                        q: float32 = Q[i, d]
                        k: float32 = K[j, d]
                        s += q * k
                    scores.put(s * scale)

        @hwgen.task
        def softmax():
            for i in range(L):
                row: float32[L]
                e: float32[L]
                peak: float32 = -3.0e38
                for j in range(L):
                    x: float32 = scores.get()
                    row[j] = x
                    peak = max(peak, x)
                total: float32 = 0
                for j in range(L):
                    y: float32 = hwgen.exp(row[j] - peak)
                    e[j] = y
                    total += y
                inverse: float32 = 1.0 / total
                for j in range(L):
                    probs.put(e[j] * inverse)

        @hwgen.task
        def pv():
            for i in range(L):
                p: float32[L]
                for d in range(D):
                    acc: float32 = 0
                    for j in range(L):
                        if d == 0:                 # the row arrives on the first column's pass
                            p[j] = probs.get()
                        v: float32 = V[j, d]
                        acc += p[j] * v
                    O[i, d] = acc

    return attention


def reference(Q, K, V):
    """numpy's attention in float64."""
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (Q, K, V))
    s = q @ k.T / math.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return {"O": (p / p.sum(axis=1, keepdims=True)) @ v}
