"""Output-stationary systolic GEMM with binary weights: C[M, N] = A[M, K] @ W[K, N], A int8,
W of +1 and -1 held as one bit each (B[k, n] = 1 for +1, 0 for -1), int32 out. A PE adds or
subtracts its activation: no multiplier, an adder-subtractor and its accumulator in logic.

Task instance (i, j) of an M x N grid owns C[i, j]. A enters the array from the left edge and
moves right; the weight bits enter from the top and move down.
"""
import hwgen
from hwgen import R, S, Stream, int8, int32, uint1

TEST_SIZES = [{"M": 4, "N": 4, "K": 8}, {"M": 3, "N": 5, "K": 7}]


def build(M: int = 8, N: int = 8, K: int = 64):
    @hwgen.region
    def gemm_os_binary(A: int8[M, K] @ [S(0), R], B: uint1[K, N] @ [R, S(1)],
                       C: int32[M, N] @ [S(0), S(1)]):
        a_in = Stream[int8, 2][M, N]    # a_in[i, j]: A values entering PE (i, j) from the left
        b_in = Stream[uint1, 2][M, N]   # b_in[i, j]: weight bits entering PE (i, j) from above

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
                    b: uint1 = B[k, j]
                else:
                    b: uint1 = b_in[i, j].get()
                if j < N - 1:
                    a_in[i, j + 1].put(a)
                if i < M - 1:
                    b_in[i + 1, j].put(b)
                c += a if b else -a         # a * (+1 or -1)
            C[i, j] = c

    return gemm_os_binary


def reference(A, B):
    """The numpy golden model: the weights as +1 and -1."""
    return {"C": A.astype("int64") @ (2 * B.astype("int64") - 1)}
