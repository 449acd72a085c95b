"""The float units alone on ECP5-85k: Fmax, LUTs, flip-flops and DSP blocks of each of
``rtl.float_units``' multiplier, adder and divider, and of a multiply-accumulate (multiplier and
``rtl.float_sum``), for float32 and bfloat16, with registered inputs and output (Yosys +
nextpnr, one seed), and nextpnr's critical path. About 15 minutes.

    .venv/bin/python benchmarks/float_units.py [--seed 1] [--out build/float_units]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from amaranth.back import verilog  # noqa: E402
from amaranth.hdl import Module, Mux, Signal  # noqa: E402
from amaranth.lib import wiring  # noqa: E402
from amaranth.lib.wiring import In, Out  # noqa: E402

from hwgen.flow import pnr  # noqa: E402
from hwgen.ir.types import bfloat16, float32  # noqa: E402
from hwgen.rtl.float_sum import FloatSum  # noqa: E402
from hwgen.rtl.float_units import FloatAdder, FloatDivider, FloatMultiplier  # noqa: E402


class Registered(wiring.Component):
    """A unit between registers, so that its paths, not the pins', are measured."""

    def __init__(self, unit):
        self.unit = unit
        bits = unit.fmt.bits
        super().__init__({"a": In(bits), "b": In(bits), "en": In(1), "result": Out(bits)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = unit = self.unit
        a, b, en = Signal.like(self.a), Signal.like(self.b), Signal()
        m.d.sync += [a.eq(self.a), b.eq(self.b), en.eq(self.en), self.result.eq(unit.result)]
        m.d.comb += [unit.a.eq(a), unit.b.eq(b), unit.en.eq(en)]
        return m


class MAC(wiring.Component):
    """A float multiply-accumulate as the datapath builds one: the product into a
    ``FloatSum`` of runs of ``RUN`` terms, a counter giving its run flags."""

    RUN = 64

    def __init__(self, fmt):
        self.fmt = fmt
        self.mul, self.sum = FloatMultiplier(fmt), FloatSum(fmt, self.RUN)
        self.LATENCY = self.mul.LATENCY + self.sum.LATENCY
        super().__init__({"a": In(fmt.bits), "b": In(fmt.bits), "en": In(1),
                          "result": Out(fmt.bits)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mul, m.submodules.sum = mul, acc = self.mul, self.sum
        count = Signal(range(self.RUN))         # the position of the next term in its run
        with m.If(self.en):
            m.d.sync += count.eq(Mux(count == self.RUN - 1, 0, count + 1))
        m.d.comb += [mul.a.eq(self.a), mul.b.eq(self.b), mul.en.eq(self.en),
                     acc.term.eq(mul.result), acc.start.eq(0), acc.en.eq(self.en),
                     acc.first_next.eq(count == 0), acc.fresh_next.eq((count > 0) & (count < 6)),
                     acc.last_next.eq(count == self.RUN - 1), self.result.eq(acc.total)]
        return m


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="nextpnr seed (default 1)")
    parser.add_argument("--out", default="build/float_units", help="work folder")
    args = parser.parse_args(argv)
    units = [("multiply float32", FloatMultiplier(float32)), ("add float32", FloatAdder(float32)),
             ("multiply bfloat16", FloatMultiplier(bfloat16)),
             ("add bfloat16", FloatAdder(bfloat16)), ("divide float32", FloatDivider(float32)),
             ("divide bfloat16", FloatDivider(bfloat16)), ("MAC float32", MAC(float32)),
             ("MAC bfloat16", MAC(bfloat16))]
    print("| unit | latency | Fmax MHz | LUT | FF | DSP | critical path |\n|---|---|---|---|---|---|---|")
    for name, unit in units:
        work = os.path.join(args.out, name.replace(" ", "_"))
        os.makedirs(work, exist_ok=True)
        with open(os.path.join(work, "top.v"), "w") as f:
            f.write(verilog.convert(Registered(unit), name="top"))
        r = pnr.timing(work, ["top.v"], "top", "ecp5-85k", 200, seeds=(args.seed,))
        u = r["used"]
        print(f"| {name} | {unit.LATENCY} | {r['fmax_mhz']:.1f} | {u['LUT']} | {u['FF']} | "
              f"{u['DSP']} | {pnr.describe_path(r['critical_path'])} |", flush=True)


if __name__ == "__main__":
    main()
