import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def get_under_runtime_if(A: int8[N], B: int32[N]):
        s = Stream[int8, 2]

        @hwgen.task
        def producer():
            for i in range(N):
                s.put(A[i])

        @hwgen.task
        def consumer():
            for i in range(N):
                x: int32 = 0
                y: int32 = x + i        # data: its value is known only at run time
                if y > 1:
                    x = s.get()  # LINE
                B[i] = x

    return get_under_runtime_if
