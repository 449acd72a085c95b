"""An int8 digit classifier, trained on scikit-learn's bundled 8x8 digits: 64 pixels -> 32
hidden (ReLU, requantized to int8 by a shift) -> 10 logits and their argmax, for B images per
problem.

The trained weights (``digits_model.npz``, written by ``scripts/train_digits.py``) are
compile-time tables: they are part of the hardware, so the host sends only the images. Each
layer is a task; the hidden values flow on a stream. Layer 1 does U multiply-accumulates per
clock (``meta_for(U)`` unrolls them), layer 2 one. Layer 2 collects the hidden values in a loop
of its own before its output loops; lowering runs that loop on the first output's pass, so
neither waits for the other (`docs/language.md`, Loops). Start from here for a network of your
own: replace the tables and the sizes, keep the structure.
"""
import os

import numpy as np

import hwgen
from hwgen import Stream, int8, int16, int32

MODEL = np.load(os.path.join(os.path.dirname(__file__), "digits_model.npz"))
W1, B1, W2, B2 = MODEL["w1"], MODEL["b1"], MODEL["w2"], MODEL["b2"]
SHIFT = int(MODEL["shift"])
(H, N0), N2 = W1.shape, W2.shape[0]

TEST_SIZES = [{"B": 1, "U": 4}, {"B": 2, "U": 1}]


def build(B: int = 8, U: int = 4):
    if N0 % U:
        raise hwgen.HwgenError(f"U={U} must divide the {N0} pixels")

    @hwgen.region
    def digits(X: int8[B, N0], logits: int32[B, N2], label: int8[B]):
        h = Stream[int8, 18]                         # the depth `hwgen check` advises

        @hwgen.task
        def layer1():
            w1: int8[H, N0] = W1                     # a read-only table (block RAM)
            b1: int16[H] = B1
            for b in range(B):
                for o in range(H):
                    acc: int32 = b1[o]
                    for i in range(N0 // U):
                        with hwgen.meta_for(U) as u:
                            acc += w1[o, U * i + u] * X[b, U * i + u]
                    h.put(min(max(acc >> SHIFT, 0), 127))

        @hwgen.task
        def layer2():
            w2: int8[N2, H] = W2
            b2: int16[N2] = B2
            x: int8[H]
            for b in range(B):
                best: int32 = -(1 << 31)
                arg: int8 = 0
                for i in range(H):
                    x[i] = h.get()
                for o in range(N2):
                    acc: int32 = b2[o]
                    for i in range(H):
                        acc += w2[o, i] * x[i]
                    logits[b, o] = acc
                    if acc > best:                   # the first of equal logits, as argmax
                        best = acc
                        arg = o
                label[b] = arg

    return digits


def reference(X):
    x = X.astype(np.int64)
    hidden = np.clip((x @ W1.T.astype(np.int64) + B1) >> SHIFT, 0, 127)
    logits = hidden @ W2.T.astype(np.int64) + B2
    return {"logits": logits, "label": logits.argmax(axis=1)}
