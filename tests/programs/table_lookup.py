"""A read-only table looked up by run-time values (``schedule.support``: any address of a
table; the read waits for the address, ``schedule.levels``): an int8 function of a channel and
an 8-bit value and another at its result, and a float table indexed by a sum."""
import numpy as np

import hwgen
from hwgen import float32, int8, uint8
from hwgen.ir import floats

CURVE = ((np.arange(3 * 256) * 37) % 251 - 125).astype(np.int8).reshape(3, 256)
BEND = CURVE[::-1] // 2
STEPS = np.linspace(-1.0, 1.0, 600).astype(np.float32)


def build(N: int = 5):
    @hwgen.region
    def table_lookup(A: int8[N, 3], B: uint8[N], C: int8[N, 3], D: float32[N]):
        @hwgen.task
        def t():
            f: int8[3, 256] = CURVE
            h: int8[3, 256] = BEND
            g: float32[600] = STEPS
            for i in range(N):
                for c in range(3):
                    once: int8 = f[c, A[i, c] + 128]
                    C[i, c] = h[2 - c, once + 128]
                D[i] = g[B[i] + B[i] + 7] * 2.0

    return table_lookup


def reference(A, B):
    """Floats as bit patterns, as the interpreter and the hardware hold them."""
    channels = np.arange(3)
    once = CURVE[channels, A.astype(np.int64) + 128].astype(np.int64)
    return {"C": BEND[2 - channels, once + 128],
            "D": floats.to_bits(STEPS[B.astype(np.int64) * 2 + 7] * np.float32(2.0), float32)}
