"""How a tensor's layout splits it into banks, and where each element lives.

A dimension sharded ``S(axis)`` over a grid with ``P`` positions on ``axis`` becomes ``P`` shards
of ``shape / P`` elements; a replicated dimension is one shard. Banks are numbered row-major over
the shard indices; an element's address inside its bank is row-major over the shard extents.
"""
import math
from dataclasses import dataclass

from .graph import (ArrayRead, ArrayWrite, BinOp, Const, LoopIndex, Neg, Read, Segment, Tensor,
                    Write, coexist, stmt_exprs, trips_under)
from .interval import arith, negate
from .types import Sharded, TensorType


@dataclass(frozen=True)
class Banking:
    shards: tuple       # shards per dimension
    extent: tuple       # elements per shard, per dimension
    cyclic: tuple = ()  # per dimension: index i in shard i % shards (else i // extent)

    def is_cyclic(self, d):
        return d < len(self.cyclic) and self.cyclic[d]

    @property
    def banks(self):
        return math.prod(self.shards)

    @property
    def depth(self):
        return math.prod(self.extent)

    def bank(self, index):
        b = 0
        for d, (i, s, e) in enumerate(zip(index, self.shards, self.extent)):
            b = b * s + (i % s if self.is_cyclic(d) else i // e)
        return b

    def address(self, index):
        a = 0
        for d, (i, s, e) in enumerate(zip(index, self.shards, self.extent)):
            a = a * e + (i // s if self.is_cyclic(d) else i % e)
        return a

    def strides(self):
        """Address stride of each dimension inside a bank."""
        strides, acc = [], 1
        for e in reversed(self.extent):
            strides.append(acc)
            acc *= e
        return tuple(reversed(strides))


# A local array of at most this many elements is a set of registers (read through a mux); a
# larger one is a memory (one read port per read, one write port, one more pipeline level),
# unless one loop iteration writes it twice or reads it after a write (a declaration's value,
# a whole array got from a stream): then registers too, up to ``WIDE_REGISTER_LIMIT`` elements.
REGISTER_ARRAY_LIMIT = 16
WIDE_REGISTER_LIMIT = 256


def memory_arrays(inst):
    """The local arrays of task instance ``inst`` kept in memories (``REGISTER_ARRAY_LIMIT``)."""
    wide = set()
    for seg in inst.segments:
        writes = {}                 # array -> the statements writing it so far
        for stmt in seg.body:
            after = {a for a, ws in writes.items()
                     if any(coexist(w.pred, stmt.pred, seg.trips) for w in ws)}
            wide |= {e.array for e in stmt_exprs(stmt)
                     if isinstance(e, ArrayRead) and e.array in after}
            if isinstance(stmt, ArrayWrite):
                wide |= {stmt.array} & after
                writes.setdefault(stmt.array, []).append(stmt)
    return {a for a, t in inst.arrays.items() if math.prod(t.shape) > REGISTER_ARRAY_LIMIT and
            (a not in wide or math.prod(t.shape) > WIDE_REGISTER_LIMIT)}


def banking(tensor, grid):
    """The ``Banking`` of ``tensor`` when accessed by tasks on ``grid``."""
    layout = tensor.type.layout or tuple(None for _ in tensor.shape)
    shards = tuple(grid[l.axis] if isinstance(l, Sharded) else 1 for l in layout)
    extent = tuple(n // s for n, s in zip(tensor.shape, shards))
    cyclic = tuple(getattr(l, "cyclic", False) for l in layout)
    return Banking(shards, extent, cyclic if any(cyclic) else ())


def index_bounds(expr, trips):
    """Smallest and largest value of an affine index expression over a loop nest, or None.
    ``trips[d]``: the iterations of the loop at depth ``d``, a count or a ``range``."""
    if isinstance(expr, Const):
        return expr.value, expr.value
    if isinstance(expr, LoopIndex):
        t = trips[expr.depth]
        return (t.start, t.stop - 1) if isinstance(t, range) else (0, t - 1)
    if isinstance(expr, Neg):
        return negate(index_bounds(expr.operand, trips))
    if isinstance(expr, BinOp):
        return arith(expr.op, index_bounds(expr.lhs, trips), index_bounds(expr.rhs, trips))
    return None


def access_bounds(expr, trips, size):
    """``index_bounds``, or the whole dimension of ``size`` for an index computed from
    run-time values."""
    return index_bounds(expr, trips) or (0, size - 1)


def affine(expr):
    """``expr`` as ``({loop depth: coefficient}, constant)`` when it is affine in the loop
    indices, else None."""
    if isinstance(expr, Const):
        return {}, expr.value
    if isinstance(expr, LoopIndex):
        return {expr.depth: 1}, 0
    if isinstance(expr, Neg):
        return _scaled(affine(expr.operand), -1)
    if not isinstance(expr, BinOp) or expr.op not in "+-*":
        return None
    a, b = affine(expr.lhs), affine(expr.rhs)
    if a is None or b is None:
        return None
    if expr.op == "*":
        return _scaled(b, a[1]) if not a[0] else _scaled(a, b[1]) if not b[0] else None
    sign = 1 if expr.op == "+" else -1
    coeffs = dict(a[0])
    for d, c in b[0].items():
        coeffs[d] = coeffs.get(d, 0) + sign * c
    return {d: c for d, c in coeffs.items() if c}, a[1] + sign * b[1]


def cyclic_split(expr, shards):
    """``(residue, offset)`` with ``expr == residue + shards * offset`` on every iteration,
    ``0 <= residue < shards`` and ``offset`` an expression of the loop indices: an index that
    stays in one shard of a cyclic layout (``Sharded(..., cyclic=True)``), and its address
    there. None when the loop coefficients are not all multiples of ``shards``."""
    form = affine(expr)
    if form is None or any(c % shards for c in form[0].values()):
        return None
    residue = form[1] % shards
    offset = Const((form[1] - residue) // shards)
    for d, c in sorted(form[0].items()):
        term = LoopIndex(d) if c == shards else BinOp("*", Const(c // shards), LoopIndex(d))
        offset = term if offset == Const(0) else BinOp("+", offset, term)
    return residue, offset


def _scaled(form, k):
    return None if form is None else ({d: c * k for d, c in form[0].items() if c * k}, form[1] * k)


def tensor_accesses(graph):
    """Every tensor access: (tensor name, instance, segment, index tuple, loc); the segment's
    trips are those the statement's loop indices range over (``ir.graph.trips_under``)."""
    for inst in graph.instances.values():
        for whole in inst.segments:
            for stmt in whole.body:
                seg = Segment(trips_under(stmt.pred, whole.trips), whole.body, whole.loc)
                if isinstance(stmt, Write):
                    yield stmt.tensor, inst, seg, stmt.index, stmt.loc
                for e in stmt_exprs(stmt):
                    if isinstance(e, Read):
                        yield e.tensor, inst, seg, e.index, e.loc or stmt.loc


@dataclass
class TensorView:
    """A task's view of ``tensor``: with Allo's ``local_A: Ty[M, K] @ Ly`` each instance sees
    its own shard, indexed from 0; ``layout`` gives, per dimension, the grid axis it is split
    over (``Sharded``) or ``R``, on a task grid ``grid``."""
    tensor: Tensor
    layout: tuple
    grid: tuple

    def __getattr__(self, name):        # name, dtype, use(), ... are the tensor's
        return getattr(self.tensor, name)

    @property
    def shape(self):
        return tuple(n // self.grid[l.axis] if hasattr(l, "axis") else n
                     for n, l in zip(self.tensor.shape, self.layout))

    @property
    def type(self):
        return TensorType(self.tensor.dtype, self.shape)

    def offsets(self, pid):
        """Where instance ``pid``'s shard starts, per dimension."""
        return tuple(pid[l.axis] * n if hasattr(l, "axis") else 0
                     for n, l in zip(self.shape, self.layout))
