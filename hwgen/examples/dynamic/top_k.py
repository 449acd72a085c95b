"""Top 3 of a filtered stream: the producer passes on the even elements of X and closes the
stream; the consumer keeps the three largest it reads (-128 where fewer arrive)."""
import numpy as np

import hwgen
from hwgen import Stream, int8

TEST_SIZES = [{"N": 16}, {"N": 33}]
K = 3


def build(N: int = 16):
    @hwgen.region
    def top_k(X: int8[N], Y: int8[K]):
        evens = Stream[int8, 2, N]

        @hwgen.task
        def producer():
            for i in range(N):
                x: int8 = X[i]
                if (x & 1) == 0:
                    evens.put(x)
            evens.close()

        @hwgen.task
        def consumer():
            t0: int8 = -128
            t1: int8 = -128
            t2: int8 = -128
            for v in evens:
                if v > t0:
                    t2 = t1
                    t1 = t0
                    t0 = v
                elif v > t1:
                    t2 = t1
                    t1 = v
                elif v > t2:
                    t2 = v
            Y[0] = t0
            Y[1] = t1
            Y[2] = t2

    return top_k


def reference(X):
    evens = np.sort(X[X % 2 == 0].astype(np.int64))[::-1]
    return {"Y": np.concatenate([evens, np.full(K, -128)])[:K]}
