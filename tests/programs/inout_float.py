"""An in-out float32 tensor: ``y[i] += A[i, k] * x[k]`` (a GEMV into ``y``). Each ``y[i]`` is a
sum of partial sums held in a local across ``k`` (``ir.element_sums``, ``ir.accumulate``):
numpy adds in another order, so ``hwgen check`` compares with a tolerance."""
import hwgen
from hwgen import float32


def build(M: int = 3, K: int = 7):
    @hwgen.region
    def inout_float(A: float32[M, K], x: float32[K], y: float32[M]):
        @hwgen.task
        def gemv():
            for i in range(M):
                for k in range(K):
                    y[i] += A[i, k] * x[k]

    return inout_float


def reference(A, x, y):
    return {"y": y + A @ x}
