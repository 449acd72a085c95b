"""Variables updated from themselves through operations that take several clocks
(``schedule.recurrences``): an integer product, a float product, and a float running sum
read on every iteration and put on a stream (Allo's systolic convolution); each task takes
as many clocks per iteration as its update needs."""
import numpy as np

import hwgen
from hwgen import Stream, float32, int8, int32
from hwgen.ir import floats


def build(N: int = 5):
    @hwgen.region
    def recurrences(A: int8[N], X: float32[N], P: int32[1], F: float32[1], S: float32[N],
                    T: float32[N]):
        sums = Stream[float32, 2]

        @hwgen.task
        def products():
            p: int32 = 1
            f: float32 = 1.0
            for i in range(N):
                p = p * A[i]
                f = f * X[i]
            P[0] = p
            F[0] = f

        @hwgen.task
        def running():
            acc: float32 = 0
            for i in range(N):
                acc += X[i]
                S[i] = acc
                sums.put(acc)

        @hwgen.task
        def doubled():
            for i in range(N):
                T[i] = sums.get() * 2.0

    return recurrences


def reference(A, X):
    """Floats as bit patterns, as the interpreter and the hardware hold them."""
    x = floats.from_bits(X, float32)
    p, f, acc, s = np.int64(1), np.float32(1.0), np.float32(0.0), []
    with np.errstate(all="ignore"):
        for i in range(len(A)):
            p = np.int64(np.int32(np.int64(p) * np.int64(A[i]) & 0xFFFFFFFF))
            f = np.float32(f * x[i])
            acc = np.float32(acc + x[i])
            s.append(acc)
        s = np.array(s, np.float32)
        t = s * np.float32(2.0)
    return {"P": np.array([p]), "F": floats.to_bits(np.array([f]), float32),
            "S": floats.to_bits(s, float32), "T": floats.to_bits(t, float32)}
