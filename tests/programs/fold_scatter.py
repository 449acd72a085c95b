import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def fold_scatter(A: int8[N], B: int32[N]):
        s = Stream[int8, 2][N]

        @hwgen.task(mapping=[N])
        def prod():
            i = hwgen.get_pid()
            s[i].put(A[i])  # LINE

        @hwgen.task(mapping=[N])
        def cons():
            i = hwgen.get_pid()
            B[i] = s[i].get()

    return fold_scatter
