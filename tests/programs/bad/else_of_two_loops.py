import hwgen
from hwgen import Stream, int8, int32


def build(M: int = 2, N: int = 4):
    @hwgen.region
    def else_of_two_loops(A: int8[M, N], B: int32[M, N]):
        s = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(M):
                for k in range(N):
                    s.put(A[i, k])

        @hwgen.task
        def consumer():
            for i in range(M):
                for k in range(N):
                    x: int8 = s.get()
                    if i == 0 and k > 0:  # LINE
                        B[i, k] = x
                    else:
                        B[i, k] = 0

    return else_of_two_loops
