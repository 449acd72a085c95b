"""Small combinational building blocks that Yosys maps poorly on its own (on ECP5).

``mux_tree`` selects with a balanced tree of 2:1 muxes: a case statement becomes a one-hot
AND-OR of about 21 LUT4 per bit at 16:1. ``mul_const`` multiplies by a constant with shifts
and adds: a ``$mul`` by a constant that is not a power of two takes a whole DSP block, which
the PE array needs for its multiply-accumulates. ``named`` shares an expression's logic among
its uses.
"""
from amaranth.hdl import Const, Mux, Signal, Value


def named(m, value, name):
    """``value`` through a combinational signal: Amaranth builds an expression's logic anew at
    every use, a signal's once."""
    value = Value.cast(value)
    sig = Signal(value.shape(), name=name)
    m.d.comb += sig.eq(value)
    return sig


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
