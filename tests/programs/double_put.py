"""Allo's double put: on every other iteration the producer puts two elements on one stream,
``s.put(A[j])`` then ``s.put(A[j + 1])``; the consumer gets one per iteration. The two puts run
as two phases of the producer's loop (``lang.body``), so the stream takes one element per
clock; a put in each branch of ``if j % 2 == 0:`` / ``else:`` stays on one clock."""
import hwgen
from hwgen import int16, Stream


def build(N: int = 6):
    @hwgen.region
    def double_put(A: int16[N], C: int16[N], D: int16[N]):
        pipe = Stream[int16, 2]
        alternate = Stream[int16, 2]

        @hwgen.task
        def producer():
            for j in range(N):
                if j % 2 == 0:
                    pipe.put(A[j])
                    pipe.put(A[j + 1])
                if j % 2 == 0:
                    alternate.put(A[j])
                else:
                    alternate.put(A[j] ^ 1)

        @hwgen.task
        def consumer():
            for j in range(N):
                C[j] = pipe.get()
                D[j] = alternate.get()

    return double_put


def reference(A):
    odd = A.copy()
    odd[1::2] ^= 1
    return {"C": A, "D": odd}
