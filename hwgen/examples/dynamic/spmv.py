"""Sparse matrix x vector with the matrix in compressed rows (CSR): row r holds LENGTHS[r]
nonzeros (0 to 3, rows of different lengths), the next ones of VALS, in columns COLS. One task
walks the nonzeros with a while loop, a nonzero or the end of a row per iteration, and streams
each row's sum; a writer stores them."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32, uint2, uint8

TEST_SIZES = [{"R": 4, "C": 5}, {"R": 9, "C": 3}]


def build(R: int = 4, C: int = 5):
    @hwgen.region
    def spmv(LENGTHS: uint2[R], COLS: uint8[3 * R], VALS: int8[3 * R], X: int8[C],
             Y: int32[R]):
        sums = Stream[int32, 2, R]

        @hwgen.task
        def walker():
            r: int32 = 0
            k: int32 = 0
            left: int32 = LENGTHS[0]
            acc: int32 = 0
            while hwgen.bounded(r < R, max_iterations=4 * R):
                if left > 0:
                    acc += VALS[k] * X[COLS[k] % C]
                    k += 1
                    left -= 1
                else:
                    sums.put(acc)
                    acc = 0
                    r += 1
                    if r < R:
                        left = LENGTHS[r]
            sums.close()

        @hwgen.task
        def writer():
            n: int32 = 0
            for v in sums:
                Y[n] = v
                n += 1

    return spmv


def reference(LENGTHS, COLS, VALS, X, R=4, C=5):
    ends = np.cumsum(LENGTHS)
    starts = ends - LENGTHS
    products = VALS.astype(np.int64) * X[COLS % C]
    return {"Y": np.array([products[s:e].sum() for s, e in zip(starts, ends)])}
