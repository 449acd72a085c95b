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
from amaranth.hdl import Signal

from ..schedule.lines import copy_spans, takes_shared
from .replica import kept


class DelayLines:
    """The delay lines of one group.

    Parameters
    ----------
    m : Module
        The group's module; the shared lines' registers are added to its ``sync`` domain.
    en : Signal
        The group's enable (no active FIFO op blocked).
    parents : dict
        Member -> its parent (``rtl.group.Group.parents``).
    target : str
        What the copies' registers lower to (``rtl.replica.kept``).
    modules : dict
        Member -> its own module (``rtl.group``), which holds the member's copies.
    """

    def __init__(self, m, en, parents=None, target="generic", modules=None):
        self.m, self.en, self.target = m, en, target
        self.parents = parents or {}
        self.modules = modules or {}
        self.base = {}          # schedule.lines.Line -> its value at the base
        self.lines = {}         # Line -> (base value, [registers])
        self.copies = {}        # (Line, member) -> {delay: the member's copy at that delay}
        self.labels = {}        # Line -> its unique name stem

    def define(self, line, value):
        """``value`` is ``line`` at the base (the first definition stands)."""
        self.base.setdefault(line, value)

    def tap(self, line, delay, member=None):
        """``line`` ``delay`` enabled cycles after the base: ``member``'s copy of it (see the
        module), or the shared line for a member without a parent or when none is given."""
        base = self.base[line]
        if delay == 0:
            return base
        if self.parents.get(member) is not None:
            copy = self.copies.setdefault((line, member), {})
            if delay not in copy:
                copy[delay] = self._register(line, f"{self._label(line)}_d{delay}")
            return copy[delay]
        _, regs = self.lines.setdefault(line, (base, []))
        while len(regs) < delay:
            regs.append(self._register(line, f"{line.label}_d{len(regs) + 1}"))
        return regs[delay - 1]

    def _label(self, line):
        """A name for ``line`` no other line of the group has (lines of one segment under
        different conditions share ``Line.label``): register and flip-flop names follow it."""
        if line not in self.labels:
            taken = set(self.labels.values())
            label, k = line.label, 1
            while label in taken:
                label, k = f"{line.label}_{k}", k + 1
            self.labels[line] = label
        return self.labels[line]

    def _register(self, line, name):
        return Signal.like(self.base[line], reset_less=line.datapath, name=name)

    def emit(self):
        """Connect every member's copies, then shift every shared line (once all taps are
        known)."""
        for line in sorted({ln for ln, _ in self.copies}, key=lambda ln: ln.order):
            self._connect_copies(line)
        for line, (base, regs) in sorted(self.lines.items(), key=lambda kv: kv[0].order):
            with self.m.If(self.en):
                for k, r in enumerate(regs):
                    self.m.d.sync += r.eq(base if k == 0 else regs[k - 1])

    def _connect_copies(self, line):
        """Each member's copy of ``line`` over its span (``schedule.lines.copy_spans``): its
        first register takes the parent's copy one delay earlier, or the shared line."""
        uses = {mb: set(c) for (ln, mb), c in self.copies.items() if ln == line}
        spans = copy_spans(uses, self.parents)
        copies = {mb: [self.tap(line, d, mb) for d in range(lo, hi + 1)]    # every register first
                  for mb, (lo, hi) in sorted(spans.items())}
        for mb, copy in copies.items():
            m = self.modules.get(mb, self.m)
            for r, prev in zip(copy[1:], copy):
                kept(m, r, prev, self.en, self.target)
            lo = spans[mb][0]
            if takes_shared(mb, spans[mb], self.parents):
                m.d.comb += copy[0].eq(self.tap(line, lo))
            else:
                parent = self.copies[(line, self.parents[mb])]
                kept(m, copy[0], parent[lo - 1], self.en, self.target)


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
        self.pipes = {}         # (id of a value, level) -> (register, value)

    def delay(self, value, frm, to, name="v"):
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
