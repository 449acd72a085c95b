"""Multiplies: the behavioural lowering is x * y ``MULT_STAGES`` enabled cycles later (Amaranth's
simulator against Python), and the MULT18X18D lowering equals it cycle by cycle (Icarus, the
block's simulation model, random and exhaustive operands with the enable toggling)."""
import random
import shutil
import subprocess

import pytest
from amaranth.back import verilog
from amaranth.hdl import Module, Signal, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hwgen.rtl.multiply import fits_dsp, multiply
from hwgen.rtl.target import check_target, sim_models
from hwgen.schedule.levels import MULT_STAGES


class Mul(wiring.Component):
    """``p = x * y`` through `multiply` for ``target`` ("fabric", "fabric_ecp5": in logic)."""

    def __init__(self, x_shape, y_shape, target):
        self.target = target
        shape = (Signal(x_shape) * Signal(y_shape)).shape()
        super().__init__({"x": In(x_shape), "y": In(y_shape), "en": In(1), "p": Out(shape)})

    def elaborate(self, platform):
        m = Module()
        fabric = self.target.startswith("fabric")
        target = self.target.removeprefix("fabric_") if fabric else self.target
        m.d.comb += self.p.eq(multiply(m, self.x, self.y, self.en, "mul",
                                       "generic" if target == "fabric" else target, fabric))
        return m


def test_behavioural_product_is_mult_stages_enabled_cycles_late():
    dut = Mul(signed(8), unsigned(8), "generic")
    rng = random.Random(1)
    stimulus = [(rng.randrange(-128, 128), rng.randrange(256), rng.random() < 0.7)
                for _ in range(200)]

    async def bench(ctx):
        issued = []                 # products in flight, oldest first
        for x, y, en in stimulus:
            ctx.set(dut.x, x)
            ctx.set(dut.y, y)
            ctx.set(dut.en, en)
            if len(issued) >= MULT_STAGES:
                assert ctx.get(dut.p) == issued[-MULT_STAGES]
            if en:
                issued.append(x * y)
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


TB = """
module tb;
  reg clk = 0, en = 0;
  reg [{xw}-1:0] x = 0;
  reg [{yw}-1:0] y = 0;
  wire [{pw}-1:0] p_generic, p_other;
  generic_mul g(.clk(clk), .rst(1'b0), .x(x), .y(y), .en(en), .p(p_generic));
  {other}_mul d(.clk(clk), .rst(1'b0), .x(x), .y(y), .en(en), .p(p_other));
  integer i, j = 0, errors = 0, checked = 0;
  initial begin
    // j counts the operand pairs the enable let in; the loop ends when {n} have entered.
    for (i = 0; j < {n}; i = i + 1) begin
      x = {x_expr}; y = {y_expr}; en = ($random & 3) != 0;
      #1 clk = 1; #1 clk = 0; #1;
      if (en) j = j + 1;
      if (i > 4) begin
        checked = checked + 1;
        if (p_generic !== p_other) errors = errors + 1;
      end
    end
    $display("checked=%0d errors=%0d", checked, errors);
    $finish;
  end
endmodule
"""


needs_icarus = pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")


def _compare(tmp_path, x_shape, y_shape, n, exhaustive=False, other="ecp5"):
    """Icarus runs the behavioural lowering and ``other`` side by side; returns (checked,
    errors)."""
    files = []
    for target in ("generic", other):
        path = tmp_path / f"{target}.v"
        path.write_text(verilog.convert(Mul(x_shape, y_shape, target), name=f"{target}_mul",
                                        emit_src=False))
        files.append(str(path))
    text = (tmp_path / f"{other}.v").read_text()
    assert ("MULT18X18D" in text) == (other == "ecp5" and fits_dsp(Signal(x_shape),
                                                                    Signal(y_shape)))
    assert not other.startswith("fabric") or " * " not in text
    assert ("CCU2C" in text) == (other == "fabric_ecp5" and y_shape.width > 1)
    xw, yw = x_shape.width, y_shape.width
    pw = (Signal(x_shape) * Signal(y_shape)).shape().width
    x_expr, y_expr = ("j", f"j >> {xw}") if exhaustive else ("$random", "$random")
    (tmp_path / "tb.v").write_text(TB.format(xw=xw, yw=yw, pw=pw, n=n, x_expr=x_expr,
                                             y_expr=y_expr, other=other))
    subprocess.run(["iverilog", "-g2005", "-s", "tb", "-o", str(tmp_path / "tb.vvp"), str(tmp_path / "tb.v"),
                    *files, *sim_models("ecp5")], check=True)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "tb.vvp")], capture_output=True,
                         text=True, check=True).stdout
    line = next(s for s in out.splitlines() if s.startswith("checked="))
    checked, errors = (int(f.split("=")[1]) for f in line.split())
    return checked, errors


@needs_icarus
@pytest.mark.parametrize("x_shape,y_shape", [
    (signed(8), signed(8)), (unsigned(8), signed(8)), (signed(18), signed(18)),
    (unsigned(17), unsigned(17)), (signed(4), unsigned(3)),
    (signed(20), signed(8)),        # does not fit one block: logic on both targets
])
def test_mult18x18d_equals_the_behavioural_model(tmp_path, x_shape, y_shape):
    checked, errors = _compare(tmp_path, x_shape, y_shape, 3000)
    assert checked > 3000 and errors == 0


@needs_icarus
def test_mult18x18d_equals_the_behavioural_model_on_every_int8_pair(tmp_path):
    checked, errors = _compare(tmp_path, signed(8), signed(8), 1 << 16, exhaustive=True)
    assert checked > 1 << 16 and errors == 0


@needs_icarus
@pytest.mark.parametrize("x_shape,y_shape", [
    (signed(8), signed(8)), (unsigned(8), signed(8)), (signed(8), unsigned(8)),
    (unsigned(8), unsigned(8)), (signed(8), signed(4)), (unsigned(4), signed(8)),
    (signed(2), signed(2)), (signed(8), unsigned(1)), (signed(3), signed(5)),
    (unsigned(5), signed(3))])
@pytest.mark.parametrize("other", ["fabric", "fabric_ecp5"])
def test_a_product_in_logic_equals_the_behavioural_model_on_every_pair(tmp_path, x_shape,
                                                                       y_shape, other):
    """Exhaustive for operands up to 8 bits, signed, unsigned and mixed, the enable toggling:
    the same value on the same cycle, and no ``*`` left for Yosys to give a DSP block."""
    pairs = 1 << (x_shape.width + y_shape.width)         # and a few more: every pair's
    checked, errors = _compare(tmp_path, x_shape, y_shape, pairs + 16, exhaustive=True,
                               other=other)              # product comes out and is checked
    assert checked > pairs and errors == 0


@needs_icarus
@pytest.mark.parametrize("other", ["fabric", "fabric_ecp5"])
def test_a_wide_product_in_logic_equals_the_behavioural_model(tmp_path, other):
    checked, errors = _compare(tmp_path, signed(18), unsigned(16), 3000, other=other)
    assert checked > 3000 and errors == 0


def test_unknown_target_is_refused():
    with pytest.raises(ValueError, match="unknown target 'xilinx'; use one of generic, ecp5"):
        check_target("xilinx")
