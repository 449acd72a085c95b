"""A branch on a grid index and a loop variable, `if p == 0 and k > 0:`: the grid index is a
constant in each instance, so the part on it decides at compile time and the other runs on
the iterations where it holds."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def grid_index_branches(A: int8[2, N], B: int32[2, N]):
        s = Stream[int8, 2][2]

        @hwgen.task(mapping=[2])
        def prod():
            p = hwgen.get_pid()
            for k in range(N):
                if p == 0 and k > 0:
                    s[p].put(A[p, k])
                else:
                    s[p].put(A[p, k] // 2)

        @hwgen.task(mapping=[2])
        def cons():
            p = hwgen.get_pid()
            for k in range(N):
                B[p, k] = s[p].get()
    return grid_index_branches


def reference(A):
    a = A.astype(np.int64)
    b = a // 2
    b[0, 1:] = a[0, 1:]
    return {"B": b}
