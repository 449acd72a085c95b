"""Indices computed from run-time values (a lookup through a table, a position found in a
loop): the interpreter runs them and checks each index when it is known; hardware refuses them
at the line."""
import numpy as np

import hwgen
from hwgen import int8, int32


def build(N: int = 5, LIMIT: int = 5):
    @hwgen.region
    def runtime_index(P: int8[N], A: int32[N], B: int32[N]):
        @hwgen.task
        def gather():
            for i in range(N):
                at: int32 = P[i] % LIMIT
                last: int32 = 0
                for j in range(N):
                    if A[j] > 0:
                        last = j
                B[i] = A[at] + A[last]  # LINE

    return runtime_index


def reference(P, A):
    positive = np.nonzero(A > 0)[0]
    last = positive[-1] if len(positive) else 0
    return {"B": A[P.astype(np.int64) % len(A)] + A[last]}
