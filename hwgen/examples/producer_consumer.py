"""Two tasks and one stream: the producer scales A, the consumer keeps a running sum in B."""
import hwgen
from hwgen import Stream, int8, int16, int32

TEST_SIZES = [{"N": 16}, {"N": 13}]


def build(N: int = 16):
    @hwgen.region
    def producer_consumer(A: int8[N], B: int32[N]):
        pipe = Stream[int16, 4]

        @hwgen.task
        def producer():
            for i in range(N):
                x: int16 = A[i] * 3 + 1
                pipe.put(x)

        @hwgen.task
        def consumer():
            total: int32 = 0
            for i in range(N):
                total += pipe.get()
                B[i] = total

    return producer_consumer


def reference(A):
    return {"B": (A.astype("int64") * 3 + 1).cumsum()}
