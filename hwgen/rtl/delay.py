"""Delay lines and pipelines of a lockstep group.

A control value produced once at the group's base (a loop index, an iteration flag, the
problem's slot) reaches a member ``skew`` cycles behind at pipeline level ``l`` through a
shared delay line tapped at ``skew + l``; a datapath value is delayed from the level where it
exists to the level where it is used by a pipeline of registers. Both move only when the group
is enabled.
"""
from amaranth.hdl import Signal


class DelayLines:
    """The delay lines and pipelines of one group.

    Parameters
    ----------
    m : Module
        The group's module; registers are added to its ``sync`` domain.
    en : Signal
        The group's enable (no active FIFO op blocked).
    """

    def __init__(self, m, en):
        self.m, self.en = m, en
        self.base = {}          # schedule.lines.Line -> its value at the base
        self.lines = {}         # Line -> (base value, [registers])
        self.pipes = {}         # (id of a value, level) -> (register, value)

    def define(self, line, value):
        """``value`` is ``line`` at the base (the first definition stands)."""
        self.base.setdefault(line, value)

    def tap(self, line, delay):
        """``line`` ``delay`` enabled cycles after the base."""
        base = self.base[line]
        if delay == 0:
            return base
        _, regs = self.lines.setdefault(line, (base, []))
        while len(regs) < delay:
            regs.append(Signal.like(base, reset_less=line.datapath,
                                    name=f"{line.label}_d{len(regs) + 1}"))
        return regs[delay - 1]

    def pipe(self, value, frm, to, name):
        """``value`` (existing at level ``frm``) delayed to level ``to``."""
        assert to >= frm, (frm, to)
        v = value
        for lvl in range(frm + 1, to + 1):
            key = (id(value), lvl)
            if key not in self.pipes:
                r = Signal(v.shape(), reset_less=True, name=f"{name}_l{lvl}")
                with self.m.If(self.en):
                    self.m.d.sync += r.eq(v)
                self.pipes[key] = (r, value)
            v = self.pipes[key][0]
        return v

    def emit(self):
        """Shift every delay line (once all taps are known)."""
        for line, (base, regs) in sorted(self.lines.items(), key=lambda kv: kv[0].order):
            with self.m.If(self.en):
                for k, r in enumerate(regs):
                    self.m.d.sync += r.eq(base if k == 0 else regs[k - 1])
