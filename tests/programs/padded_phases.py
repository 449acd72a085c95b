"""A layer whose output loops read the collected vector backwards (``x[H - 1 - i]``): the
collection cannot run on the first output's pass (an element would be read before it arrives),
so the loops stay phases, each as long as the longest (the collection lined up with the output
loops' inner loop: 1,280 clocks per image for 704 iterations), and lowering says so at the
loop."""
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
            for b in range(B):                          # WARN padding
                x: int8[H]
                for i in range(H):
                    x[i] = h.get()
                for o in range(N2):
                    acc: int32 = 0
                    for i in range(H):
                        acc += W2[o, i] * x[H - 1 - i]
                    Y[b, o] = acc

    return seq


def reference(X, W2):
    return {"Y": X[:, ::-1].astype(np.int64) @ W2.astype(np.int64).T}
