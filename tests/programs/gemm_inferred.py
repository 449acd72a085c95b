"""gemm_os without layout annotations: hwgen infers them from the accesses."""
import hwgen
from hwgen import Stream, int8, int32


def build(M: int = 8, N: int = 8, K: int = 64):
    @hwgen.region
    def gemm_os(A: int8[M, K], B: int8[K, N],
                C: int32[M, N]):
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

    return gemm_os


def reference(A, B):
    """The numpy golden model, for comparison with the interpreter."""
    return {"C": A.astype("int64") @ B.astype("int64")}
