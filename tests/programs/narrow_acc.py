"""Compiles, but the int16 accumulators can overflow: 64 products of int8 reach 2**20."""
import hwgen
from hwgen import int8, int16


def build(K: int = 64):
    @hwgen.region
    def narrow_acc(A: int8[K], B: int8[K], C: int16[2]):
        @hwgen.task
        def dot():
            acc: int16 = 0
            pos: int16 = 0
            for k in range(K):
                acc += A[k] * B[k]  # WARN acc
                x: int8 = A[k]
                if x > 0:
                    pos += x  # WARN pos
            C[0] = acc
            C[1] = pos

    return narrow_acc
