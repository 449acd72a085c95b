"""rtl.float_sum: the accumulator's hardware gives ``ir.accumulate``'s total bit for bit, for
runs shorter and longer than its lanes, back to back, with random stalls."""
import random

import pytest
from amaranth.sim import Simulator

from hwgen.ir import accumulate, floats
from hwgen.ir.types import bfloat16, float16, float32
from hwgen.rtl.float_sum import FloatSum


def _terms(fmt, n, rng):
    """Mostly ordinary values, some random bit patterns (NaNs, infinities, subnormals)."""
    return [rng.getrandbits(fmt.bits) if rng.random() < 0.2
            else floats.encode(rng.uniform(-4, 4), fmt) for _ in range(n)]


def _expected(fmt, run, starts, terms):
    totals = []
    for r, start in enumerate(starts):
        sums = accumulate.start(start, fmt)
        for q in range(run):
            accumulate.add(sums, q, terms[r * run + q], fmt)
        totals.append(accumulate.total(sums[:accumulate.used(run)], fmt))
    return totals


@pytest.mark.parametrize("fmt", [float32, bfloat16, float16], ids=lambda f: f.name)
@pytest.mark.parametrize("run", [1, 2, 5, 6, 7, 15, 16, 17, 40])
def test_totals_equal_the_interpreters(fmt, run):
    rng = random.Random(run)
    dut = FloatSum(fmt, run)
    runs = 4
    starts, terms = _terms(fmt, runs, rng), _terms(fmt, run * runs, rng)
    got = []

    async def bench(ctx):
        ctx.set(dut.first_next, 1)          # the flags of the first term, a clock early
        ctx.set(dut.en, 1)
        await ctx.tick()
        i = 0
        while i < run * runs + dut.LATENCY:
            en = rng.random() < 0.7
            ctx.set(dut.en, en)
            if i < run * runs:
                ctx.set(dut.term, terms[i])
                ctx.set(dut.start, starts[i // run])
            p = (i + 1) % run               # the flags of the next term
            ctx.set(dut.first_next, p == 0)
            ctx.set(dut.fresh_next, 0 < p < accumulate.LANES)
            ctx.set(dut.last_next, p == run - 1)
            last = i - dut.LATENCY      # the update whose total is at the output now
            if en and last >= 0 and last % run == run - 1:
                got.append(ctx.get(dut.total))
            await ctx.tick()
            i += en

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == _expected(fmt, run, starts, terms)


@pytest.mark.parametrize("params", [{"R": 2, "N": 7}, {"R": 3, "N": 13}, {"R": 1, "N": 2}])
def test_float_sums_in_loops_in_sequence(params):
    """tests/programs/float_phases.py: a float sum in one phase of a loop nest, read right
    after its loop and in a later loop (from the register its total is kept in), as hardware
    in Amaranth's simulator equal to the interpreter bit for bit, with and without
    back-pressure; the first problem takes expected_cycles."""
    import numpy as np

    from hwgen.ir.interp import run
    from hwgen.pipeline import load_design
    from hwgen.rtl.simhelpers import run_top
    from hwgen.rtl.top import Top
    from hwgen.schedule import plan
    from tests.conftest import program, random_inputs

    graph = load_design(program("float_phases"), params)
    problems = [random_inputs(graph, seed, extreme=(seed == 0)) for seed in range(3)]
    top = Top(plan(graph))
    outs, cycles, _ = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    slow, _, _ = run_top(top, problems, in_gap=0.3, out_gap=0.4, seed=2)
    for p, inputs in enumerate(problems):
        for name, value in run(graph, inputs).items():
            assert np.array_equal(outs[p][name], value), (p, name)
            assert np.array_equal(slow[p][name], value), (p, name, "back-pressure")
