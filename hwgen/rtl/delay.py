"""Delay lines and pipelines of a lockstep group.

A control value produced once at the group's base (a loop index, an iteration flag, the
problem's slot) reaches a member ``skew`` cycles behind at pipeline level ``l`` delayed by
``skew + l`` enabled cycles; a datapath value is delayed from the level where it exists to the
level where it is used by a pipeline of registers (``Pipes``, one per member). Both move only
when the group is enabled.

A control value does not travel to the members on one shared line: a shared line tapped at
``skew + l`` drives every member on an anti-diagonal of a systolic array, a net across the
whole die. Each member keeps its own copy of the line, taken from the copy of its *parent*, the
member it receives a link register from (``parents``), one cycle earlier: the control travels
beside the data, from neighbour to neighbour (``schedule.lines.copy_spans``). A member with no
parent (the array's corner, or every member where no links join them) taps the shared line. A
member's copy sits in the member's own module.
"""
from amaranth.hdl import Signal, Value

from .replica import kept


class DelayLines:
    """The shared delay lines of one group: each a chain of registers from its value at the
    base, as long as its deepest tap.

    Parameters
    ----------
    m : Module
        The group's module; the shared lines' registers are added to its ``sync`` domain.
    en : Signal
        The group's enable (no active FIFO op blocked).
    """

    def __init__(self, m, en):
        self.m, self.en = m, en
        self.base = {}          # schedule.lines.Line -> its value at the base
        self.lines = {}         # Line -> (base value, [registers])
        self.labels = {}        # Line -> its unique name stem

    def define(self, line, value):
        """``value`` is ``line`` at the base (the first definition stands)."""
        self.base.setdefault(line, value)

    def shape(self, line):
        """The shape of ``line``'s values."""
        return Value.cast(self.base[line]).shape()

    def tap(self, line, delay):
        """``line`` ``delay`` enabled cycles after the base, on the shared line."""
        base = self.base[line]
        if delay == 0:
            return base
        _, regs = self.lines.setdefault(line, (base, []))
        while len(regs) < delay:
            regs.append(Signal.like(base, reset_less=line.datapath,
                                    name=f"{line.label}_d{len(regs) + 1}"))
        return regs[delay - 1]

    def label(self, line):
        """A name for ``line`` no other line of the group has (lines of one segment under
        different conditions share ``Line.label``): register and flip-flop names follow it."""
        if line not in self.labels:
            taken = set(self.labels.values())
            label, k = line.label, 1
            while label in taken:
                label, k = f"{line.label}_{k}", k + 1
            self.labels[line] = label
        return self.labels[line]

    def emit(self):
        """Shift every shared line (once all taps are known)."""
        for line, (base, regs) in sorted(self.lines.items(), key=lambda kv: kv[0].order):
            with self.m.If(self.en):
                for k, r in enumerate(regs):
                    self.m.d.sync += r.eq(base if k == 0 else regs[k - 1])


def copy_line(m, line, name, shape, span, source, shared, en, target="generic"):
    """A member's copy of ``line`` in its module ``m``: registers at delays ``span`` (``(first,
    last)``, ``schedule.lines.copy_spans``), named ``<name>_d<delay>``, each taking the one
    before it; the first is ``source`` itself when it is the ``shared`` line at that delay,
    else ``source`` (the parent's copy a delay earlier) a cycle later. Returns delay -> the
    copy's value."""
    lo, hi = span
    copy = {d: Signal(shape, reset_less=line.datapath, name=f"{name}_d{d}")
            for d in range(lo, hi + 1)}
    if shared:
        m.d.comb += copy[lo].eq(source)
    else:
        kept(m, copy[lo], source, en, target)
    for d in range(lo + 1, hi + 1):
        kept(m, copy[d], copy[d - 1], en, target)
    return copy


class Pipes:
    """The pipelines of one member: datapath values delayed to the levels of their uses, a
    value piped twice sharing its registers.

    Parameters
    ----------
    m : Module
        The member's module.
    en : Signal
        The group's enable.
    """

    def __init__(self, m, en):
        self.m, self.en = m, en
        # (id of a value, the level it exists at, level) -> (register, value): a value piped
        # twice from one level shares its registers; from another level it is another value.
        self.pipes = {}

    def delay(self, value, frm, to, name="v"):
        """``value`` (existing at level ``frm``) delayed to level ``to``."""
        assert to >= frm, (frm, to)
        v = value
        for lvl in range(frm + 1, to + 1):
            key = (id(value), frm, lvl)
            if key not in self.pipes:
                r = Signal(v.shape(), reset_less=True, name=f"{name}_l{lvl}")
                with self.m.If(self.en):
                    self.m.d.sync += r.eq(v)
                self.pipes[key] = (r, value)
            v = self.pipes[key][0]
        return v
