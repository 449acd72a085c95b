"""``while`` loops with ``continue`` and ``break`` on scalars: Collatz steps from X[0] + 1
(odd steps skip the peak with ``continue``), stopped with ``break`` once a value passes
16 * X[1]; in hardware the loop runs its ``max_iterations``, its statements taking effect until
its condition first fails (``schedule.masked``)."""
import numpy as np

import hwgen
from hwgen import int32, uint8


def build(M: int = 150):
    @hwgen.region
    def while_scan(X: uint8[2], Y: int32[3]):
        @hwgen.task
        def scanner():
            n: int32 = X[0] + 1
            limit: int32 = X[1] * 16
            steps: int32 = 0
            peak: int32 = 0
            while hwgen.bounded(n != 1, max_iterations=M):
                steps += 1
                if n % 2 == 1:
                    n = 3 * n + 1
                    if n > limit:
                        break
                    continue
                n = n // 2
                peak = max(peak, n)
            Y[0] = steps
            Y[1] = peak
            Y[2] = n

    return while_scan


def reference(X, M=150):
    n, limit, steps, peak = int(X[0]) + 1, int(X[1]) * 16, 0, 0
    while n != 1 and steps < M:
        steps += 1
        if n % 2 == 1:
            n = 3 * n + 1
            if n > limit:
                break
            continue
        n //= 2
        peak = max(peak, n)
    return {"Y": np.array([steps, peak, n])}
