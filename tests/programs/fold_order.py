import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 2):
    @hwgen.region
    def fold_order(A: int8[N, N], B: int32[N, N]):
        s = Stream[int8, 2][N, N]  # LINE

        @hwgen.task(mapping=[N, N])
        def prod():
            i, j = hwgen.get_pid()
            s[i, j].put(A[i, j])

        @hwgen.task(mapping=[N, N])
        def cons():
            i, j = hwgen.get_pid()
            B[j, i] = s[j, i].get()       # run in (i, j) order, gets s transposed

    return fold_order
