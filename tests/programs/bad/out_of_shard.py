import hwgen
from hwgen import S, R, int8, int32


def build(M: int = 4, K: int = 4):
    @hwgen.region
    def out_of_shard(A: int8[M, K] @ [S(0), R], C: int32[M, K] @ [S(0), R]):
        @hwgen.task(mapping=[M])
        def t():
            i = hwgen.get_pid()
            for k in range(K):
                C[i, k] = A[(i + 1) % M, k]  # LINE

    return out_of_shard
