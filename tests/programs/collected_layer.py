"""A layer written the natural way: a loop that collects its input vector, then the loops
over outputs, in sequence inside the loop over images. Lowering runs the collection on the
first output's pass, as a user would write it by hand (640 clocks per image, not two phases of
4,096)."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32


def build(B: int = 8, H: int = 64, N2: int = 10):
    @hwgen.region
    def seq(X: int8[B, H], W2: int8[N2, H], Y: int32[B, N2]):
        h = Stream[int8, 64]

        @hwgen.task
        def feed():
            for b in range(B):
                for i in range(H):
                    h.put(X[b, i])

        @hwgen.task
        def layer2():
            for b in range(B):
                x: int8[H]
                for i in range(H):
                    x[i] = h.get()
                for o in range(N2):
                    acc: int32 = 0
                    for i in range(H):
                        acc += W2[o, i] * x[i]
                    Y[b, o] = acc

    return seq


def reference(X, W2):
    return {"Y": X.astype(np.int64) @ W2.astype(np.int64).T}
