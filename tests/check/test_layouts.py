from hwgen.ir.layout import banking, index_bounds
from hwgen.ir.graph import BinOp, Const, LoopIndex
from hwgen.ir.types import R, S, int8
from hwgen.ir.graph import Tensor


def test_banking_splits_sharded_dimensions():
    t = Tensor("A", int8[4, 6] @ [S(0), R])
    b = banking(t, (2, 3))
    assert b.shards == (2, 1) and b.extent == (2, 6) and b.banks == 2 and b.depth == 12
    assert b.bank((3, 5)) == 1 and b.address((3, 5)) == 11


def test_index_bounds_of_affine_expressions():
    e = BinOp("+", BinOp("*", Const(2), LoopIndex(0)), Const(1))
    assert index_bounds(e, (4,)) == (1, 7)
    assert index_bounds(BinOp("-", Const(3), LoopIndex(0)), (4,)) == (0, 3)
