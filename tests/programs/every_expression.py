"""One task that uses every kind of expression the datapath compiles: arithmetic and bitwise
operators, constant and run-time multiplies, shifts, comparisons and logic, negation, run-time
if/else and conditional expressions, max/min/abs, floor division and modulo by constants, bit slices and slice assignment of a packed
local, a register array and a memory array, loop-carried values, statements around an inner
loop and loop nests in sequence."""
import numpy as np

import hwgen
from hwgen import UInt, int8, int16, int32


def build(N: int = 5, K: int = 3):     # K <= 4 and N * K <= 20 (the arrays' sizes)
    @hwgen.region
    def every_expression(A: int8[N, K], B: int8[N, K], C: int32[N], D: int32[N, K],
                         E: int32[N], F: int32[N, K]):
        @hwgen.task
        def t():
            small: int16[4]
            big: int16[20]
            for n in range(N):
                acc: int32 = 0
                packed: UInt(16) = 0
                for k in range(K):
                    a: int8 = A[n, k]
                    b: int8 = B[n, k]
                    s: int16 = (a * 3 + b) >> 1
                    m: int16 = max(a, b, -a) - min(a, abs(b))
                    r: int16 = 0
                    if a > b and not b == 0:
                        r = a - b
                    else:
                        r = -(a ^ b) | (a & 7)
                    packed[8:16] = b
                    packed[0:8] = a
                    small[k] = s
                    big[n * K + k] = m
                    D[n, k] = s + (m if a < 0 else r) + packed[8:16]
                    acc += a * b
                C[n] = acc
                E[n] = acc * 5 - packed[0:8] + acc // 3 - (acc + n) % 6
            for n in range(N):
                for k in range(K):
                    F[n, k] = (big[n * K + k] << 2) - small[k]

    return every_expression


def reference(A, B):
    a, b = A.astype(np.int64), B.astype(np.int64)
    s = (a * 3 + b) >> 1
    m = np.maximum(np.maximum(a, b), -a) - np.minimum(a, np.abs(b))
    r = np.where((a > b) & (b != 0), a - b, -(a ^ b) | (a & 7))
    D = s + np.where(a < 0, m, r) + (b & 0xFF)
    C = (a * b).sum(axis=1)
    E = C * 5 - (a[:, -1] & 0xFF) + C // 3 - (C + np.arange(len(C))) % 6
    F = (m << 2) - s[-1]
    return {"C": C, "D": D, "E": E, "F": F}
