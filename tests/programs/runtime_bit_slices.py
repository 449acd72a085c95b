"""Bit slices at run-time offsets (``w[8 * m:8 * m + 8]``, the width constant): a word packed
from four int8 in a loop, put, then unpacked, updated in place (``+=`` on a slice) and read;
slices of a signed local held in a narrower register see its sign bits."""
import numpy as np

import hwgen
from hwgen import Stream, UInt, int8, int16, int32


def build(K: int = 6, LANES: int = 4):
    @hwgen.region
    def runtime_bit_slices(A: int8[K, LANES], B: int16[K, LANES]):
        s = Stream[UInt(8 * LANES), 2]

        @hwgen.task
        def pack():
            for k in range(K):
                w: UInt(8 * LANES) = 0
                for m in range(LANES):
                    w[m * 8:(m + 1) * 8] = A[k, m]
                s.put(w)

        @hwgen.task
        def unpack():
            for k in range(K):
                w = s.get()
                for m in range(LANES):
                    x: int8 = w[8 * m:8 * m + 8]
                    y: int32 = x        # a register as narrow as its values: bits of an int32
                    w[m * 8:m * 8 + 8] += 1
                    B[k, m] = x + w[8 * m:8 * m + 8] + w[LANES * 8 - 1 - m] + y[24:32] + \
                        y[m:m + 8]

    return runtime_bit_slices


def reference(A):
    a = A.astype(np.int16)
    u = a & 255
    bumped = (u + 1) & 255
    # w[8 * LANES - 1 - m]: one bit, the top bits of lanes from the last down, after the bumps
    # of lanes up to m (lane LANES - 1 - m / 8 ... is bumped when its index <= m).
    lanes = A.shape[1]
    top = np.zeros_like(a)
    for m in range(lanes):
        bit = 8 * lanes - 1 - m
        lane, pos = divmod(bit, 8)
        word = np.where(lane <= m, bumped[:, lane], u[:, lane])
        top[:, m] = (word >> pos) & 1
    sign = np.where(a < 0, 255, 0)
    own = (a >> np.arange(lanes)) & 255                 # y[m:m + 8] of y = x
    return {"B": a + bumped + top + sign + own}
