"""Matrix-vector product y = A @ x computed cooperatively: P workers each take a slice of the
columns (A and x are sharded along K), compute partial dot products for every row, and a
reducer task adds the P partial sums of each row as they arrive on P FIFOs.
"""
import hwgen
from hwgen import R, S, Stream, int8, int32

TEST_SIZES = [{"P": 2, "M": 4, "K": 8}, {"P": 3, "M": 5, "K": 9}]


def build(P: int = 4, M: int = 16, K: int = 64):
    KP = K // P

    @hwgen.region
    def gemv_cooperative(A: int8[M, K] @ [R, S(0)], x: int8[K] @ [S(0)], y: int32[M]):
        partial = Stream[int32, 4][P]      # partial[p]: worker p's partial sums, one per row

        @hwgen.task(mapping=[P])
        def worker():
            p = hwgen.get_pid()
            for i in range(M):
                acc: int32 = 0
                for k in range(KP):
                    acc += A[i, p * KP + k] * x[p * KP + k]
                partial[p].put(acc)

        @hwgen.task
        def reducer():
            for i in range(M):
                total: int32 = 0
                with hwgen.meta_for(P) as p:
                    total += partial[p].get()
                y[i] = total

    return gemv_cooperative


def reference(A, x):
    return {"y": A.astype("int64") @ x.astype("int64")}
