"""Loops in sequence inside a loop body, of different lengths and depths (phases of one loop
nest): a block got whole, transformed in place, summed, and written out, per outer iteration."""
import hwgen
from hwgen import Int, Stream, int16, int32


def build(B: int = 2, M: int = 4, K: int = 3):
    @hwgen.region
    def loops_in_sequence(A: int16[B * M], W: int16[K], C: int32[B * M], D: Int(48)[B]):
        pipe = Stream[int16[M], 2]

        @hwgen.task
        def producer():
            for i in range(B):
                block: int16[M] = 0
                for m in range(M):
                    block[m] = A[i * M + m]
                pipe.put(block)

        @hwgen.task
        def consumer():
            for i in range(B):
                block: int16[M] = pipe.get()
                for m in range(M):
                    block[m] = block[m] * 2 + 1
                total: Int(48) = 0
                for k in range(K):
                    total += W[k] * block[k % M]
                for r in range(2):
                    for m in range(M):
                        total += r * block[m]
                for m in range(M):
                    C[i * M + m] = block[m]
                D[i] = total

    return loops_in_sequence
