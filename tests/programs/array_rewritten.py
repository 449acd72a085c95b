"""Register arrays read after they are written in the same loop iteration (Allo's streams of
blocks): a block filled element by element and put whole on its last element; a block got
whole and read on the same iteration; a row read on the iteration that wrote its last
element. Blocks of more than 16 elements are registers too (``ir.layout.memory_arrays``)."""
import numpy as np

import hwgen
from hwgen import Stream, int16


def build(B: int = 2, N: int = 4):
    @hwgen.region
    def array_rewritten(A: int16[B * N, N], C: int16[B * N, N], D: int16[B * N]):
        pipe = Stream[int16[N, N], 2]

        @hwgen.task
        def producer():
            for i in range(B):
                block: int16[N, N] = 0
                for m in range(N):
                    for n in range(N):
                        block[m, n] = A[i * N + m, n]
                pipe.put(block)                 # after the last element's write

        @hwgen.task
        def consumer():
            for i in range(B):
                block: int16[N, N] = pipe.get()
                for m in range(N):
                    row: int16[N]
                    for n in range(N):
                        C[i * N + m, n] = block[m, n]   # on the get's iteration too
                        row[n] = block[m, n] + 1
                    D[i * N + m] = row[N - 1] * 2       # after the last element's write

    return array_rewritten


def reference(A):
    n = A.shape[1]
    return {"C": A.copy(), "D": ((A[:, n - 1].astype(np.int64) + 1) * 2).astype(np.int16)}
