import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 6):
    @hwgen.region
    def bundle_axis(A: int8[N], B: int32[N]):
        s = Stream[int8, 2][N]

        @hwgen.task(mapping=[N])
        def prod():
            i = hwgen.get_pid()
            s[i].put(A[i])

        @hwgen.task(mapping=[N])
        def cons():
            i = hwgen.get_pid()
            B[i] = s[i].get()

        hwgen.bundle(prod, axis=1, factor=2)  # LINE

    return bundle_axis
