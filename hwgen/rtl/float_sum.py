"""A float accumulator that takes a term every clock: ``ir.accumulate`` in hardware.

The adder's own ``LANES`` pipeline stages hold the partial sums: each sum leaves the adder just
as the next term for it arrives, and goes straight back in. On the first iteration of a run the
start value goes in instead, and on the next ``LANES - 1`` iterations -0.0 (the partial sums
not yet begun). The last ``LANES`` results of a run are its partial sums; a tree of adders adds
them pairwise in order, while the next run already accumulates.
"""
from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..ir.accumulate import LANES, tree_depth, used
from .float_units import FloatAdder


class FloatSum(wiring.Component):
    """The total of a run of ``run`` terms, ``LATENCY`` enabled clocks after its last term.

    Ports: ``term`` (every enabled clock), ``start`` (taken with a run's first term),
    ``first_next`` (the term of the next enabled clock is a run's first), ``fresh_next`` (it is
    one of the ``LANES - 1`` terms after a first), ``en``, and ``total`` (read it for the run's
    last term only). The flags come a clock early and are registered here, beside the adder:
    taken straight from the controller's shared delay line, they were the critical path.
    """

    def __init__(self, fmt, run):
        self.fmt, self.run = fmt, run
        self.used = used(run)
        self.LATENCY = FloatAdder.LATENCY * (1 + tree_depth(self.used))
        super().__init__({"term": In(fmt.bits), "start": In(fmt.bits), "first_next": In(1),
                          "fresh_next": In(1), "en": In(1), "total": Out(fmt.bits)})

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
        m.d.comb += self.total.eq(sums[0])
        return m

    def _delay(self, m, value, clocks, name):
        """``value`` ``clocks`` enabled clocks later."""
        for k in range(clocks):
            reg = Signal(len(value), name=f"{name}_{k}", reset_less=True)
            with m.If(self.en):
                m.d.sync += reg.eq(value)
            value = reg
        return value
