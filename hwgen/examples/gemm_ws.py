"""Weight-stationary GEMM: C = A @ B on a K x N grid.

PE (k, j) holds B[k, j] for the whole problem. Rows of A enter on the left edge (PE (k, 0)
reads A[i, k]) and move right; partial sums of C[i, j] move down the column, each PE adding
A[i, k] * B[k, j]; the bottom row writes C. One loop over the M rows of A.
"""
import hwgen
from hwgen import R, S, Stream, int8, int32

TEST_SIZES = [{"M": 8, "N": 4, "K": 4}, {"M": 7, "N": 3, "K": 5}]


def build(M: int = 16, N: int = 4, K: int = 4):
    @hwgen.region
    def gemm_ws(A: int8[M, K] @ [R, S(0)], B: int8[K, N] @ [S(0), S(1)],
                C: int32[M, N] @ [R, S(1)]):
        a_in = Stream[int8, 2][K, N]       # a_in[k, j]: A values entering PE (k, j) from the left
        psum = Stream[int32, 2][K, N]      # psum[k, j]: partial sums entering PE (k, j) from above

        @hwgen.task(mapping=[K, N])
        def pe():
            k, j = hwgen.get_pid()
            w: int8 = B[k, j]              # the stationary weight
            for i in range(M):
                if j == 0:
                    a: int8 = A[i, k]
                else:
                    a: int8 = a_in[k, j].get()
                if j < N - 1:
                    a_in[k, j + 1].put(a)
                if k == 0:
                    s: int32 = a * w
                else:
                    s: int32 = psum[k, j].get() + a * w
                if k < K - 1:
                    psum[k + 1, j].put(s)
                else:
                    C[i, j] = s

    return gemm_ws


def reference(A, B):
    return {"C": A.astype("int64") @ B.astype("int64")}
