"""A merge of two streams: two producers pass on the elements of A and of B above zero, as many
as the data decide, and close their streams; the merger puts the smaller of the two heads first
(two sorted streams give one sorted stream) until both are closed; a writer stores the merged
values in order (a run-time index) and their count."""
import numpy as np

import hwgen
from hwgen import Stream, int8, int32, uint1

TEST_SIZES = [{"N": 8}, {"N": 33}]


def build(N: int = 8):
    @hwgen.region
    def merge(A: int8[N], B: int8[N], C: int8[2 * N], COUNT: int32[1]):
        a = Stream[int8, 2, N]
        b = Stream[int8, 2, N]
        c = Stream[int8, 2, 2 * N]

        @hwgen.task
        def left():
            for i in range(N):
                x: int8 = A[i]
                if x > 0:
                    a.put(x)
            a.close()

        @hwgen.task
        def right():
            for i in range(N):
                y: int8 = B[i]
                if y > 0:
                    b.put(y)
            b.close()

        @hwgen.task
        def merger():
            more_a: uint1 = a.more()
            x: int8 = 0
            if more_a:
                x = a.get()
            more_b: uint1 = b.more()
            y: int8 = 0
            if more_b:
                y = b.get()
            while hwgen.bounded(more_a | more_b, max_iterations=2 * N):
                if more_a & ((more_b == 0) | (x <= y)):
                    c.put(x)
                    more_a = a.more()
                    if more_a:
                        x = a.get()
                else:
                    c.put(y)
                    more_b = b.more()
                    if more_b:
                        y = b.get()
            c.close()

        @hwgen.task
        def writer():
            n: int32 = 0
            for v in c:
                C[n] = v
                n += 1
            COUNT[0] = n

    return merge


def reference(A, B, N=8):
    a, b = list(A[A > 0]), list(B[B > 0])
    out = []
    while a or b:
        out.append((a if a and (not b or a[0] <= b[0]) else b).pop(0))
    return {"C": np.array(out + [0] * (2 * N - len(out))), "COUNT": np.array([len(out)])}
