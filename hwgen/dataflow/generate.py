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
                        Read, Segment, Tensor, VarRef, Write)
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


def _channel(tensor, axis, pos):
    return f"{tensor}_{'xy'[axis]}[" + ",".join(map(str, pos)) + "]"


def generate(design, name="dse"):
    """The checked ``ir.Graph`` of ``design`` (HwgenError if it cannot be generated)."""
    if design.unrealisable:
        raise HwgenError(f"{design} cannot be generated: {design.unrealisable}")
    if not design.exact:
        raise HwgenError(f"{design}: the array must divide the loops it runs ("
                         + ", ".join(f"{l}={design.sizes[l]} on {design.pes(a)} PEs"
                                     for a, l in enumerate(design.space)) + ")")
    expr, sizes = design.expr, design.sizes
    shapes = expr.shapes(sizes)
    tensors = {}
    for a in expr.inputs:
        tensors[a.tensor] = Tensor(a.tensor, TensorType(IN_TYPE, shapes[a.tensor],
                                                        layout(design, a)), "in")
    out = expr.output
    tensors[out.tensor] = Tensor(out.tensor, TensorType(OUT_TYPE, shapes[out.tensor],
                                                        layout(design, out)), "out")
    grid = tuple(design.pes(a) for a in range(len(design.space)))
    trips = tuple(p.trip for p in design.nest)
    inner = Pred("first", len(trips) - 1)
    red = design.reduction_depth
    channels, instances = {}, {}

    def link(tensor, axis, pe, dtype, kind):
        """The stream of ``tensor`` along ``axis`` into (``get``) or out of (``put``) ``pe``."""
        src = pe.pos if kind == "put" else pe.neighbour(axis, -1)
        dst = pe.neighbour(axis, +1) if kind == "put" else pe.pos
        name = _channel(tensor, axis, dst)
        ch = channels.setdefault(name, Channel(name, StreamType(dtype, 2)))
        ch.producer, ch.consumer = (f"pe[{','.join(map(str, p))}]" for p in (src, dst))
        return name

    for pos in itertools.product(*(range(n) for n in grid)):
        pe = _PE(design, pos)
        body, types = [], {}
        values = []
        for a in expr.inputs:
            var = f"v_{a.tensor}"
            types[var] = IN_TYPE
            axis = design.flow(a)
            if axis is not None and pos[axis] > 0:
                body.append(Assign(var, Get(link(a.tensor, axis, pe, IN_TYPE, "get"))))
            else:
                pred = (inner,) if design.lacks(a, design.inner) else ()
                body.append(Assign(var, Read(a.tensor, pe.index(a)), pred))
            if axis is not None and pe.neighbour(axis, +1) is not None:
                body.append(Put(link(a.tensor, axis, pe, IN_TYPE, "put"), VarRef(var)))
            values.append(VarRef(var))
        product = values[0]
        for v in values[1:]:
            product = BinOp("*", product, v)
        types["prod"] = OUT_TYPE
        body.append(Assign("prod", product))
        term = VarRef("prod")
        ax = design.chain
        if ax is not None:
            if pos[ax] > 0:
                types["psum"] = OUT_TYPE
                body.append(Assign("psum", _add(Get(link(out.tensor, ax, pe, OUT_TYPE, "get")),
                                                term)))
                term = VarRef("psum")
            if pe.neighbour(ax, +1) is not None:
                body.append(Put(link(out.tensor, ax, pe, OUT_TYPE, "put"), term))
                term = None
        if term is not None:
            if red is None:
                body.append(Write(out.tensor, pe.index(out), term))
            else:
                types["acc"] = OUT_TYPE
                body.append(Assign("acc", Const(0), (Pred("first", red),)))
                body.append(Assign("acc", BinOp("+", VarRef("acc"), term)))
                body.append(Write(out.tensor, pe.index(out), VarRef("acc"),
                                  (Pred("last", red),)))
        instances[pe.name] = Instance(pe.name, "pe", pos, grid, [Segment(trips, body)], types)
    graph = Graph(name, dict(sizes), tensors, channels, instances)
    return check(graph)


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
