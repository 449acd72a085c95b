"""Shift-and-add constant multiplies and mux trees compute what they stand for."""
import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from hwgen.rtl.arith import csd, mul_const, mux_tree


@pytest.mark.parametrize("c", [0, 1, 2, 3, 5, 6, 7, 36, 43, 86, 255, 1000])
def test_csd_digits_sum_to_the_constant(c):
    digits = csd(c)
    assert sum(d << s for d, s in digits) == c
    shifts = sorted(s for _, s in digits)
    assert all(b - a > 1 for a, b in zip(shifts, shifts[1:]))     # never adjacent


def test_mul_const_in_simulation():
    m = Module()
    x = Signal(6)
    consts = [0, 1, 3, 6, 36, 43, 255]
    outs = [Signal(16, name=f"p{c}") for c in consts]
    m.d.comb += [o.eq(mul_const(x, c)) for o, c in zip(outs, consts)]
    sim = Simulator(m)

    async def bench(ctx):
        for v in (0, 1, 5, 37, 63):
            ctx.set(x, v)
            for o, c in zip(outs, consts):
                assert ctx.get(o) == v * c
    sim.add_testbench(bench)
    sim.run()


def test_mux_tree_selects_every_input():
    values = [Signal(8, init=v) for v in (3, 1, 4, 1, 5)]
    sel, out = Signal(3), Signal(8)
    seen = {}
    m = Module()
    m.d.comb += out.eq(mux_tree(values, sel))

    async def tb(ctx):
        for k in range(5):
            ctx.set(sel, k)
            seen[k] = ctx.get(out)

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()
    assert seen == {0: 3, 1: 1, 2: 4, 3: 1, 4: 5}
