"""Output-stationary GEMM fed through daisy chains of packed wide streams: C = A @ B.

Instead of one memory port per edge PE, a loader reads a whole column of A (row of B) per step
and packs it into one ``UInt(8*M)`` word. The word travels down a chain of feeder tasks along
the array's left (top) edge; feeder i unpacks its lane ``word[8*i:8*i+8]`` into row i of the
array and forwards the word. Inside the array, values move right and down as in ``gemm_os``.
"""
import hwgen
from hwgen import S, Stream, UInt, int8, int32

TEST_SIZES = [{"M": 4, "N": 4, "K": 8}, {"M": 3, "N": 2, "K": 5}]


def build(M: int = 4, N: int = 4, K: int = 32):
    @hwgen.region
    def gemm_daisy_chain(A: int8[M, K], B: int8[K, N], C: int32[M, N] @ [S(0), S(1)]):
        a_chain = Stream[UInt(8 * M), 2][M]    # a_chain[i]: packed columns of A entering feeder i
        b_chain = Stream[UInt(8 * N), 2][N]    # b_chain[j]: packed rows of B entering feeder j
        a_in = Stream[int8, 2][M, N]           # a_in[i, j]: A values entering PE (i, j)
        b_in = Stream[int8, 2][M, N]           # b_in[i, j]: B values entering PE (i, j)

        @hwgen.task
        def load_a():
            for k in range(K):
                column: UInt(8 * M) = 0
                with hwgen.meta_for(M) as i:
                    column[8 * i:8 * i + 8] = A[i, k]
                a_chain[0].put(column)

        @hwgen.task
        def load_b():
            for k in range(K):
                row: UInt(8 * N) = 0
                with hwgen.meta_for(N) as j:
                    row[8 * j:8 * j + 8] = B[k, j]
                b_chain[0].put(row)

        @hwgen.task(mapping=[M])
        def feed_a():
            i = hwgen.get_pid()
            for k in range(K):
                column: UInt(8 * M) = a_chain[i].get()
                with hwgen.meta_if(i < M - 1):
                    a_chain[i + 1].put(column)
                a_in[i, 0].put(column[8 * i:8 * i + 8])

        @hwgen.task(mapping=[N])
        def feed_b():
            j = hwgen.get_pid()
            for k in range(K):
                row: UInt(8 * N) = b_chain[j].get()
                with hwgen.meta_if(j < N - 1):
                    b_chain[j + 1].put(row)
                b_in[0, j].put(row[8 * j:8 * j + 8])

        @hwgen.task(mapping=[M, N])
        def pe():
            i, j = hwgen.get_pid()
            c: int32 = 0
            for k in range(K):
                a: int8 = a_in[i, j].get()
                b: int8 = b_in[i, j].get()
                with hwgen.meta_if(j < N - 1):
                    a_in[i, j + 1].put(a)
                with hwgen.meta_if(i < M - 1):
                    b_in[i + 1, j].put(b)
                c += a * b
            C[i, j] = c

    return gemm_daisy_chain


def reference(A, B):
    return {"C": A.astype("int64") @ B.astype("int64")}
