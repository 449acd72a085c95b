import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def get_before_put(A: int8[N], B: int32[N]):
        s = Stream[int8, 2]

        @hwgen.task
        def t():
            for i in range(N):
                x: int8 = s.get()  # LINE
                s.put(A[i])
                B[i] = x

    return get_before_put
