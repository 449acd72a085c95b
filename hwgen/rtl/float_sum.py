"""A float accumulator that takes a term every clock: ``ir.accumulate`` in hardware.

The adder's own ``LANES`` pipeline stages hold the partial sums: each sum leaves the adder just
as the next term for it arrives, and goes straight back in. On the first iteration of a run the
start value goes in instead, and on the next ``LANES - 1`` iterations -0.0 (the partial sums
not yet begun). The last ``LANES`` results of a run are its partial sums, added pairwise in
order while the next run already accumulates: by a tree of adders, or, for runs of
``SERIAL_RUN`` terms or more, by one adder in five slots.
"""
from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..ir.accumulate import LANES, used
from ..schedule.levels import SERIAL_RUN, sum_stages
from .float_units import FloatAdder


class FloatSum(wiring.Component):
    """The total of a run of ``run`` terms, ``LATENCY`` enabled clocks after its last term.

    Ports: ``term`` (every enabled clock), ``start`` (taken with a run's first term),
    ``first_next`` (the term of the next enabled clock is a run's first), ``fresh_next`` (it is
    one of the ``LANES - 1`` terms after a first), ``last_next`` (it is a run's last; used
    when the sums are added on one adder), ``en``, and ``total`` (read it for the run's last
    term only). The flags come a clock early and are registered here, beside the adder, so
    that the select of the adder's input begins at a flip-flop next to it, not at the
    controller's shared delay line.
    """

    def __init__(self, fmt, run):
        self.fmt, self.run = fmt, run
        self.used = used(run)
        self.LATENCY = sum_stages(run)
        super().__init__({"term": In(fmt.bits), "start": In(fmt.bits), "first_next": In(1),
                          "fresh_next": In(1), "last_next": In(1), "en": In(1),
                          "total": Out(fmt.bits)})

    def elaborate(self, platform):
        m, bits = Module(), self.fmt.bits
        acc = m.submodules.acc = FloatAdder(self.fmt)
        first = self._delay(m, self.first_next, 1, "first")
        fresh = self._delay(m, self.fresh_next, 1, "fresh")
        m.d.comb += [acc.a.eq(Mux(first, self.start,
                                  Mux(fresh, Const(1 << (bits - 1), bits), acc.result))),
                     acc.b.eq(self.term), acc.en.eq(self.en)]
        # The adder's last LANES results: ago[j] came out j enabled clocks ago.
        ago = [acc.result]
        for j in range(1, LANES):
            ago.append(self._delay(m, ago[-1], 1, f"ago{j}"))
        # The run's update q went into partial sum q % LANES; its result came out
        # run - 1 - q clocks before the last one.
        sums = [None] * self.used
        for j in range(LANES):
            q = self.run - 1 - j
            if q >= 0:
                sums[q % LANES] = ago[j]
        total = self._serial(m, sums) if self.run >= SERIAL_RUN else self._tree(m, sums)
        m.d.comb += self.total.eq(total)
        return m

    def _tree(self, m, sums):
        """The partial sums added pairwise in order, a level of adders per round."""
        level = 0
        while len(sums) > 1:
            level += 1
            pairs = []
            for i in range(0, len(sums) - 1, 2):
                add = FloatAdder(self.fmt)
                m.submodules[f"tree{level}_{i // 2}"] = add
                m.d.comb += [add.a.eq(sums[i]), add.b.eq(sums[i + 1]), add.en.eq(self.en)]
                pairs.append(add.result)
            if len(sums) % 2:
                pairs.append(self._delay(m, sums[-1], FloatAdder.LATENCY, f"odd{level}"))
            sums = pairs
        return sums[0]

    def _serial(self, m, sums):
        """``((s0 + s1) + (s2 + s3)) + (s4 + s5)`` on one adder whose operands come from
        registers: the sums are captured when the run's last result comes out; the adder
        starts the pairs in slots 1, 2, 3 after it, ``(s0 + s1) + (s2 + s3)`` in slot A + 3
        and the last add in slot 2A + 4 (A the adder's stages); each slot's operands are
        chosen the slot before. Runs of at least ``SERIAL_RUN`` terms never need the adder
        in the same slot."""
        assert LANES == 6 and len(sums) == LANES
        a_stages, bits = FloatAdder.LATENCY, self.fmt.bits
        last = self._delay(m, self.last_next, 1, "last")
        capture = self._delay(m, last, a_stages, "capture")
        held = [Signal(bits, name=f"held{k}", reset_less=True) for k in range(LANES)]
        with m.If(self.en & capture):
            m.d.sync += [h.eq(v) for h, v in zip(held, sums)]
        slot = [self._delay(m, capture, 1, "slot")]
        for k in range(1, 2 * a_stages + 4):
            slot.append(self._delay(m, slot[-1], 1, f"slot{k}"))
        add = m.submodules.reduce = FloatAdder(self.fmt)
        s01, s45 = (Signal(bits, name=n, reset_less=True) for n in ("s01", "s45"))
        with m.If(self.en & slot[a_stages + 1]):
            m.d.sync += s01.eq(add.result)
        with m.If(self.en & slot[a_stages + 3]):
            m.d.sync += s45.eq(add.result)
        # The operands of the next slot: (s0, s1), (s2, s3), (s4, s5), (s01, s23), (s0123, s45).
        a, b = Signal(bits, name="reduce_a"), Signal(bits, name="reduce_b")
        with m.If(self.en):
            with m.If(slot[0]):
                m.d.sync += [a.eq(held[0]), b.eq(held[1])]
            with m.Elif(slot[1]):
                m.d.sync += [a.eq(held[2]), b.eq(held[3])]
            with m.Elif(slot[2]):
                m.d.sync += [a.eq(held[4]), b.eq(held[5])]
            with m.Elif(slot[a_stages + 2]):
                m.d.sync += [a.eq(s01), b.eq(add.result)]
            with m.Elif(slot[2 * a_stages + 3]):
                m.d.sync += [a.eq(add.result), b.eq(s45)]
        m.d.comb += [add.a.eq(a), add.b.eq(b), add.en.eq(self.en)]
        return add.result

    def _delay(self, m, value, clocks, name):
        """``value`` ``clocks`` enabled clocks later."""
        for k in range(clocks):
            reg = Signal(len(value), name=f"{name}_{k}", reset_less=True)
            with m.If(self.en):
                m.d.sync += reg.eq(value)
            value = reg
        return value
