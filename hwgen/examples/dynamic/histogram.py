"""A histogram of the values a filter passes on: the producer streams the elements of X below
B and closes the stream; the consumer counts each value in a local array indexed by the value
(a run-time index), then writes the counts."""
import numpy as np

import hwgen
from hwgen import Stream, int32, uint8

TEST_SIZES = [{"N": 16, "B": 8}, {"N": 97, "B": 5}]


def build(N: int = 16, B: int = 8):
    @hwgen.region
    def histogram(X: uint8[N], H: int32[B]):
        kept = Stream[uint8, 4, N]

        @hwgen.task
        def producer():
            for i in range(N):
                x: uint8 = X[i]
                if x < B:
                    kept.put(x)
            kept.close()

        @hwgen.task
        def consumer():
            counts: int32[B] = 0
            for v in kept:
                counts[v] += 1
            for b in range(B):
                H[b] = counts[b]

    return histogram


def reference(X, B=8):
    return {"H": np.bincount(X[X < B], minlength=B)[:B]}
