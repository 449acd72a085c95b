"""Smith-Waterman local alignment scores on a linear systolic array (a non-GEMM recurrence):
H[i, j] = max(0, H[i-1, j-1] + s(Q[i], D[j]), H[i-1, j] - GAP, H[i, j-1] - GAP), with H = 0
outside the matrix and s = MATCH or -MISMATCH.

PE i owns query character Q[i] and row i of H. Database characters enter PE 0 and move down
the array one PE per step, each with the H value computed above it; PE i keeps its previous
H (the left neighbour) and the previous value from above (the diagonal) in registers.
"""
import numpy as np

import hwgen
from hwgen import R, S, Stream, int16, uint2

TEST_SIZES = [{"P": 4, "L": 12}, {"P": 3, "L": 7}]
MATCH, MISMATCH, GAP = 3, 3, 2


def build(P: int = 8, L: int = 32):
    @hwgen.region
    def smith_waterman(Q: uint2[P] @ [S(0)], D: uint2[L], H: int16[P, L] @ [S(0), R]):
        chars = Stream[uint2, 2][P]         # chars[i]: database characters entering PE i
        above = Stream[int16, 2][P]        # above[i]: H[i-1, j] entering PE i

        @hwgen.task(mapping=[P])
        def cell():
            i = hwgen.get_pid()
            q: uint2 = Q[i]
            left: int16 = 0                # H[i, j-1]
            diag: int16 = 0                # H[i-1, j-1]
            for j in range(L):
                if i == 0:
                    d: uint2 = D[j]
                    up: int16 = 0
                else:
                    d: uint2 = chars[i].get()
                    up: int16 = above[i].get()
                score: int16 = diag + (MATCH if q == d else -MISMATCH)
                h: int16 = max(0, score, up - GAP, left - GAP)
                if i < P - 1:
                    chars[i + 1].put(d)
                    above[i + 1].put(h)
                H[i, j] = h
                left = h
                diag = up

    return smith_waterman


def reference(Q, D):
    P, L = len(Q), len(D)
    h = np.zeros((P + 1, L + 1), dtype=np.int64)
    for i in range(1, P + 1):
        for j in range(1, L + 1):
            s = MATCH if Q[i - 1] == D[j - 1] else -MISMATCH
            h[i, j] = max(0, h[i - 1, j - 1] + s, h[i - 1, j] - GAP, h[i, j - 1] - GAP)
    return {"H": h[1:, 1:]}
