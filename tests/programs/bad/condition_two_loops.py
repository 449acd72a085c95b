import hwgen
from hwgen import Stream, int8, int32


def build(M: int = 2, N: int = 4):
    @hwgen.region
    def condition_two_loops(A: int8[M, N], B: int32[M, N]):
        s = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(M):
                for k in range(N):
                    if i == k:  # LINE
                        s.put(A[i, k])

        @hwgen.task
        def consumer():
            for i in range(M):
                for k in range(N):
                    B[i, k] = 0

    return condition_two_loops
