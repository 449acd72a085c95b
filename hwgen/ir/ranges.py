"""Value ranges of a task graph's locals, streams and tensor writes, by interval arithmetic on
element types, loop bounds and constants (``ir.interval``); a value that may wrap takes its type's
whole range. ``check.widths`` warns with them where a declared type is too narrow; ``rtl`` sizes
registers with them where it is wider than the values (``hardware_bits``).

An accumulation (``c += a * b``, also under a run-time ``if``) is bounded by the start value
plus the number of terms times the range of one term. For a warning the terms are counted
between two restarts; for hardware, where a wrong bound would be a wrong result, every term of
a problem counts.
"""
from .graph import (ArrayRead, Assign, BinOp, Const, Get, LoopIndex, Neg, Put, Read, Select,
                    Slice, VarRef, Write, allowed, span_of, subexprs, trips_under)
from .element_sums import is_element_sum
from .preds import SETS
from .interval import arith, negate, union
from .types import FloatType


def executions(pred, trips):
    """How many iterations of a loop nest with ``trips`` satisfy the predicates ``pred``."""
    count = 1
    for d, trip in enumerate(trips):
        if any(p.kind in SETS and p.depth == d for p in pred):
            count *= len(allowed(pred, d, trip))
        else:
            lo, hi = span_of(pred, d, trip)
            count *= max(0, hi - lo + 1)
    return count


def type_range(t):
    return t.min, t.max


def fits(r, t):
    return r is not None and t.min <= r[0] and r[1] <= t.max


def bits_needed(r):
    """The signed width that holds every value in ``r``."""
    return max(1, max(-r[0] - 1, r[1]).bit_length() + 1)


class Ranges:
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
            return type_range(self.graph.tensors[e.tensor].dtype)
        if isinstance(e, Get):
            return self.streams.range(e.channel)
        if isinstance(e, ArrayRead):
            return type_range(self.inst.arrays[e.array].dtype)
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
        if e.op in ("+", "-", "*", "//", "%"):
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
            return type_range(dtype)
        self.busy.add(name)
        starts, steps = None, []
        for s, seg in self.assigns.get(name, []):
            term = accumulated_term(s.value, name)
            if term is not None:
                steps.append((s, seg, term))
            elif any(isinstance(x, VarRef) and x.name == name for x in subexprs(s.value)):
                starts = type_range(dtype)         # some other recurrence: no bound
            else:
                r = self.expr(s.value, trips_under(s.pred, seg.trips))
                starts = union(starts, r) if starts is not None or r is None else r
        result = starts if fits(starts, dtype) else type_range(dtype)
        if steps:
            result = self.accumulation(name, steps, result)
        self.busy.discard(name)
        self.vars[name] = result
        return result

    def accumulation(self, name, steps, start):
        """The range of ``name`` after all the terms ``steps`` add between two restarts (its
        type's in a loop whose count depends on data: no bound, and nothing to warn of)."""
        dtype = self.inst.vars[name]
        if any(seg.cond is not None for _, seg, _ in steps):
            return type_range(dtype)
        restarts = sum(executions(x.pred, xseg.trips) for x, xseg in self.assigns[name]
                       if accumulated_term(x.value, name) is None)
        bound, terms, span = list(start), 0, None
        for s, seg, (sign, term) in steps:
            r = self.expr(term, seg.trips)
            if r is None:
                return type_range(dtype)
            r = r if sign > 0 else negate(r)
            n = executions(s.pred, seg.trips)
            if self.streams.per_restart:
                n = -(-n // max(1, restarts))
            bound = [bound[0] + n * min(0, r[0]), bound[1] + n * max(0, r[1])]
            terms, span = terms + n, r if span is None else union(span, r)
        if fits(bound, dtype):
            return tuple(bound)
        if not is_element_sum(name):        # an element wraps as its tensor's type does
            self.found.append((
                steps[0][0].loc, f"in task {self.inst.name}: '{name}' accumulates up to "
                f"{terms} terms in {span[0]}..{span[1]} and can reach {bound[0]}..{bound[1]}, "
                f"beyond {dtype.name} [{dtype.min}, {dtype.max}]; "
                + self._advice(name, dtype, start, (bound[0] - start[0], bound[1] - start[1]),
                               f"Int({bits_needed(bound)})")))
        return type_range(dtype)

    def _advice(self, name, dtype, start, terms, wide):
        """What to declare: ``name`` as ``wide``, unless a tensor it starts from fills
        ``dtype`` and the terms alone fit: then first that tensor as the widest standard type
        that makes the sum fit (a bias read into an accumulator)."""
        reads = {e.tensor for x, _ in self.assigns[name]
                 if accumulated_term(x.value, name) is None
                 for e in subexprs(x.value) if isinstance(e, Read)}
        for tensor in sorted(reads):
            t = self.graph.tensors[tensor].dtype
            if isinstance(t, FloatType) or (t.min, t.max) != tuple(start):
                continue
            for bits in (16, 8):
                low, high = (-(1 << bits - 1), (1 << bits - 1) - 1) if t.min < 0 else \
                    (0, (1 << bits) - 1)
                if bits < t.bits and fits((terms[0] + low, terms[1] + high), dtype):
                    return (f"its start, {tensor} ({t.name}), alone fills {dtype.name}: "
                            f"declare {tensor} {'int' if t.min < 0 else 'uint'}{bits} (then the "
                            f"sum fits), or '{name}' {wide} or wider")
        return f"declare it {wide} or wider"


class StreamRanges:
    """Ranges of the values each stream carries: the union of what its producer puts, or the
    stream's type where that is unknown or may wrap."""

    def __init__(self, graph, per_restart=True):
        self.graph, self.ranges, self.busy = graph, {}, set()
        self.per_restart = per_restart
        self.instances = {}

    def of(self, inst):
        if inst.name not in self.instances:
            self.instances[inst.name] = Ranges(self.graph, inst, self)
        return self.instances[inst.name]

    def range(self, name):
        chan = self.graph.channels[name]
        if name in self.ranges:
            return self.ranges[name]
        if name in self.busy:
            return type_range(chan.dtype)
        self.busy.add(name)
        producer = self.graph.instances[chan.producer]
        r = None
        for seg in producer.segments:
            for s in seg.body:
                if isinstance(s, Put) and s.channel == name:
                    v = self.of(producer).expr(s.value, trips_under(s.pred, seg.trips))
                    r = v if r is None else union(r, v)
        self.busy.discard(name)
        self.ranges[name] = r if fits(r, chan.dtype) else type_range(chan.dtype)
        return self.ranges[name]


def accumulated_term(value, name):
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




def hardware_ranges(graph):
    """The ranges hardware may size registers by: ``(vars, tensors)`` with ``vars[instance]
    [name]`` a local's range and ``tensors[name]`` the range of what is written into an output
    tensor, counting every term of a problem into an accumulation. A range is left out where
    it is the type's whole range."""
    streams = StreamRanges(graph, per_restart=False)
    variables, tensors = {}, {}
    for inst in graph.instances.values():
        ranges = streams.of(inst)
        for name, dtype in inst.vars.items():
            r = ranges.var(name)
            if r != type_range(dtype):
                variables.setdefault(inst.name, {})[name] = r
        for seg in inst.segments:
            for s in seg.body:
                if isinstance(s, Write):
                    r = ranges.expr(s.value, trips_under(s.pred, seg.trips))
                    r = r if fits(r, graph.tensors[s.tensor].dtype) else None
                    tensors[s.tensor] = union(tensors.get(s.tensor, r), r)
    return variables, {n: r for n, r in tensors.items()
                       if r is not None and r != type_range(graph.tensors[n].dtype)}
