"""Local array elements updated from themselves through operations that take several clocks
(``schedule.recurrences``): a float block got from a stream and updated in place
(``block[m] = block[m] * 2.0 + 1.0``, Allo's stream of blocks), float sums and an integer
product kept per element (``buf[j] += x * W[k, j]``, Allo's MLP). Where an element is read
again too soon after its update, the task takes more clocks per iteration."""
import numpy as np

import hwgen
from hwgen import Stream, float32, int16
from hwgen.ir import floats


def build(B: int = 2, M: int = 4, J: int = 3, K: int = 5):
    @hwgen.region
    def array_recurrence(A: float32[B * M], X: float32[K], W: float32[K, J], P: int16[K, J],
                         C: float32[B * M], Y: float32[J], Q: int16[J]):
        pipe = Stream[float32[M], 2]

        @hwgen.task
        def producer():
            for i in range(B):
                block: float32[M] = 0
                for m in range(M):
                    block[m] = A[i * M + m]
                pipe.put(block)

        @hwgen.task
        def consumer():
            for i in range(B):
                block: float32[M] = pipe.get()
                for m in range(M):
                    block[m] = block[m] * 2.0 + 1.0
                for m in range(M):
                    C[i * M + m] = block[m]

        @hwgen.task
        def gemv():
            buf: float32[J]
            prod: int16[J]
            for j in range(J):
                buf[j] = 0
                prod[j] = 1
            for k in range(K):
                x: float32 = X[k]
                for j in range(J):
                    buf[j] += x * W[k, j]
                    prod[j] = prod[j] * P[k, j]
            for j in range(J):
                Y[j] = buf[j]
                Q[j] = prod[j]

    return array_recurrence


def reference(A, X, W, P):
    """Floats as bit patterns, as the interpreter and the hardware hold them."""
    a, x, w = (floats.from_bits(v, float32) for v in (A, X, W))
    buf = np.zeros(W.shape[1], np.float32)
    prod = np.ones(W.shape[1], np.int16)
    with np.errstate(all="ignore"):
        c = a * np.float32(2.0) + np.float32(1.0)
        for k in range(len(x)):
            buf = buf + x[k] * w[k]
            prod = (prod.astype(np.int64) * P[k]).astype(np.int16)
    return {"C": floats.to_bits(c, float32), "Y": floats.to_bits(buf, float32), "Q": prod}
