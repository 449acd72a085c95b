"""Small combinational building blocks that Yosys maps poorly on its own (on ECP5).

``mux_tree`` selects with a balanced tree of 2:1 muxes: a case statement becomes a one-hot
AND-OR of about 21 LUT4 per bit at 16:1. ``mul_const`` multiplies by a constant with shifts
and adds: a ``$mul`` by a constant that is not a power of two takes a whole DSP block, which
the PE array needs for its multiply-accumulates. ``add_cleared`` adds to a value cleared under
a flag (an accumulator's first term) with the clear inside the carry chain's own LUTs on ECP5:
Yosys puts an AND gate in front of every adder bit. ``table`` computes a function of a few
bits as a truth table: LUTs, where Yosys maps even a 2-bit ``+`` to a carry chain (CCU2C),
whose entry and exit cost more than a LUT level. ``named`` shares an expression's logic among
its uses.
"""
from amaranth.hdl import Cat, Const, Instance, Mux, Shape, Signal, Value

# Input bits of a ``table`` at most: 1,024 entries.
TABLE_BITS = 10


def named(m, value, name):
    """``value`` through a combinational signal: Amaranth builds an expression's logic anew at
    every use, a signal's once."""
    value = Value.cast(value)
    sig = Signal(value.shape(), name=name)
    m.d.comb += sig.eq(value)
    return sig


def table(fn, *values, width):
    """``fn(*values) % 2 ** width``, with ``fn`` evaluated in Python on every combination of the
    values (unsigned integers) and the result selected by their bits: a truth table of at most
    ``TABLE_BITS`` inputs, which Yosys maps to LUTs."""
    values = [Value.cast(v) for v in values]
    index = Cat(*values)
    if len(index) > TABLE_BITS:
        raise ValueError(f"a table of {len(index)} input bits is too large for LUTs "
                         f"(at most {TABLE_BITS})")
    bits = 0
    for i in range(1 << len(index)):
        args, low = [], 0
        for v in values:
            args.append((i >> low) & ((1 << len(v)) - 1))
            low += len(v)
        bits |= (fn(*args) % (1 << width)) << (i * width)
    # One constant indexed by the bits (a shift, ``$shiftx``): a case statement of 1,024
    # entries costs Amaranth and Yosys more time, and the Verilog more lines, for the same LUTs.
    return Const(bits, width << len(index)).word_select(index, width)


def mux_tree(values, sel):
    """``values[sel]`` as a balanced tree of 2:1 muxes on the bits of ``sel``."""
    sel = Value.cast(sel)
    level, bit = list(values), 0
    while len(level) > 1:
        level = [Mux(sel[bit], level[i + 1], level[i]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
        bit += 1
    return level[0]


def csd(c):
    """Canonical signed digits of ``c >= 0``: ``[(sign, shift)]`` with ``c = sum(sign <<
    shift)`` and no two adjacent nonzero digits (the fewest adds and subtracts)."""
    digits, shift = [], 0
    while c:
        if c & 1:
            d = 2 - (c & 3)         # +1 when c = ..01, -1 when c = ..11
            digits.append((d, shift))
            c -= d
        c >>= 1
        shift += 1
    return digits


def mul_const(value, c):
    """``value * c`` for an integer constant ``c >= 0`` as shifts, adds and subtracts."""
    if c == 0:
        return Const(0)
    value = Value.cast(value)
    digits = csd(c)
    plus = [value << s for d, s in digits if d > 0]
    minus = [value << s for d, s in digits if d < 0]
    result = plus[0]
    for term in plus[1:]:
        result = result + term
    for term in minus:
        result = result - term
    return result


# ECP5 CCU2C halves that add A (0 where C is high) and B with the carry in (D tied high):
# propagate ``(A & ~C) ^ B`` (LUT4 bits 8-15), generate ``A & B`` (the LUT2 of bits 0-3: where
# the propagate is low and C high, B is 0, so no carry).
CLEARED_ADD_INIT = 0xC608


def add_cleared(m, a, clear, b, name, target="generic"):
    """``Mux(clear, 0, a) + b`` (Amaranth's width); on ``ecp5`` a chain of CCU2C cells named
    ``name`` whose LUTs clear ``a`` (``models/CCU2C.v`` simulates the cell)."""
    a, b = Value.cast(a), Value.cast(b)
    total = Mux(clear, 0, a) + b
    if target != "ecp5":
        return total
    shape = total.shape()
    width = shape.width + shape.width % 2
    x, y = Signal(Shape(width, shape.signed)), Signal(Shape(width, shape.signed))
    m.d.comb += [x.eq(a), y.eq(b)]
    out = ccu2c_chain(m, [(CLEARED_ADD_INIT, xk, yk, clear, Const(1)) for xk, yk in zip(x, y)],
                      Const(0), name)[:shape.width]
    return out.as_signed() if shape.signed else out


def ccu2c_chain(m, halves, carry, name):
    """The sum bits of a chain of ECP5 CCU2C cells named ``name``: one half per bit,
    ``(init, a, b, c, d)`` (``models/CCU2C.v``: propagate ``init[{d, c, b, a}]``, generate
    ``init[{b, a}]``), the first taking ``carry`` in."""
    width = len(halves)
    halves = list(halves) + [(0, Const(0), Const(0), Const(0), Const(0))] * (width % 2)
    out = Signal(len(halves))
    for k in range(0, len(halves), 2):
        cout = Signal(name=f"{name}_c{k // 2}")
        pair = halves[k:k + 2]
        ports = {f"p_INIT{h}": pair[h][0] for h in (0, 1)}
        ports.update({f"p_INJECT1_{h}": "NO" for h in (0, 1)}, i_CIN=carry)
        ports.update({f"i_{p}{h}": v for h in (0, 1) for p, v in zip("ABCD", pair[h][1:])})
        ports.update({f"o_S{h}": out[k + h] for h in (0, 1)}, o_COUT=cout)
        m.submodules[f"{name}_{k // 2}"] = Instance("CCU2C", **ports)
        carry = cout
    return out[:width]
