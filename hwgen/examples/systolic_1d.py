"""A 1-D systolic FIR filter: Y[n] = sum_t W[t] * X[n - t] (X is zero before its start).

Tap t holds its weight W[t] (stationary). Samples enter tap 0 and move one tap per step with a
one-step delay (each tap forwards the sample it held on the previous step), so tap t sees
X[n - t] at step n; partial sums move one tap per step without delay and leave the last tap
complete. Every tap runs the same loop in lockstep: both streams become registers.
"""
import numpy as np

import hwgen
from hwgen import S, Stream, int8, int32

TEST_SIZES = [{"T": 4, "N": 16}, {"T": 3, "N": 7}]


def build(T: int = 4, N: int = 32):
    @hwgen.region
    def systolic_1d(X: int8[N], W: int8[T] @ [S(0)], Y: int32[N]):
        samples = Stream[int8, 2][T]       # samples[t]: X values entering tap t
        sums = Stream[int32, 2][T]         # sums[t]: partial sums entering tap t

        @hwgen.task(mapping=[T])
        def tap():
            t = hwgen.get_pid()
            w: int8 = W[t]
            held: int8 = 0                 # the sample of the previous step
            for n in range(N):
                if t == 0:
                    x: int8 = X[n]
                else:
                    x: int8 = samples[t].get()
                if t < T - 1:
                    samples[t + 1].put(held)
                held = x
                if t == 0:
                    acc: int32 = w * x
                else:
                    acc: int32 = sums[t].get() + w * x
                if t < T - 1:
                    sums[t + 1].put(acc)
                else:
                    Y[n] = acc

    return systolic_1d


def reference(X, W):
    return {"Y": np.convolve(X.astype("int64"), W.astype("int64"))[:len(X)]}
