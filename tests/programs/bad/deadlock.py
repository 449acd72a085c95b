import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def deadlock(A: int8[N], B: int32[N]):
        s = Stream[int8, 2]
        t = Stream[int8, 2]

        @hwgen.task
        def ping():
            for i in range(N):
                x: int8 = t.get()  # LINE
                s.put(x + A[i])

        @hwgen.task
        def pong():
            for i in range(N):
                y: int8 = s.get()
                t.put(y)
                B[i] = y

    return deadlock
