"""Output-stationary systolic GEMM of mixed precision: int8 activations A times int4 weights B,
int32 out. In logic (``--dsps 0``) a product is a row per bit of the int4 weight: two carry
chains and one adder (``rtl.multiply``).

Task instance (i, j) of an M x N grid owns C[i, j]. A enters the array from the left edge
(row i of A is read by PE (i, 0)) and moves right; B enters from the top and moves down.
"""
import hwgen
from hwgen import R, S, Stream, int4, int8, int32

TEST_SIZES = [{"M": 4, "N": 4, "K": 8}, {"M": 3, "N": 5, "K": 7}]


def build(M: int = 8, N: int = 8, K: int = 64):
    @hwgen.region
    def gemm_mixed(A: int8[M, K] @ [S(0), R], B: int4[K, N] @ [R, S(1)],
                   C: int32[M, N] @ [S(0), S(1)]):
        a_in = Stream[int8, 2][M, N]    # a_in[i, j]: A values entering PE (i, j) from the left
        b_in = Stream[int4, 2][M, N]    # b_in[i, j]: B values entering PE (i, j) from above

        @hwgen.task(mapping=[M, N])
        def pe():
            i, j = hwgen.get_pid()
            c: int32 = 0
            for k in range(K):
                if j == 0:
                    a: int8 = A[i, k]
                else:
                    a: int8 = a_in[i, j].get()
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

    return gemm_mixed


def reference(A, B):
    """The numpy golden model, for comparison with the interpreter."""
    return {"C": A.astype("int64") @ B.astype("int64")}
