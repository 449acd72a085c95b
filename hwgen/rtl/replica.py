"""Registered copies of one control bit, so that no flip-flop drives thousands of loads.

A control register that steers a whole array (an output chain's load and shift) is copied,
one copy per few dozen loads; nextpnr places each copy beside its loads, and the long route
moves in front of the copies, where it meets only a LUT. Yosys merges flip-flops with the
same input (``opt_merge``) unless the cell itself is marked ``keep``, and Amaranth can mark
only wires, so on ``ecp5`` each copy is an ``FD1S3AX`` instance marked ``keep``
(``models/FD1S3AX.v`` stands in for it in Icarus and Verilator); other targets build plain
registers (behaviourally the same)."""
from amaranth.hdl import ClockSignal, Instance, ResetSignal, Signal


def copies(m, value_next, count, name, target="generic"):
    """``count`` registers that each take ``value_next`` every cycle (0 in reset, like a
    register whose reset value is 0)."""
    d = Signal(name=f"{name}_d")
    m.d.comb += d.eq(value_next & ~ResetSignal())
    out = [Signal(name=f"{name}_{k}") for k in range(count)]
    for k, q in enumerate(out):
        if target == "ecp5":
            m.submodules[f"{name}_ff{k}"] = Instance(
                "FD1S3AX", a_keep=1, i_CK=ClockSignal(), i_D=d, o_Q=q)
        else:
            m.d.sync += q.eq(d)
    return out
