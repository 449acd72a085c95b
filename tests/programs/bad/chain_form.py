import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def chain_form(A: int8[N], B: int32[N], C: int32[N]):
        s = Stream[int8, 2]

        @hwgen.task
        def first():
            for i in range(N):
                s.put(A[i])

        @hwgen.task
        def second():
            for i in range(N):
                B[i] = s.get()

        @hwgen.task
        def third():
            for i in range(N):
                C[i] = A[i] * 2

        hwgen.chain(first)  # LINE

    return chain_form
