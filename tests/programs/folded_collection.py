"""One task instance per hidden neuron, collected with meta_for: it builds as written, and
folded (--array 4) four neurons share a stream that the collection gets four times on one
iteration."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32

SHIFT = 6


def build(H: int = 16, N0: int = 8, N2: int = 4):
    @hwgen.region
    def neurons(X: int8[N0], W1: int8[H, N0], W2: int8[N2, H], Y: int32[N2]):
        h = Stream[int8, 4][H]

        @hwgen.task(mapping=[H])
        def layer1():
            n = hwgen.get_pid()
            acc: int32 = 0
            for i in range(N0):
                acc += W1[n, i] * X[i]
            h[n].put(min(max(acc >> SHIFT, 0), 127))

        @hwgen.task
        def layer2():
            x: int8[H]
            with hwgen.meta_for(H) as n:
                x[n] = h[n].get()           # LINE
            for o in range(N2):
                acc: int32 = 0
                for i in range(H):
                    acc += W2[o, i] * x[i]
                Y[o] = acc

    return neurons


def reference(X, W1, W2):
    h = np.clip((W1.astype(np.int64) @ X) >> SHIFT, 0, 127)
    return {"Y": W2.astype(np.int64) @ h}
