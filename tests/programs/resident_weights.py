"""A layer whose weights stay on chip: ``W`` is resident (the host loads it once), each
problem sends only its batch ``X``; ``Y = X @ W.T`` on a row of PEs, one per output."""
import numpy as np

import hwgen
from hwgen import int8, int32, resident


def build(B: int = 3, N: int = 4, K: int = 6):
    @hwgen.region
    def layer(X: int8[B, K], W: resident(int8[N, K]), Y: int32[B, N]):
        @hwgen.task(mapping=[N])
        def neuron():
            o, = hwgen.get_pid()
            for b in range(B):
                acc: int32 = 0
                for k in range(K):
                    acc += W[o, k] * X[b, k]
                Y[b, o] = acc

    return layer


def reference(X, W):
    return {"Y": X.astype(np.int64) @ W.astype(np.int64).T}
