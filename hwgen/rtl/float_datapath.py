"""The float parts of a member's datapath (``rtl.datapath.Member``): float arithmetic on the
units of ``rtl.float_units``, conversions (``rtl.float_convert``), exp (``rtl.float_exp``) and
float sums (``rtl.float_sum``)."""
from amaranth.hdl import Cat, Const, Mux, Signal

from ..ir import floats
from ..ir.accumulate import LANES, run
from ..ir.graph import Assign, Convert, Pred, Select, VarRef, coexist, stmt_exprs, trips_under
from ..ir.types import IntType
from ..schedule.levels import widens
from ..schedule.ports import safe_name
from .arith import named
from .float_convert import FloatConvert
from .float_exp import FloatExp
from .float_sum import FloatSum
from .float_units import FloatAdder, FloatDivider, FloatMultiplier, float_compare
from .staged import Staged, level_of


class FloatLowering:
    """Float expressions and float sums, for ``Member``: it provides ``emit``, ``at``,
    ``cond``, ``m``, ``en``, ``inst``, ``levels``, ``products``, ``sums``,
    ``starts`` and ``segment``."""

    def _float_op(self, e, env):
        """Float arithmetic and exp on their units (``schedule.levels.float_stages`` levels),
        comparisons as logic, negation and absolute value on the sign bit."""
        a = self.emit(e.lhs, env)
        b = None if e.rhs is None else self.emit(e.rhs, env)
        if isinstance(a, int) and (b is None or isinstance(b, int)):
            return floats.evaluate(e.op, a, b, e.fmt)
        lvl = max(level_of(a), level_of(b))
        # a constant at its format's width, whose top bit is the sign
        x, y = (v if v is None else Const(v, e.fmt.bits) if isinstance(v, int) else
                self.at(v, lvl) for v in (a, b))
        if e.op in ("neg", "abs"):
            sign = ~x[-1] if e.op == "neg" else Const(0, 1)
            return Staged(Cat(x[:-1], sign), lvl)
        if e.op in floats.COMPARE:
            return Staged(named(self.m, float_compare(e.op, x, y, e.fmt),
                                f"fcmp"), lvl)
        self.products += 1
        narrow = 8 if self._widened(e.lhs) and self._widened(e.rhs) else None
        units = {"*": lambda fmt: FloatMultiplier(fmt, narrow),     # bf16 x bf16: one DSP
                 "/": FloatDivider, "exp": FloatExp, "+": FloatAdder,
                 "-": lambda fmt: FloatAdder(fmt, subtract=True)}
        unit = units[e.op](e.fmt)
        self.m.submodules[f"float{self.products}"] = unit
        self.m.d.comb += [unit.a.eq(x), unit.en.eq(self.en)]
        if y is not None:
            self.m.d.comb += unit.b.eq(y)
        return Staged(unit.result, lvl + unit.LATENCY)

    def _widened(self, e, seen=()):
        """Whether ``e`` is always a bfloat16 value widened to float32 (its low 16 bits 0)."""
        if isinstance(e, Convert):
            return widens(e)
        if isinstance(e, Select):
            return self._widened(e.a, seen) and self._widened(e.b, seen)
        if isinstance(e, VarRef) and e.name not in seen:
            values = [s.value for seg in self.inst.segments for s in seg.body
                      if isinstance(s, Assign) and s.var == e.name]
            return bool(values) and all(self._widened(v, seen + (e.name,)) for v in values)
        return isinstance(e, VarRef)        # the variable itself, kept by a Select above

    def _convert(self, e, env):
        """A conversion: bfloat16 -> float32 as wiring (16 zero fraction bits below), others
        by ``rtl.float_convert`` (an integer's width and sign from its value here)."""
        a = self.emit(e.operand, env)
        if isinstance(a, int):
            return floats.convert(a, e.src, e.dst)
        lvl = level_of(a)
        x = self.at(a, lvl)
        if widens(e):
            return Staged(Cat(Const(0, 16), x), lvl)
        src = e.src or IntType(len(x), x.shape().signed)
        self.products += 1
        unit = FloatConvert(src, e.dst)
        self.m.submodules[f"convert{self.products}"] = unit
        self.m.d.comb += [unit.value.eq(x), unit.en.eq(self.en)]
        return Staged(unit.result, lvl + unit.LATENCY)

    def _float_sum(self, s, env):
        """An assignment to a float accumulator: its start (kept for the update), or its
        update, which builds its ``FloatSum``; after that the accumulator reads as its total
        (on the run's last iteration; on later ones, loops in sequence, from a register)."""
        update = self.sums[s.var]
        if update.stmt is not s:
            self.starts[s.var] = self.emit(s.value, env)
            return
        seg = self.inst.segments[self.segment]
        begin, depth, count = run(seg, s.var, update)
        lvl = self.levels.var[s.var]
        unit = FloatSum(update.fmt, count)
        name = f"sum_{safe_name(s.var)}"
        self.m.submodules[name] = unit
        # The flags of the iteration one level before (the next one here); ``Levels`` keeps
        # ``lvl`` at 1 or more.
        cut = trips_under(s.pred, seg.trips)
        ends = s.pred + tuple(Pred("at", d, cut[d] - 1) for d in range(depth, len(cut)))
        fresh = [self.cond(begin.pred, lvl - 1 + j) for j in range(1, LANES)]
        self.m.d.comb += [unit.term.eq(self.at(self.emit(update.term, env), lvl)),
                          unit.start.eq(self.at(self.starts[s.var], lvl)),
                          unit.first_next.eq(self.cond(begin.pred, lvl - 1)),
                          unit.fresh_next.eq(Cat(*fresh).any()),
                          unit.last_next.eq(self.cond(ends, lvl - 1)), unit.en.eq(self.en)]
        total, lvl = unit.total, lvl + unit.LATENCY
        if any(s.var in _reads(x) and not coexist(x.pred, s.pred, seg.trips) for x in seg.body):
            done = self.cond(ends, lvl)
            kept = Signal(update.fmt.bits, name=f"{name}_total")
            with self.m.If(self.en & done):
                self.m.d.sync += kept.eq(total)
            total = Mux(done, total, kept)
        env[s.var] = Staged(total, lvl)


def _reads(stmt):
    """The local variables ``stmt`` reads."""
    return {e.name for e in stmt_exprs(stmt) if isinstance(e, VarRef)}
