"""An accumulator that starts from a bias as wide as itself: the warning says to narrow the
bias first."""
import numpy as np

import hwgen
from hwgen import int8, int32


def build(H: int = 4, N: int = 8):
    @hwgen.region
    def bias_acc(X: int8[N], W: int8[H, N], b: int32[H], Y: int32[H]):
        @hwgen.task
        def t():
            for o in range(H):
                acc: int32 = b[o]
                for i in range(N):
                    acc += X[i] * W[o, i]  # WARN acc
                Y[o] = acc

    return bias_acc


def reference(X, W, b):
    return {"Y": W.astype(np.int64) @ X.astype(np.int64) + b}
