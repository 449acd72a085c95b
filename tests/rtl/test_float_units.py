"""rtl.float_units: the pipelined float multiplier and adder equal ``ir.floats`` bit for bit
(specials, subnormals, cancellation, random patterns) in Amaranth's simulator, also when the
pipeline is stalled at random."""
import numpy as np
import pytest
from amaranth.sim import Simulator

from hwgen.ir import floats
from hwgen.ir.types import bfloat16, float16, float32
from hwgen.rtl.float_units import FloatAdder, FloatDivider, FloatMultiplier


def _operands(fmt, n, seed):
    """Specials of both signs against each other, then random, near-cancelling and
    subnormal-sized pairs."""
    top = 1 << (fmt.bits - 1)
    inf = ((1 << fmt.exp) - 1) << fmt.man
    specials = [0, floats.quiet_nan(fmt), inf, inf | 1, 1, (1 << fmt.man) - 1, 1 << fmt.man,
                inf - 1, floats.encode(1.0, fmt)]
    specials += [s | top for s in specials]
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a in specials for b in specials]
    pairs += [tuple(int(v) for v in p) for p in rng.integers(0, 1 << fmt.bits, (n, 2))]
    pairs += [(int(a), int(a) ^ top ^ int(rng.integers(0, 4)))
              for a in rng.integers(0, 1 << fmt.bits, n // 4)]
    pairs += [tuple(int(v) for v in p) for p in rng.integers(0, 1 << (fmt.man + 2), (n // 4, 2))]
    return pairs


def _run(dut, pairs, stall, ports=("a", "b")):
    """The unit's result for every tuple of ``pairs`` (one value per port of ``ports``),
    feeding one per enabled clock; with ``stall``, ``en`` is low on a random third of the
    clocks."""
    rng = np.random.default_rng(3)
    results = []

    async def bench(ctx):
        fed, pending = 0, []            # pending: enabled clocks since each pair went in
        while len(results) < len(pairs):
            en = not stall or rng.random() > 0.33
            ctx.set(dut.en, en)
            if fed < len(pairs):
                for port, value in zip(ports, pairs[fed]):
                    ctx.set(getattr(dut, port), value)
            await ctx.tick()
            if en:
                pending = [c + 1 for c in pending]
                if fed < len(pairs):
                    pending.append(1)
                    fed += 1
            if pending and pending[0] == dut.LATENCY:
                results.append(ctx.get(dut.result))
                pending.pop(0)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return results


@pytest.mark.parametrize("fmt", [float32, bfloat16, float16], ids=lambda f: f.name)
@pytest.mark.parametrize("unit,op", [(FloatMultiplier, "*"), (FloatAdder, "+"),
                                     (lambda fmt: FloatAdder(fmt, subtract=True), "-"),
                                     (FloatDivider, "/")],
                         ids=["mul", "add", "sub", "div"])
def test_bit_exact_with_the_interpreter(fmt, unit, op):
    pairs = _operands(fmt, 1200, seed=len(op) + fmt.bits)
    got = _run(unit(fmt), pairs, stall=op == "+")
    assert len(got) == len(pairs)
    bad = [(hex(a), hex(b), hex(g), hex(floats.operate(op, a, b, fmt)))
           for (a, b), g in zip(pairs, got) if g != floats.operate(op, a, b, fmt)]
    assert not bad, bad[:5]


def test_narrow_multiplier_on_widened_bfloat16():
    """bfloat16 values widened to float32 multiply on one small product, bit-exact."""
    pairs = [(a << 16, b << 16) for a, b in _operands(bfloat16, 1500, seed=11)]
    got = _run(FloatMultiplier(float32, narrow=8), pairs, stall=True)
    bad = [(hex(a), hex(b), hex(g)) for (a, b), g in zip(pairs, got)
           if g != floats.operate("*", a, b, float32)]
    assert not bad, bad[:5]


def test_float_program_in_hardware_equals_the_interpreter():
    """tests/programs/float_ops.py (float32 and bfloat16 multiply, add, subtract, compare,
    select, negate, abs, max) as generated hardware in Amaranth's simulator on random bit
    patterns, with and without back-pressure; the first problem takes expected_cycles."""
    from hwgen.ir.interp import run
    from hwgen.pipeline import load_design
    from hwgen.rtl.simhelpers import run_top
    from hwgen.rtl.top import Top
    from hwgen.schedule import plan
    from tests.conftest import program, random_inputs

    graph = load_design(program("float_ops"), {"N": 5})
    problems = [random_inputs(graph, seed, extreme=(seed == 0)) for seed in range(3)]
    top = Top(plan(graph))
    outs, cycles, _ = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    slow, _, _ = run_top(top, problems, in_gap=0.3, out_gap=0.4, seed=5)
    for p, inputs in enumerate(problems):
        for name, value in run(graph, inputs).items():
            assert np.array_equal(outs[p][name], value), (p, name)
            assert np.array_equal(slow[p][name], value), (p, name, "back-pressure")


def test_comparisons_follow_ieee():
    from amaranth.hdl import Const
    from amaranth.sim import Simulator
    from hwgen.rtl.float_units import float_compare
    from hwgen.ir.floats import COMPARE
    values = [0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 1,
              0x80000001]
    sim = Simulator(__import__("amaranth").hdl.Module())
    results = {}

    async def bench(ctx):
        for a in values:
            for b in values:
                for op in COMPARE:
                    results[a, b, op] = ctx.get(float_compare(op, Const(a, 32), Const(b, 32),
                                                              float32))
    sim.add_testbench(bench)
    sim.run()
    for (a, b, op), got in results.items():
        assert got == floats.operate(op, a, b, float32), (hex(a), hex(b), op)


def test_exp_equals_the_interpreters_and_numpy_within_its_bound():
    """rtl.float_exp computes ir.floats.exp bit for bit (specials, the range edges, random bit
    patterns, with stalls); that stays within 2.5e-4 of numpy where the result is normal."""
    from hwgen.rtl.float_exp import FloatExp
    rng = np.random.default_rng(5)
    xs = [floats.encode(v, float32) for v in (0.0, -0.0, 1.0, -1.0, 88.7, 88.8, -87.3, -87.4,
                                              127.9, 128.0, -128.0, 1e-30, -1e-30)]
    xs += [floats.quiet_nan(float32), 0x7F800000, 0xFF800000, 0x7F800001, 1, 0x80000001]
    uniform = [floats.encode(v, float32) for v in rng.uniform(-90, 90, 600)]
    xs += uniform + [int(v) for v in rng.integers(0, 1 << 32, 400, dtype=np.uint64)]
    got = _run(FloatExp(float32), [(x,) for x in xs], stall=True, ports=("a",))
    bad = [(hex(x), hex(g), hex(floats.exp(x))) for x, g in zip(xs, got) if g != floats.exp(x)]
    assert not bad, bad[:5]
    values = floats.from_bits(np.array([floats.exp(x) for x in uniform]), float32)
    exact = np.exp(floats.from_bits(np.array(uniform), float32).astype(np.float64))
    normal = (exact > 1.2e-38) & (exact < 3.4e38)
    assert np.all(np.abs(values[normal] / exact[normal] - 1) < 2.5e-4)
