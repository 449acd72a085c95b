"""Layer 2 takes a whole vector on its first output's pass, then computes for N2 - 1 more passes
while layer 1 goes on producing: a FIFO of depth 4 makes layer 1 stall (hwgen check advises
the depth at which it does not)."""
import numpy as np
import hwgen
from hwgen import Stream, int8, int32

def build(B: int = 3, H: int = 8, N2: int = 12):
    @hwgen.region
    def layer(X: int8[B, H], W1: int8[H, H], W2: int8[N2, H], Y: int32[B, N2]):
        h = Stream[int8, 4]

        @hwgen.task
        def layer1():
            for b in range(B):
                for o in range(H):
                    acc: int32 = 0
                    for i in range(H):
                        acc += W1[o, i] * X[b, i]
                    h.put(min(max(acc >> 7, 0), 127))

        @hwgen.task
        def layer2():
            x: int8[H]
            for b in range(B):
                for o in range(N2):
                    acc: int32 = 0
                    for i in range(H):
                        if o == 0:
                            x[i] = h.get()
                        acc += W2[o, i] * x[i]
                    Y[b, o] = acc
    return layer

def reference(X, W1, W2):
    h = np.clip((X.astype(np.int64) @ W1.T.astype(np.int64)) >> 7, 0, 127)
    return {"Y": h @ W2.T.astype(np.int64)}
