"""Multiplies of two run-time values, lowered for the target: ``MULT_STAGES`` registers each.

Every product passes three registers that move with the group's enable: the operands, the
product (the pipeline register) and the output; then it lands in a fourth, in the fabric beside
the adder that uses it, so that the route out of the DSP column is a path of its own. On ECP5
the first three are the ``MULT18X18D`` block's own registers (``REG_INPUTA_CLK``,
``REG_INPUTB_CLK``, ``REG_PIPELINE_CLK``, ``REG_OUTPUT_CLK``): an inferred multiply uses none
of them (Yosys never packs fabric registers into the block), and the path register → DSP →
register crosses the fabric twice. Elsewhere, and in Amaranth's simulator, the same registers
are written behaviourally (``synth_ice40 -dsp`` packs the operand and output registers into
``SB_MAC16``; the product register stays in the fabric). Products wider than one block are
behavioural on every target. ``models/MULT18X18D.v`` is the block's simulation model for
Icarus and Verilator (``rtl.target``). ``fabric=True`` builds the product in logic instead, on
any target, with the same registers (``_fabric``: for PEs beyond the DSP blocks).
``tests/rtl/test_multiply.py`` holds the lowerings equal cycle by cycle.
"""
import math

from amaranth.hdl import Cat, ClockSignal, Const, Instance, Mux, Signal, Value

# Operand bits of one MULT18X18D: 18-bit two's complement (unsigned values up to 17 bits).
DSP_BITS = 18


def fits_dsp(x, y):
    """Whether ``x * y`` fits one MULT18X18D: both operands 18 bits once sign-extended."""
    return all(v.shape().width + (not v.shape().signed) <= DSP_BITS for v in (x, y))


def multiply(m, x, y, en, name, target="generic", fabric=False):
    """``x * y`` four enabled cycles (``schedule.levels.MULT_STAGES``) after ``x`` and ``y``,
    as a signal; ``name`` names its registers or its block in ``m``; ``fabric``: in logic."""
    product = Value.cast(x * y)
    if fabric:
        return _fabric(m, x, y, product.shape(), en, name)
    block = Signal(product.shape(), reset_less=True, name=f"{name}_o")
    out = Signal(product.shape(), reset_less=True, name=f"{name}_p")
    if target == "ecp5" and fits_dsp(x, y):
        _mult18x18d(m, x, y, block, en, name)
    else:
        regs = [Signal(v.shape(), reset_less=True, name=f"{name}_{s}")
                for v, s in ((x, "a"), (y, "b"), (product, "m"))]
        with m.If(en):
            m.d.sync += [regs[0].eq(x), regs[1].eq(y), regs[2].eq(regs[0] * regs[1]),
                         block.eq(regs[2])]
    with m.If(en):
        m.d.sync += out.eq(block)
    return out


def _fabric(m, x, y, shape, en, name):
    """``x * y`` in logic, as a register four enabled cycles after ``x`` and ``y``: the
    operands' registers; the partial products ``x << i`` where bit i of ``y`` is set
    (subtracted for the sign bit of a signed ``y``), summed pairwise in a tree whose levels
    are spread evenly over the three registers after them (one add each for an 8-bit ``y``).
    Sums wrap at the product's width (``shape``), which holds the product."""
    x, y = Value.cast(x), Value.cast(y)
    a = Signal(x.shape(), reset_less=True, name=f"{name}_a")
    b = Signal(y.shape(), reset_less=True, name=f"{name}_b")
    with m.If(en):
        m.d.sync += [a.eq(x), b.eq(y)]
    width = y.shape().width
    level = [Mux(b[i], a << i, 0) for i in range(width)]
    if y.shape().signed:
        level[-1] = -level[-1]
    levels, depth = math.ceil(math.log2(width)), 0
    for stage in (1, 2, 3):
        while depth < math.ceil(stage * levels / 3):
            level = [level[k] + level[k + 1] if k + 1 < len(level) else level[k]
                     for k in range(0, len(level), 2)]
            depth += 1
        regs = [Signal(shape, reset_less=True, name=f"{name}_s{stage}_{k}")
                for k in range(len(level))]
        with m.If(en):
            m.d.sync += [r.eq(v) for r, v in zip(regs, level)]
        level = regs
    return level[0]


def _mult18x18d(m, x, y, out, en, name):
    """One MULT18X18D with its input, pipeline and output registers on ``CLK0``/``CE0``; only
    the ``REG_*_CLK`` parameters are set (setting more makes Yosys 0.70 fail inside ABC9)."""
    ports = {}
    for letter, v in (("A", x), ("B", y)):
        v = Value.cast(v)
        pad = DSP_BITS - v.shape().width
        bits = Cat(v, *([v[-1] if v.shape().signed else Const(0, 1)] * pad))
        ports.update({f"i_{letter}{k}": bits[k] for k in range(DSP_BITS)})
    p = Signal(2 * DSP_BITS, name=f"{name}_P")
    ports.update({f"o_P{k}": p[k] for k in range(2 * DSP_BITS)})
    m.submodules[name] = Instance(
        "MULT18X18D",
        p_REG_INPUTA_CLK="CLK0", p_REG_INPUTB_CLK="CLK0", p_REG_PIPELINE_CLK="CLK0",
        p_REG_OUTPUT_CLK="CLK0",
        i_SIGNEDA=Const(1), i_SIGNEDB=Const(1), i_CLK0=ClockSignal(), i_CE0=en, i_RST0=Const(0),
        **ports)
    m.d.comb += out.eq(p[:out.shape().width])
