"""Read-only tables: local arrays whose more than 256 elements come from their declaration
(weights in the region's scope) are memories initialised with them (``rtl.local_array``),
read like any other memory; integer tables of 4,100 and 2,048 elements and a float one."""
import numpy as np

import hwgen
from hwgen import float32, int8, int16
from hwgen.ir import floats

TABLE = ((np.arange(4100) * 37) % 255 - 127).astype(np.int8)
MID = ((np.arange(2048) * 11) % 256 - 128).astype(np.int8)
FLOATS = (np.linspace(-3.0, 3.0, 4200) ** 3).astype(np.float32)


def build(N: int = 20):
    @hwgen.region
    def rom_table(A: int8[N], X: float32[N], C: int16[N], D: float32[N]):
        @hwgen.task
        def t():
            W: int8[4100] = TABLE
            M: int8[2048] = MID
            F: float32[4200] = FLOATS
            for i in range(N):
                C[i] = A[i] * W[i * 41 + 7] + M[i * 20 + 3]
                D[i] = X[i] * F[4199 - i * 42]

    return rom_table


def reference(A, X):
    """Floats as bit patterns, as the interpreter and the hardware hold them."""
    i = np.arange(len(A))
    with np.errstate(invalid="ignore", over="ignore"):
        product = floats.from_bits(X, float32) * FLOATS[4199 - i * 42]
    return {"C": (A.astype(np.int16) * TABLE[i * 41 + 7] + MID[i * 20 + 3]).astype(np.int16),
            "D": floats.to_bits(product, float32)}
