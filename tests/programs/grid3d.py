"""A 3-D grid: PE (a, b, c) sums row (a, b, c, :) of A; every dimension but the last sharded."""
import hwgen
from hwgen import R, S, int8, int16


def build(P: int = 2, Q: int = 3, U: int = 2, K: int = 5):
    @hwgen.region
    def grid3d(A: int8[P, Q, U, K] @ [S(0), S(1), S(2), R], B: int16[P, Q, U]):
        @hwgen.task(mapping=[P, Q, U])
        def pe():
            a, b, c = hwgen.get_pid()
            acc: int16 = 0
            for k in range(K):
                acc += A[a, b, c, k]
            B[a, b, c] = acc

    return grid3d


def reference(A):
    return {"B": A.astype("int64").sum(axis=3)}
