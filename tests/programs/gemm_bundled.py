"""``gemm_os`` with its grid folded by hand: ``hwgen.bundle`` in the region, two grid positions
per PE along each axis (the same fold as ``ARRAY=4x4`` on an 8 x 8 grid)."""
import hwgen
from hwgen import R, S, Stream, int8, int32


def build(M: int = 8, N: int = 8, K: int = 8):
    @hwgen.region
    def gemm_os(A: int8[M, K] @ [S(0), R], B: int8[K, N] @ [R, S(1)],
                C: int32[M, N] @ [S(0), S(1)]):
        a_in = Stream[int8, 2][M, N]    # a_in[i, j]: A values entering PE (i, j) from the left
        b_in = Stream[int8, 2][M, N]    # b_in[i, j]: B values entering PE (i, j) from above

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
                    b: int8 = B[k, j]
                else:
                    b: int8 = b_in[i, j].get()
                if j < N - 1:
                    a_in[i, j + 1].put(a)
                if i < M - 1:
                    b_in[i + 1, j].put(b)
                c += a * b
            C[i, j] = c

        hwgen.bundle(pe, axis=0, factor=M // 4)
        hwgen.bundle(pe, axis=1, factor=N // 4)

    return gemm_os


def reference(A, B):
    return {"C": A.astype("int64") @ B.astype("int64")}
