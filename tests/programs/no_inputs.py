"""A design without input tensors (Allo's constant writers): problems start on their own, the
first on the first clock edge out of reset, each next one as soon as an output slot is free;
``expected_cycles`` counts from that edge."""
import numpy as np

import hwgen
from hwgen import int32

TABLE = np.array([[3, 1, 4, 1, 5, 9, 2], [6, 5, 3, 5, 8, 9, 7]])


def build(N: int = 4):
    @hwgen.region
    def no_inputs(A: int32[2, N]):
        @hwgen.task(mapping=[2])
        def producer():
            p = hwgen.get_pid()
            row: int32[N] = TABLE[p, :N]
            for i in range(N):
                A[p, i] = row[i] * 3 + p

    return no_inputs


def reference():
    return {"A": TABLE[:, :4] * 3 + np.arange(2)[:, None]}
