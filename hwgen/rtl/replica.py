"""Registered copies of a control or data value, so that no flip-flop drives hundreds of loads.

A register that steers a whole array (an output chain's load and shift) or feeds every memory
of a buffer (its write address and data) is copied, one copy per group of loads; nextpnr
places each copy beside its loads, and the long route moves in front of the copies, where it
meets fewer loads. Yosys merges flip-flops with the same input (``opt_merge``) unless the cell
itself is marked ``keep``, and Amaranth can mark only wires, so on ``ecp5`` each copied bit is
an ``FD1S3AX`` (``FD1S3IX`` with a synchronous clear) instance marked ``keep``
(``models/FD1S3AX.v``, ``models/FD1S3IX.v`` stand in for them in Icarus and Verilator); other
targets build plain registers (behaviourally the same). ``kept`` builds one
such register with an enable (``FD1P3IX``, ``FD1P3AX``): a copy of a control line that travels
from PE to PE (``rtl.delay``), which Yosys would otherwise merge back into one line."""
import math

from amaranth.hdl import ClockSignal, Instance, Module, ResetSignal, Signal, Value


def copies(m, value_next, count, name, target="generic", reset=True):
    """``count`` registers that each take ``value_next`` every cycle; with ``reset``, 0 in
    reset (like a register whose reset value is 0: on ``ecp5`` the flip-flop's own synchronous
    clear, ``FD1S3IX``, not a LUT in front of every copy), otherwise reset-less."""
    value_next = Value.cast(value_next)
    d = Signal(len(value_next), name=f"{name}_d")
    m.d.comb += d.eq(value_next)
    out = [Signal(len(d), name=f"{name}_{k}", reset_less=not reset) for k in range(count)]
    clear = {"i_CD": ResetSignal()} if reset else {}
    for k, q in enumerate(out):
        if target != "ecp5":
            m.d.sync += q.eq(d)
            continue
        # A copy of several bits is a module of its own: the copies of one value are alike, so
        # the Verilog holds one module of them (``rtl.kinds``) and an instance per copy, not a
        # primitive per bit.
        copy = m if len(d) == 1 else Module()
        if len(d) > 1:
            m.submodules[f"{name}_copy{k}"] = copy
        for i in range(len(d)):
            copy.submodules[f"{name}_ff{k}_{i}"] = Instance(
                "FD1S3IX" if reset else "FD1S3AX", a_keep=1, i_CK=ClockSignal(), i_D=d[i],
                o_Q=q[i], **clear)
    return out


def copies_ahead(m, value_next, count, name, target="generic", reset=True):
    """``count`` registers that each take ``value_next`` two cycles later (with ``reset``, 0 in
    reset): a first rank of about ``sqrt(count)`` copies, each the input of as many copies of
    the second rank. Every copy has a few loads, so that a value travels across the die in two
    hops (``output_chain``, ``input_buffer``, ``skid``)."""
    return ranks(m, value_next, count, name, target, reset)[1]


def ranks(m, value_next, count, name, target="generic", reset=True):
    """``copies_ahead``'s two ranks: the first (``value_next`` a cycle later) and the
    ``count`` copies of the second, for a caller that states what the first rank holds."""
    first = copies(m, value_next, math.isqrt(count - 1) + 1, name, target, reset)
    per = -(-count // len(first))
    return first, [q for k, f in enumerate(first)
                   for q in copies(m, f, per, f"{name}{k}", target, reset=False)][:count]


def later(m, value, cycles, name):
    """``value`` ``cycles`` cycles later, through registers with no enable (0 in reset); the
    last is named ``name``."""
    for c in range(cycles):
        reg = Signal(Value.cast(value).shape(), name=f"{name}{c}" if c < cycles - 1 else name)
        m.d.sync += reg.eq(value)
        value = reg
    return value


def kept(m, q, d, en, target="generic"):
    """``q`` takes ``d`` at each clock edge where ``en`` is high (and its reset value, 0, in
    reset unless it is reset-less), as a register Yosys does not merge on ``ecp5``: an
    ``FD1P3IX`` (clock enable, synchronous clear: the flip-flop's own reset, no LUT) or,
    reset-less, an ``FD1P3AX``."""
    d = Value.cast(d)
    if target != "ecp5":
        with m.If(en):
            m.d.sync += q.eq(d)
        return
    assert q.init == 0, q
    clear = {} if q.reset_less else {"i_CD": ResetSignal()}
    for i in range(len(q)):
        m.submodules[f"{q.name}_ff{i}"] = Instance(
            "FD1P3AX" if q.reset_less else "FD1P3IX", a_keep=1, i_CK=ClockSignal(), i_SP=en,
            i_D=d[i], o_Q=q[i], **clear)
