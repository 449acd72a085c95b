"""Widths: values against the types they are stored in, before any hardware exists.

A constant that cannot fit the local, stream or tensor it is stored in is an error. An
accumulation in a loop (``c += a * b``, also under a run-time ``if``) that can outgrow its
declared type is a warning that gives the bound: the start value plus the number of terms
between two restarts times the range of one term. Ranges come from element types, loop bounds
and constants by interval arithmetic; a value that may wrap takes its type's whole range.
"""
import warnings

from ..errors import HwgenError, HwgenWarning
from ..ir.graph import (ArrayRead, ArrayWrite, Assign, BinOp, Const, Get, LoopIndex, Neg, Put,
                        Read, Select, Slice, VarRef, Write, subexprs)
from ..ir.interval import arith, negate, union
from .streams import executions


def _type_range(t):
    return t.min, t.max


def _fits(r, t):
    return r is not None and t.min <= r[0] and r[1] <= t.max


def _bits_needed(r):
    """The signed width that holds every value in ``r``."""
    return max(1, max(-r[0] - 1, r[1]).bit_length() + 1)


class _Ranges:
    """Value ranges of one instance's expressions and locals; ``streams`` gives the ranges of
    values on streams (what their producers put)."""

    def __init__(self, graph, inst, streams):
        self.graph, self.inst, self.streams = graph, inst, streams
        self.assigns = {}           # var -> [(Assign, segment)]
        for seg in inst.segments:
            for s in seg.body:
                if isinstance(s, Assign):
                    self.assigns.setdefault(s.var, []).append((s, seg))
        self.vars, self.busy = {}, set()
        self.found = []             # (loc, message) of accumulations that can overflow

    def expr(self, e, trips):
        if isinstance(e, Const):
            return e.value, e.value
        if isinstance(e, LoopIndex):
            return 0, trips[e.depth] - 1
        if isinstance(e, Read):
            return _type_range(self.graph.tensors[e.tensor].dtype)
        if isinstance(e, Get):
            return self.streams.range(e.channel)
        if isinstance(e, ArrayRead):
            return _type_range(self.inst.arrays[e.array].dtype)
        if isinstance(e, VarRef):
            return self.var(e.name)
        if isinstance(e, Neg):
            return negate(self.expr(e.operand, trips))
        if isinstance(e, Slice):
            return 0, (1 << (e.stop - e.start)) - 1
        if isinstance(e, Select):
            return self.select(e, trips)
        if isinstance(e, BinOp):
            return self.binop(e, trips)
        return None                 # SetSlice: the target's type

    def select(self, e, trips):
        """``c ? a : b``; exact for ``max``/``min`` (``a > b ? a : b``, ``a < b ? a : b``),
        else the union of both sides."""
        a, b = self.expr(e.a, trips), self.expr(e.b, trips)
        c = e.cond
        if a is not None and b is not None and isinstance(c, BinOp) and \
                (c.lhs, c.rhs) == (e.a, e.b) and c.op in (">", ">=", "<", "<="):
            pick = max if c.op in (">", ">=") else min
            return pick(a[0], b[0]), pick(a[1], b[1])
        return union(a, b)

    def binop(self, e, trips):
        if e.op in ("==", "!=", "<", "<=", ">", ">="):
            return 0, 1
        a, b = self.expr(e.lhs, trips), self.expr(e.rhs, trips)
        if a is None or b is None:
            return None
        if e.op in ("+", "-", "*"):
            return arith(e.op, a, b)
        if e.op in ("<<", ">>") and b[0] == b[1] >= 0:
            shift = (lambda x: x << b[0]) if e.op == "<<" else (lambda x: x >> b[0])
            return shift(a[0]), shift(a[1])
        if e.op in ("&", "|", "^") and a[0] >= 0 and b[0] >= 0:
            if e.op == "&":
                return 0, min(a[1], b[1])
            return 0, (1 << max(a[1], b[1]).bit_length()) - 1
        return None

    def var(self, name):
        """Range of a local over a problem: what its assignments store (its type's range where
        a stored value may wrap)."""
        dtype = self.inst.vars[name]
        if name in self.vars:
            return self.vars[name]
        if name in self.busy:
            return _type_range(dtype)
        self.busy.add(name)
        starts, steps = None, []
        for s, seg in self.assigns.get(name, []):
            term = _accumulated_term(s.value, name)
            if term is not None:
                steps.append((s, seg, term))
            elif any(isinstance(x, VarRef) and x.name == name for x in subexprs(s.value)):
                starts = _type_range(dtype)         # some other recurrence: no bound
            else:
                r = self.expr(s.value, seg.trips)
                starts = union(starts, r) if starts is not None or r is None else r
        result = starts if _fits(starts, dtype) else _type_range(dtype)
        if steps:
            result = self.accumulation(name, steps, result)
        self.busy.discard(name)
        self.vars[name] = result
        return result

    def accumulation(self, name, steps, start):
        """The range of ``name`` after all the terms ``steps`` add between two restarts."""
        dtype = self.inst.vars[name]
        restarts = sum(executions(x.pred, xseg.trips) for x, xseg in self.assigns[name]
                       if _accumulated_term(x.value, name) is None)
        bound, terms, span = list(start), 0, None
        for s, seg, (sign, term) in steps:
            r = self.expr(term, seg.trips)
            if r is None:
                return _type_range(dtype)
            r = r if sign > 0 else negate(r)
            n = -(-executions(s.pred, seg.trips) // max(1, restarts))
            bound = [bound[0] + n * min(0, r[0]), bound[1] + n * max(0, r[1])]
            terms, span = terms + n, r if span is None else union(span, r)
        if _fits(bound, dtype):
            return tuple(bound)
        self.found.append((steps[0][0].loc, f"in task {self.inst.name}: '{name}' accumulates up to "
                           f"{terms} terms in {span[0]}..{span[1]} and can reach {bound[0]}.."
                           f"{bound[1]}, beyond {dtype.name} [{dtype.min}, {dtype.max}]; declare "
                           f"it Int({_bits_needed(bound)}) or wider"))
        return _type_range(dtype)


class _Streams:
    """Ranges of the values each stream carries: the union of what its producer puts, or the
    stream's type where that is unknown or may wrap."""

    def __init__(self, graph):
        self.graph, self.ranges, self.busy = graph, {}, set()
        self.instances = {}

    def of(self, inst):
        if inst.name not in self.instances:
            self.instances[inst.name] = _Ranges(self.graph, inst, self)
        return self.instances[inst.name]

    def range(self, name):
        chan = self.graph.channels[name]
        if name in self.ranges:
            return self.ranges[name]
        if name in self.busy:
            return _type_range(chan.dtype)
        self.busy.add(name)
        producer = self.graph.instances[chan.producer]
        r = None
        for seg in producer.segments:
            for s in seg.body:
                if isinstance(s, Put) and s.channel == name:
                    v = self.of(producer).expr(s.value, seg.trips)
                    r = v if r is None else union(r, v)
        self.busy.discard(name)
        self.ranges[name] = r if _fits(r, chan.dtype) else _type_range(chan.dtype)
        return self.ranges[name]


def _accumulated_term(value, name):
    """``(sign, term)`` when ``value`` is ``name + term`` or ``name - term`` (maybe under a
    run-time condition that otherwise keeps ``name``), else None."""
    if isinstance(value, Select):
        keep = VarRef(name)
        if value.b == keep:
            value = value.a
        elif value.a == keep:
            value = value.b
    if not isinstance(value, BinOp) or value.op not in ("+", "-"):
        return None
    mentions = [any(isinstance(x, VarRef) and x.name == name for x in subexprs(side))
                for side in (value.lhs, value.rhs)]
    if value.lhs == VarRef(name) and not mentions[1]:
        return (1 if value.op == "+" else -1), value.rhs
    if value.op == "+" and value.rhs == VarRef(name) and not mentions[0]:
        return 1, value.lhs
    return None


def _check_constant(value, dtype, what, loc):
    if isinstance(value, Const) and not dtype.min <= value.value <= dtype.max:
        raise HwgenError(f"the constant {value.value} does not fit {what} of type {dtype.name} "
                         f"[{dtype.min}, {dtype.max}]; use a wider type or a smaller value", loc)


def _check_narrowing(ranges, put, seg, dtype):
    """A put whose value can leave the stream's type wraps on the stream: a warning, like an
    accumulation that can overflow."""
    r = ranges.expr(put.value, seg.trips)
    if r is None or _fits(r, dtype):
        return
    if isinstance(put.value, Slice) and put.value.stop - put.value.start <= dtype.bits:
        return                      # bits of a packed word: a reinterpretation, on purpose
    ranges.found.append((put.loc, f"in task {ranges.inst.name}: the value put on stream "
                         f"'{put.channel}' can reach {r[0]}..{r[1]}, beyond its {dtype.name} "
                         f"[{dtype.min}, {dtype.max}], and wraps; declare the stream "
                         f"Int({_bits_needed(r)}) or wider, or clamp the value (min/max)"))


def check_widths(graph):
    """Errors for constants that cannot fit; warnings (also kept in ``graph.warnings``) for
    accumulations that can overflow and puts that narrow a value into a smaller stream."""
    streams = _Streams(graph)
    for inst in graph.instances.values():
        ranges = streams.of(inst)
        for seg in inst.segments:
            for s in seg.body:
                if isinstance(s, Assign):
                    _check_constant(s.value, inst.vars[s.var], f"'{s.var}'", s.loc)
                elif isinstance(s, Put):
                    _check_constant(s.value, graph.channels[s.channel].dtype,
                                    f"stream '{s.channel}'", s.loc)
                    _check_narrowing(ranges, s, seg, graph.channels[s.channel].dtype)
                elif isinstance(s, Write):
                    _check_constant(s.value, graph.tensors[s.tensor].dtype,
                                    f"tensor '{s.tensor}'", s.loc)
                elif isinstance(s, ArrayWrite):
                    _check_constant(s.value, inst.arrays[s.array].dtype,
                                    f"local array '{s.array}'", s.loc)
        for name in inst.vars:
            ranges.var(name)
    by_line = {}
    for ranges in streams.instances.values():
        for loc, message in ranges.found:
            by_line.setdefault(loc, []).append(message)
    for loc, messages in by_line.items():
        more = len(messages) - 1
        message = messages[0] + (f" (also in {more} other instance{'s' * (more > 1)})"
                                 if more else "")
        graph.warnings.append(message)
        warnings.warn_explicit(message, HwgenWarning, loc[0], loc[1])
