import numpy as np

import hwgen
from hwgen import int8, int32

WEIGHTS = np.arange(300).astype(np.int8)


def build(N: int = 4):
    @hwgen.region
    def table_written(A: int8[N], B: int32[N]):
        @hwgen.task
        def t():
            w: int8[300] = WEIGHTS
            for i in range(N):
                w[i] = A[i]  # LINE
                B[i] = w[i + 4]

    return table_written
