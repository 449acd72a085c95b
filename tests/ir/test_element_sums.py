"""ir.element_sums: which tensor updates become sums held in a local, and what they compute."""
import numpy as np

import hwgen
from hwgen import float32, int8, int32
from hwgen.ir import floats
from hwgen.ir.graph import Assign, Write
from hwgen.ir.interp import run
from hwgen.ir.preds import Pred

M, K = 3, 4


def _body(region):
    (inst,) = region.graph().instances.values()
    return [s for seg in inst.segments for s in seg.body]


def test_a_sum_over_a_loop_that_does_not_index_the_element_is_held_in_a_local():
    @hwgen.region
    def sums(A: int8[M, K], C: int32[M]):
        @hwgen.task
        def t():
            for i in range(M):
                for k in range(K):
                    C[i] -= A[i, k]

    read, add, write = _body(sums)
    assert isinstance(read, Assign) and read.pred == (Pred("first", 1),)
    assert isinstance(add, Assign) and add.var == read.var and add.pred == ()
    assert isinstance(write, Write) and write.pred == (Pred("last", 1),)
    A = np.arange(M * K).reshape(M, K) - 5
    C = np.array([7, -2, 2 ** 31 - 1])
    got = run(sums.graph(), {"A": A, "C": C})["C"]
    assert np.array_equal(got, (C - A.sum(1)).astype(np.int32))      # wraps as int32 does


def test_updates_that_are_not_such_sums_stay_as_written():
    @hwgen.region
    def kept(A: int8[M, K], C: int32[M, K], D: int32[M]):
        @hwgen.task
        def t():
            for i in range(M):
                for k in range(K):
                    C[i, k] += A[i, k]          # the innermost loop indexes the element
                    D[i] = A[i, k] - D[i]       # not a sum
            for i in range(M):
                D[i] += 1                       # no loop left below the index

    assert not any(isinstance(s, Assign) for s in _body(kept))


def test_another_access_of_the_tensor_keeps_the_update_as_written():
    @hwgen.region
    def touched(A: int8[M, K], C: int32[M]):
        @hwgen.task
        def t():
            for i in range(M):
                for k in range(K):
                    C[i] = A[i, k] + C[i]
                    C[0] = 1

    assert not any(isinstance(s, Assign) for s in _body(touched))


def test_a_float_element_is_a_sum_of_partial_sums():
    @hwgen.region
    def dot(A: float32[1, 9], y: float32[1]):
        @hwgen.task
        def t():
            for i in range(1):
                for k in range(9):
                    y[i] += A[i, k]

    terms = np.float32([1e8, 1, -1e8, 1, 1, 1, 1, 1, 1])
    got = run(dot.graph(), {"A": terms[None], "y": np.float32([0.5])})["y"]
    lanes = [np.float32(0.5)] + [np.float32(-0.0)] * 5
    for k, term in enumerate(terms):
        lanes[k % 6] = lanes[k % 6] + term
    want = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + (lanes[4] + lanes[5])
    assert want != np.float32(0.5) + terms.sum(dtype=np.float32)      # the order shows
    assert floats.from_bits(got, float32)[0] == want
