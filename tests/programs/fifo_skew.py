"""Two tasks with different loop structures: the stream between them must be a FIFO, and the
producer stalls while the consumer is busy with its first loop."""
import hwgen
from hwgen import Stream, int8, int16, int32


def build(N: int = 6, D: int = 2):
    @hwgen.region
    def fifo_skew(A: int8[N], B: int16[N], C: int32[N]):
        s = Stream[int16, D]

        @hwgen.task
        def producer():
            for i in range(N):
                s.put(A[i] * 2)

        @hwgen.task
        def consumer():
            acc: int32 = 0
            for i in range(N):
                acc += B[i]
            for i in range(N):
                x: int16 = s.get()
                C[i] = x + acc

    return fifo_skew


def reference(A, B):
    return {"C": A.astype("int64") * 2 + B.astype("int64").sum()}
