"""The controller of a lockstep group: one iteration of the group's loop nests per enabled
cycle, and the control values its members tap from the delay lines.

For iteration ``n`` it produces the loop indices, the segment, whether the iteration is valid,
flags for the conditions statements run under (first/last iteration of some loops), the buffer
slot of the problem, and the problem's last iteration. A new problem may start once the previous
one has issued its iterations and ``spacing`` cycles have passed.
"""
from amaranth.hdl import Cat, Const, Mux, Signal

from ..schedule.host_timing import FINISH_AHEAD
from ..schedule.lines import FINISH, SLOT, Line
from .walk import SlotCounter


def all_of(terms):
    """Every one of ``terms`` (1 when there are none)."""
    return Cat(*terms).all() if terms else Const(1)


class Controller:
    """The counters of one group.

    Parameters
    ----------
    m : Module
    group : rtl.group.Group
        The component: its ``scheduled`` group, ``plan.slots`` (the buffer slots the slot
        number counts through), ``spacing`` (enabled cycles between two problem starts) and
        its ``start``, ``accept`` and ``finished`` ports.
    lines : DelayLines
        Where the control values are defined.
    en : Signal
        The group's enable.

    Attributes
    ----------
    valid0, idx, seg, slot : Signal
        At the base: the iteration is valid; the loop indices; the segment; the slot.
    """

    def __init__(self, m, group, lines, en):
        self.m, self.lines = m, lines
        self.group = g = group.scheduled
        self.slots, spacing = group.plan.slots, group.spacing
        if spacing < g.iterations:
            raise ValueError(f"group {g.name!r}: a spacing of {spacing} cycles is shorter than "
                             f"its {g.iterations} iterations")
        total = g.iterations + g.taps
        running = Signal()
        count = Signal(range(max(total, spacing) + 1))
        # ``running & (count < iterations)``, a register computed from the next state, so that
        # the steps of the indices and the condition lines begin at a flip-flop, not at a LUT
        # of ``count``. It falls after the last iteration, ``at_last``, a register too, not
        # the carry chain of ``count + 1 < iterations``.
        self.valid0 = valid0 = Signal()
        self.idx, self.seg = self._indices(g)
        # The slot (buffer half) of the problem whose iterations are issuing; it travels with
        # them through the delay lines so that two problems can share the array.
        self.slot = Signal(range(max(2, self.slots)), name="slot")
        slot_next = SlotCounter(m, self.slots, "slot_next")
        lines.define(SLOT, self.slot)
        # at_last: ``count`` is the last iteration's, a register, so that no equality of
        # ``count`` (several LUT levels) sits in front of ``valid0``.
        last_iter, at_last = Signal(), Signal(name="at_last")
        m.d.comb += last_iter.eq(valid0 & at_last)
        lines.define(FINISH, last_iter)
        # ready: ``~running | (count >= spacing - 1)``, a register computed from the next
        # state, so that the start handshake (rtl.top) begins at flip-flops. Its next value
        # while running, ``(count == last) | (count + 2 >= spacing)``, is a register too,
        # ``soon``: ``accept_next`` crosses the die into rtl.top's copies, so it begins at a
        # flip-flop, not at a carry chain of ``count``.
        ready, ready_next, soon, last = Signal(init=1), Signal(), Signal(), max(total, spacing) - 1
        m.d.comb += [group.accept.eq(en & ready), ready_next.eq(ready),
                     group.finished.eq(lines.tap(FINISH, g.taps) & en)]
        m.d.sync += ready.eq(ready_next)
        if group.announces_finish:          # ``en`` is 1: the line moves every cycle
            m.d.comb += [group.finished_ahead.eq(lines.tap(FINISH, g.taps - FINISH_AHEAD)),
                         group.accept_next.eq(ready_next)]
        with m.If(group.start):
            m.d.comb += ready_next.eq(spacing <= 1)
            m.d.sync += [running.eq(1), count.eq(0), self.slot.eq(slot_next.value),
                         valid0.eq(g.iterations > 0), at_last.eq(g.iterations == 1),
                         soon.eq((last == 0) | (spacing <= 2))]
            slot_next.advance()
        with m.Elif(running & en):
            m.d.comb += ready_next.eq(soon)
            m.d.sync += [count.eq(count + 1), valid0.eq(valid0 & ~at_last),
                         at_last.eq(count == g.iterations - 2),
                         soon.eq((count + 1 == last) | (count + 3 >= spacing))]
            # Run until the last iteration has left the array and the spacing has passed.
            with m.If(count == last):
                m.d.sync += running.eq(0)
        # The indices and the segment step at every valid iteration, even in the cycle a
        # problem starts (the previous one's last), and are never cleared: a problem starts
        # once the previous one has issued its iterations (``spacing`` is at least
        # ``iterations``), and the last iteration leaves them at 0, so that the start
        # handshake's LUT does not also drive a clear of every index and segment bit.
        with m.If(valid0 & en):
            self._step()

    @staticmethod
    def _indices(g):
        """The loop indices (one per level of the deepest segment) and the segment."""
        depth = max((len(t) for t in g.structure), default=0)
        return ([Signal(range(max([t[d] for t in g.structure if len(t) > d]) + 1),
                        name=f"idx{d}") for d in range(depth)],
                Signal(range(max(2, len(g.structure))), name="seg"))

    def _step(self):
        """Advance the loop indices and the segment by one iteration."""
        m = self.m
        with m.Switch(self.seg):
            for gi, trips in enumerate(self.group.structure):
                with m.Case(gi):
                    lasts = [self.idx[d] == trips[d] - 1 for d in range(len(trips))]
                    for d in range(len(trips)):
                        inner = Const(1) if d == len(trips) - 1 else all_of(lasts[d + 1:])
                        with m.If(inner):
                            m.d.sync += self.idx[d].eq(Mux(lasts[d], 0, self.idx[d] + 1))
                    with m.If(all_of(lasts) if trips else Const(1)):
                        m.d.sync += self.seg.eq((gi + 1) % len(self.group.structure))

    def index(self, depth):
        """The delay line of the loop index at ``depth``."""
        line = Line.index(depth)
        self.lines.define(line, self.idx[depth])
        return line

    def cond(self, gi, pred):
        """The delay line of 'the iteration is valid, in segment ``gi``, and ``pred`` holds'."""
        line = Line.cond(gi, pred)
        if line not in self.lines.base:
            trips = self.group.structure[gi]
            v = self.valid0 & (self.seg == gi)
            for p in pred:
                if p.kind == "mod":
                    m, residues = p.value
                    v = v & Cat(*[self.idx[p.depth] % m == r for r in residues]).any()
                    continue
                if p.kind == "in":
                    v = v & Cat(*[_within(self.idx[p.depth], lo, hi, trips[p.depth])
                                  for lo, hi in p.runs(p.depth, trips[p.depth])]).any()
                    continue
                for d, trip in enumerate(trips):
                    lo, hi = p.span(d, trip)
                    if lo == hi:
                        v = v & (self.idx[d] == lo)
                    elif hi < trip - 1:
                        v = v & (self.idx[d] <= hi)     # ``below``: lo is 0
            sig = Signal(name=f"c{gi}_" + "_".join(_label(p, trips) for p in pred))
            self.m.d.comb += sig.eq(v)
            self.lines.define(line, sig)
        return line


def _within(idx, lo, hi, trip):
    """``lo <= idx <= hi`` for a counter below ``trip``, without a comparison that always
    holds."""
    if lo == hi:
        return idx == lo
    return (idx >= lo if lo else Const(1)) & (idx <= hi if hi < trip - 1 else Const(1))


def _label(p, trips):
    """A predicate in a signal name: ``first2``, ``at1_3``, ``mod2_2_0`` for ``mod`` ``(2,
    (0,))``, ``in1_0t3_7`` for iterations 0 to 3 and 7 (cut short)."""
    if p.kind == "in":
        return f"in{p.depth}" + "".join(f"_{lo}" if lo == hi else f"_{lo}t{hi}"
                                        for lo, hi in p.runs(p.depth, trips[p.depth]))[:20]
    return f"{p.kind}{p.depth}" + _value(p.value)


def _value(value):
    if value is None:
        return ""
    if isinstance(value, tuple):
        return "".join(_value(v) for v in value)
    return f"_{value}"
