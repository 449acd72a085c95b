"""Output-stationary systolic GEMM at four bits: C[M, N] = A[M, K] @ B[K, N], int4 in, int32
out. Built with ``--dsps 0`` (or past a DSP budget), each PE multiplies in logic: a 4 x 4-bit
product is two carry chains of six bits and one adder (``rtl.multiply``).

Task instance (i, j) of an M x N grid owns C[i, j]. A enters the array from the left edge
(row i of A is read by PE (i, 0)) and moves right; B enters from the top and moves down.
"""
import hwgen
from hwgen import R, S, Stream, int4, int32

TEST_SIZES = [{"M": 4, "N": 4, "K": 8}, {"M": 3, "N": 5, "K": 7}]


def build(M: int = 8, N: int = 8, K: int = 64):
    @hwgen.region
    def gemm_os_int4(A: int4[M, K] @ [S(0), R], B: int4[K, N] @ [R, S(1)],
                C: int32[M, N] @ [S(0), S(1)]):
        a_in = Stream[int4, 2][M, N]    # a_in[i, j]: A values entering PE (i, j) from the left
        b_in = Stream[int4, 2][M, N]    # b_in[i, j]: B values entering PE (i, j) from above

        @hwgen.task(mapping=[M, N])
        def pe():
            i, j = hwgen.get_pid()
            c: int32 = 0
            for k in range(K):
                if j == 0:
                    a: int4 = A[i, k]
                else:
                    a: int4 = a_in[i, j].get()
                if i == 0:
                    b: int4 = B[k, j]
                else:
                    b: int4 = b_in[i, j].get()
                if j < N - 1:
                    a_in[i, j + 1].put(a)
                if i < M - 1:
                    b_in[i + 1, j].put(b)
                c += a * b
            C[i, j] = c

    return gemm_os_int4


def reference(A, B):
    """The numpy golden model, for comparison with the interpreter."""
    return {"C": A.astype("int64") @ B.astype("int64")}
