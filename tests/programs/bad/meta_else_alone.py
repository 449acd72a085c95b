import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def meta_else_alone(A: int8[N], B: int32[N]):
        @hwgen.task(mapping=[2])
        def t():
            p = hwgen.get_pid()
            for i in range(N // 2):
                x: int32 = A[p * 2 + i]
                with hwgen.meta_else():  # LINE
                    x = 0
                B[p * 2 + i] = x

    return meta_else_alone
