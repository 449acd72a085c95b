"""ir.accumulate: which float updates accumulate, and the order their terms are added in."""
import numpy as np

import hwgen
from hwgen import float32, int32
from hwgen.check import check
from hwgen.ir import accumulate, floats
from hwgen.ir.graph import Assign, Const, FloatOp, VarRef
from hwgen.ir.interp import run

C, X = VarRef("c"), VarRef("x")
TYPES = {"c": float32, "x": float32, "n": int32}


def _assign(value, var="c"):
    return Assign(var, value)


def test_sums_are_updates_and_nothing_else_is():
    plus = accumulate.update_of(_assign(FloatOp("+", C, X, float32)), TYPES)
    assert plus.term == X
    assert accumulate.update_of(_assign(FloatOp("+", X, C, float32)), TYPES).term == X
    minus = accumulate.update_of(_assign(FloatOp("-", C, X, float32)), TYPES)
    assert minus.term == FloatOp("neg", X, None, float32)
    for value in (FloatOp("-", X, C, float32), FloatOp("*", C, X, float32),
                  FloatOp("+", C, FloatOp("*", C, X, float32), float32), Const(0)):
        assert accumulate.update_of(_assign(value), TYPES) is None
    assert accumulate.update_of(_assign(FloatOp("+", VarRef("n"), X, float32), "n"),
                                TYPES) is None


def test_partial_sums_are_added_pairwise_in_order():
    def f(v):
        return floats.encode(v, float32)
    big, one = f(2.0 ** 30), f(1.0)
    sums = accumulate.start(f(0.0), float32)
    for q, term in enumerate([big, one, floats.negate(big, float32), one]):
        accumulate.add(sums, q, term, float32)
    b = np.float32(2.0 ** 30)
    lanes = [np.float32(0) + b, np.float32(-0.0) + 1, np.float32(-0.0) - b, np.float32(-0.0) + 1]
    want = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])       # 0: 2^30 + 1 rounds to 2^30
    got = accumulate.total(sums[:accumulate.used(4)], float32)
    assert floats.decode(got, float32) == want == 0.0
    sums = accumulate.start(f(0.0), float32)
    for q, term in enumerate([big, floats.negate(big, float32), one, one]):
        accumulate.add(sums, q, term, float32)
    assert floats.decode(accumulate.total(sums[:4], float32), float32) == 2.0
    assert accumulate.used(0) == 1 and accumulate.used(3) == 3 and accumulate.used(60) == 6
    assert [accumulate.tree_depth(n) for n in (1, 2, 3, 4, 5, 6)] == [0, 1, 2, 2, 3, 3]


def test_the_interpreter_sums_in_lanes():
    @hwgen.region
    def dot(A: float32[9], y: float32[1]):
        @hwgen.task
        def t():
            acc: float32 = 0.5
            for k in range(9):
                acc -= A[k]
            y[0] = acc

    A = np.random.default_rng(1).standard_normal(9).astype(np.float32)
    got = run(check(dot.graph()), {"A": A})["y"]
    lanes = [np.float32(0.5)] + [np.float32(-0.0)] * 5
    for k in range(9):
        lanes[k % 6] = lanes[k % 6] - A[k]
    want = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + (lanes[4] + lanes[5])
    assert floats.from_bits(got, float32)[0] == want
