"""A register array indexed by values computed at run time: a weighted histogram of X's
values modulo B from a bias (consecutive updates of one element at the ``B=1`` extreme), each weight a
product, and a second array read at one run-time index and written at another in the same
iteration (a shift of the last values seen, indexed by a running count)."""
import numpy as np

import hwgen
from hwgen import int8, int32, uint8


def build(N: int = 9, B: int = 3):
    @hwgen.region
    def register_array_index(X: uint8[N], W: int8[N], BIAS: int8[B], H: int32[B],
                             L: int32[4]):
        @hwgen.task
        def t():
            counts: int32[B]
            last: int32[4]
            for b in range(B):
                counts[b] = BIAS[b]
            for k in range(4):
                last[k] = 0
            n: uint8 = 0
            for i in range(N):
                x: uint8 = X[i]
                counts[x % B] += W[i] * x
                last[n & 3] = last[(n + 3) & 3] + x
                n += 1
            for b in range(B):
                H[b] = counts[b]
            for k in range(4):
                L[k] = last[k]

    return register_array_index


def reference(X, W, BIAS):
    counts, last = BIAS.astype(np.int64), [0, 0, 0, 0]
    B = len(BIAS)
    for n, (x, w) in enumerate(zip(X.astype(np.int64), W.astype(np.int64))):
        counts[x % B] += w * x
        last[n & 3] = last[(n + 3) & 3] + x
    wrap = (counts + 2 ** 31) % 2 ** 32 - 2 ** 31
    return {"H": wrap, "L": np.array(last)}
