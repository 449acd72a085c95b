"""Allo's addressing of a kernel's tensor parameters: a memref is one row-major block, so an
index past the end of a dimension reaches into the next rows (``X[r, k]`` with ``k`` beyond
the last column reads row ``r + 1``). hwgen's own tasks never do this (it is an error there);
Allo kernels (``@df.kernel(args=...)``) whose out-of-range index stays inside the whole tensor
get the element Allo reads, with a warning at the line."""
import math

from ..ir.graph import BinOp, Const
from ..ir.layout import index_bounds


def row_major(index, shape, trips):
    """``index`` (out of range in some dimension) rewritten to the element at the same
    row-major address, or None when that address can leave the tensor."""
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    linear = Const(0)
    for i, stride in zip(index, strides):
        linear = BinOp("+", linear, BinOp("*", i, Const(stride)))
    bounds = index_bounds(linear, trips)
    if bounds is None or bounds[0] < 0 or bounds[1] >= math.prod(shape):
        return None
    return tuple(BinOp("%", BinOp("//", linear, Const(stride)), Const(n)) if d else
                 BinOp("//", linear, Const(stride))
                 for d, (stride, n) in enumerate(zip(strides, shape)))
