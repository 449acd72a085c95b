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
any target, with the same registers (``_fabric``: for PEs beyond the DSP blocks; on ECP5 its
first level inside CCU2C carry chains, ``_pairs``).
``tests/rtl/test_multiply.py`` holds the lowerings equal cycle by cycle.
"""
import math

from amaranth.hdl import Cat, ClockSignal, Const, Instance, Mux, Shape, Signal, Value

from .arith import ccu2c_chain

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
        return _fabric(m, x, y, product.shape(), en, name, target)
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


def _fabric(m, x, y, shape, en, name, target):
    """``x * y`` in logic, as a register four enabled cycles after ``x`` and ``y``: the
    operands' registers; the rows ``x & y[i]`` at weight ``2 ** i`` (``y`` the narrower
    operand; the row of the sign bit of a signed ``y`` subtracted), summed pairwise in a tree whose levels are spread evenly over the
    three registers after them (one add each for an 8-bit ``y``). On ``ecp5`` the first level
    forms the rows inside its carry chains' LUTs (``_pairs``). Sums wrap at the product's
    width (``shape``), which holds the product."""
    x, y = Value.cast(x), Value.cast(y)
    if len(y) > len(x):                 # fewer rows
        x, y = y, x
    a = Signal(x.shape(), reset_less=True, name=f"{name}_a")
    b = Signal(y.shape(), reset_less=True, name=f"{name}_b")
    with m.If(en):
        m.d.sync += [a.eq(x), b.eq(y)]
    width = y.shape().width
    level = [(Mux(b[i], a, 0), i) for i in range(width)]
    if y.shape().signed:
        level[-1] = (-level[-1][0], width - 1)
    levels, depth = math.ceil(math.log2(width)), 0
    for stage in (1, 2, 3):
        while depth < math.ceil(stage * levels / 3):
            if depth == 0 and target == "ecp5":
                level = _pairs(m, a, b, shape.width, f"{name}_r")
            else:
                level = [_add(level[k], level[k + 1], shape.width) if k + 1 < len(level)
                         else level[k] for k in range(0, len(level), 2)]
            depth += 1
        regs = []
        for k, (v, at) in enumerate(level):
            v = Value.cast(v)
            keep = min(v.shape().width, shape.width - at)
            r = Signal(shape if stage == 3 else Shape(keep, v.shape().signed),
                       reset_less=True, name=f"{name}_s{stage}_{k}")
            with m.If(en):
                m.d.sync += r.eq(v if stage == 3 else v[:keep])
            regs.append((r, at))
        level = regs
    return level[0][0]


def _add(t, u, width):
    """The sum of two terms ``(value, weight exponent)``, wrapped at ``width`` bits of the
    product: the lower term's bits below the other's pass by the adder."""
    (v, at), (w, up) = sorted((t, u), key=lambda term: term[1])
    v, w = Value.cast(v), Value.cast(w)
    low = up - at
    if v.shape().width <= low:         # the adder starts at ``v``'s extension
        v = _extend(v, low + 1)
    high = v[low:].as_signed() if v.shape().signed else v[low:]
    total = high + w
    bits = Cat(v[:low], total)[:width - at]
    return (bits.as_signed() if total.shape().signed else bits), at


def _extend(v, width):
    """``v`` sign- or zero-extended to ``width`` bits."""
    pad = Const(0, width - v.shape().width)
    if v.shape().signed:
        pad = v[-1].replicate(width - v.shape().width)
    bits = Cat(v, pad)
    return bits.as_signed() if v.shape().signed else bits


def _row_bit(a, j, select):
    """Bit ``j`` of the row ``a & select`` (``a`` extended past its width) as a term of a
    carry chain's half: ``(function of two inputs, input, input)``."""
    if j < 0 or (j >= len(a) and not a.shape().signed):
        return _NO_TERM
    return _AND, a[min(j, len(a) - 1)], select


def _pairs(m, a, b, width, name):
    """Rows ``2k`` and ``2k + 1`` of ``a * b`` added in one CCU2C chain each, the rows' bits
    (``a[j] & b[i]``) formed by the chain's own LUTs: each half adds a term of its inputs
    A, B (its generate, so any function of them) and one of C, D (an AND, zero when both
    are). The sign row of a signed ``b`` goes on A, B inverted, with a carry in of 1; an odd
    row alone is a row of ANDs, or that chain when it is the sign row."""
    terms = []
    for i in range(0, len(b), 2):
        rows = range(i, min(i + 2, len(b)))
        negate = b.shape().signed and rows[-1] == len(b) - 1
        if len(rows) == 1 and not negate:
            terms.append((Mux(b[i], a, 0), i))
            continue
        halves = []
        for j in range(min(len(a) + len(rows), width - i)):
            terms_j = [_row_bit(a, j - (r - i), b[r]) for r in rows]
            if negate:                  # the sign row's complement on A, B; the other on C, D
                terms_j = [_inverted(terms_j[-1])] + terms_j[:-1]
            (f, p, q), (g, r, s) = (terms_j + [_NO_TERM])[:2]
            init = sum((f(k & 1, k >> 1 & 1) ^ g(k >> 2 & 1, k >> 3 & 1)) << k for k in range(16))
            halves.append((init, p, q, r, s))
        total = ccu2c_chain(m, halves, Const(int(negate)), f"{name}{i // 2}")
        terms.append((total.as_signed() if a.shape().signed or negate else total, i))
    return terms


def _inverted(term):
    """A half's term complemented."""
    f, p, q = term
    return (lambda u, v: 1 - f(u, v)), p, q


def _AND(p, q):
    return p & q


def _ZERO(p, q):
    return 0


_NO_TERM = (_ZERO, Const(0), Const(0))      # a half's inputs that add nothing


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
