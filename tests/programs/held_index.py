"""A local that indexes a register array at run time and is written to a tensor after the
loop (``Y[2] = i``: the write reads the local's register a level after its update): the
register is piped once from its read level and once from a level later, two pipelines (a
shared one wrote the count one short)."""
import numpy as np

import hwgen
from hwgen import int8, int32


def build(N: int = 8):
    @hwgen.region
    def held_index(X: int8[N], Y: int32[3]):
        @hwgen.task
        def t():
            buf: int32[N]
            for k in range(N):
                buf[k] = X[k]
            i: int32 = 0
            total: int32 = 0
            stop: int32 = 0
            for k in range(N):
                x: int32 = buf[i]
                if x < 0:
                    stop = 1
                if stop == 0:
                    total += x
                i += 1
            Y[0] = total
            Y[1] = stop
            Y[2] = i

    return held_index


def reference(X):
    negative = np.flatnonzero(X < 0)
    end = int(negative[0]) if negative.size else len(X)
    return {"Y": np.array([X[:end].astype(np.int64).sum(), int(negative.size > 0), len(X)])}
