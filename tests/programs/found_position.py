"""A position found by a loop (as Allo's systolic_conv finds its rows): each task searches the
candidate rows for its own, then reads that row of ``A``. The local ``row`` comes from loop
counters and constants only, so where the read uses it, it is a compile-time constant
(``ir.static_locals``) and hardware builds the read."""
import hwgen
from hwgen import int16, int32


def build(P: int = 3, N: int = 4):
    @hwgen.region
    def found_position(A: int16[P, N], C: int16[P, N]):
        @hwgen.task(mapping=[P])
        def t():
            p = hwgen.get_pid()
            row: int32 = 0
            for r in range(P):
                if r == P - 1 - p:
                    row = r
            for i in range(N):
                C[p, i] = A[row, i] ^ 3

    return found_position


def reference(A):
    return {"C": A[::-1] ^ 3}
