import hwgen
from hwgen import S, R, int8, int32


def build(M: int = 5, K: int = 4):
    @hwgen.region
    def not_divisible(A: int8[M, K] @ [S(0), R],  # LINE
                      C: int32[2, K] @ [S(0), R]):
        @hwgen.task(mapping=[2])
        def t():
            i = hwgen.get_pid()
            for k in range(K):
                C[i, k] = A[i, k]

    return not_divisible
