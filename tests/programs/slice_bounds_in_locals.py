"""Bit slice bounds held in locals, as Allo writes them (``lsb: index = k * 32``,
``msb: index = (k + 1) * 32 - 1``, a constant apart): four int32 lanes of B's columns packed
into one int128 word, streamed, and a lane picked by an index that arrives on another stream
(a run-time offset). Allo's slices, as Python's, end before ``msb``: 31 bits."""
import numpy as np

import hwgen
from hwgen import Stream, int32
from hwgen.allo.ir.types import index, int128


def build(N: int = 3):
    @hwgen.region
    def slice_bounds_in_locals(B: int32[4, N], IDX: int32[N], C: int32[N]):
        words = Stream[int128, 2]
        picks = Stream[int32, 2]

        @hwgen.task
        def packer():
            for n in range(N):
                pack: int128 = 0
                for k in range(4):
                    msb: index = (k + 1) * 32 - 1
                    lsb: index = k * 32
                    pack[lsb:msb] = B[k, n]
                words.put(pack)
                picks.put(IDX[n] & 3)

        @hwgen.task
        def picker():
            for n in range(N):
                word: int128 = words.get()
                idx: int32 = picks.get()
                msb: index = (idx + 1) * 32 - 1
                lsb: index = idx * 32
                C[n] = word[lsb:msb]

    return slice_bounds_in_locals


def reference(B, IDX):
    lanes = B.astype(np.int64) & ((1 << 31) - 1)
    return {"C": lanes[IDX & 3, np.arange(B.shape[1])]}
