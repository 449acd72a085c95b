"""A design point -> the task graph hwgen's hardware library builds (one ``pe`` task per PE).

Each PE runs the point's time loops. Per input tensor it either reads its bank (unicast, or
multicast: PEs that read the same address at the same step share one read port, a broadcast
bus) or gets the value from its neighbour (systolic: the array edge reads, everyone forwards);
a tensor that does not change along ``t1`` is read once per ``t1`` run and held (stationary).
The output is accumulated in the PE (stationary), or summed along a partial-sum chain whose last
PE accumulates over the remaining reduction time loops and writes it.
"""
import itertools

import numpy as np

from ..check import check
from ..errors import HwgenError
from ..ir.graph import (Assign, BinOp, Channel, Const, Get, Graph, Instance, LoopIndex, Pred, Put,
                        Read, Segment, StreamOp, Tensor, VarRef, Write)
from ..ir.types import R, S, StreamType, TensorType, int8, int32

IN_TYPE, OUT_TYPE = int8, int32


def _add(a, b):
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(a.value + b.value)
    if isinstance(a, Const) and a.value == 0:
        return b
    if isinstance(b, Const) and b.value == 0:
        return a
    return BinOp("+", a, b)


def _scale(c, e):
    if isinstance(e, Const):
        return Const(c * e.value)
    return e if c == 1 else BinOp("*", Const(c), e)


def layout(design, access):
    """``S(axis)`` for a dimension indexed by exactly one spatial loop, else ``R``."""
    entries = []
    for row, offset in zip(access.matrix, access.offset):
        used = [(l, c) for l, c in zip(design.expr.loops, row) if c]
        if len(used) == 1 and used[0][1] == 1 and offset == 0 and used[0][0] in design.space:
            entries.append(S(design.space.index(used[0][0])))
        else:
            entries.append(R)
    return tuple(entries)


class _PE:
    """The statements of PE ``pos``."""

    def __init__(self, design, pos):
        self.d, self.pos = design, pos
        self.name = "pe[" + ",".join(map(str, pos)) + "]"
        self.depth = {p.loop: k for k, p in enumerate(design.nest)}
        self.body, self.types = [], {}      # filled by build()

    def loop(self, loop):
        """The value of ``loop`` at this PE, as an IR expression."""
        d = self.d
        if loop in d.space:
            axis = d.space.index(loop)
            base = Const(self.pos[axis] * d.block(loop))
            return _add(base, LoopIndex(self.depth[loop])) if loop in self.depth else base
        return LoopIndex(self.depth[loop])

    def index(self, access):
        index = []
        for row, offset in zip(access.matrix, access.offset):
            e = Const(offset)
            for loop, c in zip(self.d.expr.loops, row):
                if c:
                    e = _add(e, _scale(c, self.loop(loop)))
            index.append(e)
        return tuple(index)

    def neighbour(self, axis, step):
        pos = list(self.pos)
        pos[axis] += step
        if not 0 <= pos[axis] < self.d.pes(axis):
            return None
        return tuple(pos)

    def build(self, link):
        """This PE's loop body and variable types: read or receive the inputs, multiply,
        then pass the product down the partial-sum chain or accumulate and write it."""
        values = [self.input(a, link) for a in self.d.expr.inputs]
        product = values[0]
        for v in values[1:]:
            product = BinOp("*", product, v)
        self.types["prod"] = OUT_TYPE
        self.body.append(Assign("prod", product))
        term = self.chain(VarRef("prod"), link)
        if term is not None:
            self.write(term)
        return self.body, self.types

    def input(self, a, link):
        """Bring input access ``a`` into ``v_<tensor>``: got from the upstream neighbour if it
        flows and this PE is not at the edge, else read from its bank (once per inner run if
        it is stationary); forwarded downstream if there is a neighbour there."""
        d, body = self.d, self.body
        var = f"v_{a.tensor}"
        self.types[var] = IN_TYPE
        axis = d.flow(a)
        if axis is not None and self.pos[axis] > 0:
            body.append(Assign(var, Get(link(a.tensor, axis, self, IN_TYPE, StreamOp.GET))))
        else:
            inner = Pred("first", len(d.nest) - 1)
            pred = (inner,) if d.lacks(a, d.inner) else ()
            body.append(Assign(var, Read(a.tensor, self.index(a)), pred))
        if axis is not None and self.neighbour(axis, +1) is not None:
            body.append(Put(link(a.tensor, axis, self, IN_TYPE, StreamOp.PUT), VarRef(var)))
        return VarRef(var)

    def chain(self, term, link):
        """Add the partial sum from upstream along the chain axis (if any) and pass it on;
        the term this PE still has to write, or None if it passed it downstream."""
        ax, out = self.d.chain, self.d.expr.output
        if ax is None:
            return term
        if self.pos[ax] > 0:
            self.types["psum"] = OUT_TYPE
            self.body.append(Assign("psum", _add(Get(link(out.tensor, ax, self, OUT_TYPE,
                                                          StreamOp.GET)), term)))
            term = VarRef("psum")
        if self.neighbour(ax, +1) is not None:
            self.body.append(Put(link(out.tensor, ax, self, OUT_TYPE, StreamOp.PUT), term))
            return None
        return term

    def write(self, term):
        """Write ``term`` to the output: directly, or accumulated over the reduction time
        loops and written on their last iteration."""
        out, red = self.d.expr.output, self.d.reduction_depth
        if red is None:
            self.body.append(Write(out.tensor, self.index(out), term))
            return
        self.types["acc"] = OUT_TYPE
        self.body.append(Assign("acc", Const(0), (Pred("first", red),)))
        self.body.append(Assign("acc", BinOp("+", VarRef("acc"), term)))
        self.body.append(Write(out.tensor, self.index(out), VarRef("acc"),
                               (Pred("last", red),)))


def _channel(tensor, axis, pos):
    return f"{tensor}_{'xy'[axis]}[" + ",".join(map(str, pos)) + "]"


class _Links:
    """The streams between neighbouring PEs, created as the PEs ask for them."""

    def __init__(self):
        self.channels = {}

    def __call__(self, tensor, axis, pe, dtype, op):
        """The stream of ``tensor`` along ``axis`` into (``GET``) or out of (``PUT``) ``pe``."""
        src = pe.pos if op is StreamOp.PUT else pe.neighbour(axis, -1)
        dst = pe.neighbour(axis, +1) if op is StreamOp.PUT else pe.pos
        name = _channel(tensor, axis, dst)
        ch = self.channels.setdefault(name, Channel(name, StreamType(dtype, 2)))
        ch.producer, ch.consumer = (f"pe[{','.join(map(str, p))}]" for p in (src, dst))
        return name


def _check_generable(design):
    """Raise HwgenError if ``design`` has no task graph: unrealisable, or an array that does
    not divide the loops it runs."""
    if design.unrealisable:
        raise HwgenError(f"{design} cannot be generated: {design.unrealisable}")
    if not design.exact:
        raise HwgenError(f"{design}: the array must divide the loops it runs ("
                         + ", ".join(f"{l}={design.sizes[l]} on {design.pes(a)} PEs"
                                     for a, l in enumerate(design.space)) + ")")


def design_tensors(design):
    """The graph's tensors: the inputs and the output, with their shapes and data layouts."""
    expr = design.expr
    shapes = expr.shapes(design.sizes)
    tensors = {}
    for a in expr.inputs:
        tensors[a.tensor] = Tensor(a.tensor, TensorType(IN_TYPE, shapes[a.tensor],
                                                        layout(design, a)), "in")
    out = expr.output
    tensors[out.tensor] = Tensor(out.tensor, TensorType(OUT_TYPE, shapes[out.tensor],
                                                        layout(design, out)), "out")
    return tensors


def generate(design, name="dse"):
    """The checked ``ir.Graph`` of ``design`` (HwgenError if it cannot be generated)."""
    return check(lower(design, name))


def lower(design, name="dse"):
    """The ``ir.Graph`` of ``design``, not yet checked."""
    _check_generable(design)
    tensors = design_tensors(design)
    grid = tuple(design.pes(a) for a in range(len(design.space)))
    trips = tuple(p.trip for p in design.nest)
    link, instances = _Links(), {}
    for pos in itertools.product(*(range(n) for n in grid)):
        pe = _PE(design, pos)
        body, types = pe.build(link)
        instances[pe.name] = Instance(pe.name, "pe", pos, grid, [Segment(trips, body)], types)
    return Graph(name, dict(design.sizes), tensors, link.channels, instances)


def reference(expr, sizes, inputs):
    """``expr`` evaluated with numpy on ``inputs`` (name -> array): the golden output."""
    loops = [np.arange(sizes[l]) for l in expr.loops]
    grid = np.meshgrid(*loops, indexing="ij")
    points = np.stack([g.ravel() for g in grid])

    def at(access):
        m = np.array(access.matrix, dtype=np.int64).reshape(len(access.matrix), -1)
        return tuple(m @ points + np.array(access.offset)[:, None])

    shape = expr.shapes(sizes)[expr.output.tensor]
    out = np.zeros(shape, dtype=np.int64)
    term = np.ones(points.shape[1], dtype=np.int64)
    for a in expr.inputs:
        term = term * np.asarray(inputs[a.tensor], dtype=np.int64)[at(a)]
    np.add.at(out, at(expr.output), term)
    return {expr.output.tensor: out}
