"""A three-layer int8 MLP as a pipeline of tasks: Y = W3 @ q(W2 @ q(W1 @ X)), where
q(v) = clamp(v >> SHIFT, 0, 127) is ReLU plus requantization to int8.

Each layer is a task; activations flow between layers on FIFOs. Layers 2 and 3 first collect
their whole input vector in a local array (registers when small, a memory otherwise), then
compute one output neuron per pass over it, while the previous layer works on its next neuron.
"""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32

TEST_SIZES = [{"N0": 8, "N1": 8, "N2": 4, "N3": 4}, {"N0": 5, "N1": 17, "N2": 3, "N3": 2}]
SHIFT = 6


def build(N0: int = 16, N1: int = 16, N2: int = 16, N3: int = 8):
    @hwgen.region
    def mlp_pipeline(X: int8[N0], W1: int8[N1, N0], W2: int8[N2, N1], W3: int8[N3, N2],
                     Y: int32[N3]):
        h1 = Stream[int8, 4]
        h2 = Stream[int8, 4]

        @hwgen.task
        def layer1():
            for o in range(N1):
                acc: int32 = 0
                for i in range(N0):
                    acc += W1[o, i] * X[i]
                h1.put(min(max(acc >> SHIFT, 0), 127))

        @hwgen.task
        def layer2():
            x: int8[N1]
            for i in range(N1):
                x[i] = h1.get()
            for o in range(N2):
                acc: int32 = 0
                for i in range(N1):
                    acc += W2[o, i] * x[i]
                h2.put(min(max(acc >> SHIFT, 0), 127))

        @hwgen.task
        def layer3():
            x: int8[N2]
            for i in range(N2):
                x[i] = h2.get()
            for o in range(N3):
                acc: int32 = 0
                for i in range(N2):
                    acc += W3[o, i] * x[i]
                Y[o] = acc

    return mlp_pipeline


def reference(X, W1, W2, W3):
    def q(v):
        return np.clip(v >> SHIFT, 0, 127)
    x = X.astype(np.int64)
    h1 = q(W1.astype(np.int64) @ x)
    h2 = q(W2.astype(np.int64) @ h1)
    return {"Y": W3.astype(np.int64) @ h2}
