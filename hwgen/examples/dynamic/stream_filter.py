"""A filter: the producer passes on the elements of X above zero, as many as the data decide,
and closes the stream; the consumer sums and counts what arrives."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32

TEST_SIZES = [{"N": 16}, {"N": 97}]


def build(N: int = 16):
    @hwgen.region
    def stream_filter(X: int8[N], Y: int32[2]):
        passed = Stream[int8, 4, N]         # at most N values per problem

        @hwgen.task
        def producer():
            for i in range(N):
                x: int8 = X[i]
                if x > 0:
                    passed.put(x)
            passed.close()

        @hwgen.task
        def consumer():
            total: int32 = 0
            count: int32 = 0
            for v in passed:
                total += v
                count += 1
            Y[0] = total
            Y[1] = count

    return stream_filter


def reference(X):
    kept = X[X > 0].astype(np.int64)
    return {"Y": np.array([kept.sum(), kept.size])}
