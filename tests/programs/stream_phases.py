"""One stream put and got by several statements of a task, never on the same iteration:
puts in loops in sequence of different lengths and in a second top-level loop, gets split
differently on the other side."""
import hwgen
from hwgen import Stream, int16, int32


def build(B: int = 2, M: int = 3, K: int = 4):
    @hwgen.region
    def stream_phases(A: int16[B, M], W: int16[B, K], C: int32[B, M + K], D: int32[B],
                      E: int32[B]):
        s = Stream[int32, 2]
        t = Stream[int16, 2]

        @hwgen.task
        def producer():
            for i in range(B):
                for m in range(M):
                    s.put(A[i, m] * 2)
                for k in range(K):
                    s.put(W[i, k] + 1)
                t.put(A[i, 0])
            for i in range(B):
                s.put(i * 7)

        @hwgen.task
        def consumer():
            for i in range(B):
                for j in range(K):
                    C[i, j] = s.get()
                for j in range(M):
                    C[i, K + j] = s.get()
                D[i] = t.get()
            for i in range(B):
                E[i] = s.get() + 1

    return stream_phases
