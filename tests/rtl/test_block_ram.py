# amaranth: UnusedElaboratable=no
"""Block RAM buffers: a memory of explicit DP16KD blocks (their simulation model, Icarus) reads
exactly what ``amaranth.lib.memory`` behind a write register (where the write comes ahead) and
a data register reads (and an address register for a port ``ahead``), cycle by cycle, under
random writes, reads and enables, at every data width, with several rows of blocks and with
words of several elements, each whole in its blocks."""
import shutil
import subprocess

import pytest
from amaranth.back import verilog
from amaranth.hdl import Module, Signal, unsigned
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from hwgen.rtl.block_ram import DP16KDMemory, uses_dp16kd
from hwgen.schedule.memories import dp16kd_columns
from hwgen.rtl.target import sim_models


class Ram(wiring.Component):
    """One write and one read port; the write takes effect a cycle later where
    ``write_ahead``, ``rdata`` follows two enabled cycles after ``raddr`` (three ``ahead``).
    Where the blocks are ``narrow``, ``rdata`` is the element ``rsel`` of the word (a narrow
    read returns it from its column)."""

    def __init__(self, width, depth, blocks, second=False, element=None, ahead=False,
                 write_ahead=True):
        self.width, self.depth, self.blocks, self.second = width, depth, blocks, second
        self.element, self.ahead, self.write_ahead = element, ahead, write_ahead
        self.narrow = DP16KDMemory(unsigned(width), depth, element).narrow
        elements = width // (element or width)
        super().__init__({"waddr": In(range(depth)), "wdata": In(width), "we": In(1),
                          "raddr": In(range(depth)), "rsel": In(range(max(2, elements))),
                          "ren": In(1), "rdata": Out(element if self.narrow else width)})

    def elaborate(self, platform):
        m = Module()
        if self.blocks:
            m.submodules.mem = mem = DP16KDMemory(unsigned(self.width), self.depth, self.element,
                                                  self.write_ahead)
        else:
            m.submodules.mem = mem = memory.Memory(shape=unsigned(self.width), depth=self.depth,
                                                   init=[])
        wp = mem.write_port()
        if self.second:             # ``rdata`` comes from a second read port (its own copy)
            other = mem.read_port()
            m.d.comb += [other.addr.eq(~self.raddr), other.en.eq(1)]
        rp = mem.read_port(ahead=self.ahead) if self.blocks else mem.read_port()
        m.d.comb += rp.en.eq(self.ren)
        write = [wp.addr.eq(self.waddr), wp.data.eq(self.wdata), wp.en.eq(self.we)]
        if self.blocks or not self.write_ahead:
            m.d.comb += write
        else:       # the blocks register the write, beside each block
            m.d.sync += write
        # The element picked follows the read through its enabled cycles.
        sel = self.rsel
        for n in range(2 + self.ahead):
            delayed = Signal.like(sel, name=f"sel{n}")
            with m.If(self.ren):
                m.d.sync += delayed.eq(sel)
            sel = delayed
        if self.blocks:
            m.d.comb += [rp.addr.eq(self.raddr)]
            if self.narrow:
                m.d.comb += [rp.sel.eq(self.rsel),
                             self.rdata.eq(rp.data.word_select(sel >> 2, self.element))]
            else:
                m.d.comb += self.rdata.eq(rp.data)
        else:
            word = Signal(self.width)
            with m.If(self.ren):
                m.d.sync += word.eq(rp.data)
            m.d.comb += self.rdata.eq(word.word_select(sel, self.element) if self.narrow
                                      else word)
            if self.ahead:
                with m.If(self.ren):
                    m.d.sync += rp.addr.eq(self.raddr)
            else:
                m.d.comb += rp.addr.eq(self.raddr)
        return m


TB = """
module tb;
  reg clk = 0, we = 0, ren = 0;
  reg [{aw}-1:0] waddr = 0, raddr = 0;
  reg [{w}-1:0] wdata = 0;
  reg [{sw}-1:0] rsel = 0;
  wire [{q}-1:0] q_generic, q_blocks;
  generic_ram g(.clk(clk), .rst(1'b0), .waddr(waddr), .wdata(wdata), .we(we), .raddr(raddr),
                .rsel(rsel), .ren(ren), .rdata(q_generic));
  blocks_ram b(.clk(clk), .rst(1'b0), .waddr(waddr), .wdata(wdata), .we(we), .raddr(raddr),
               .rsel(rsel), .ren(ren), .rdata(q_blocks));
  integer i, errors = 0, differ = 0;
  initial begin
    for (i = 0; i < {n}; i = i + 1) begin
      // Writes first fill the memory, then mix with reads; addresses often collide.
      waddr = ($random & 32'h7fffffff) % {depth}; wdata = {{$random, $random, $random, $random}};
      rsel = ($random & 32'h7fffffff) % {elements};
      we = i < {depth} ? 1 : ($random & 1);
      raddr = ($random & 1) ? waddr : ($random & 32'h7fffffff) % {depth};
      ren = ($random & 3) != 0;
      #1 clk = 1; #1 clk = 0; #1;
      // The generic read register starts undefined in Verilog: compare once a read has passed.
      if (i > 2 && q_generic !== q_blocks) begin errors = errors + 1; if (errors < 4) $display("cycle %0d: %h %h", i, q_generic, q_blocks); end
      if (q_generic != 0) differ = differ + 1;
    end
    $display("errors=%0d nonzero=%0d", errors, differ);
    $finish;
  end
endmodule
"""


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")
@pytest.mark.parametrize("width,depth,second,element,ahead,write_ahead", [
    (*case, True) for case in [
    (8, 256, False, None, False), (8, 4096, False, None, False), (18, 1024, False, None, False),
    (16, 3000, False, None, False), (4, 4096, False, None, False), (2, 300, False, None, False),
    (1, 20000, False, None, False), (8, 256, True, None, False),
    (16, 3000, True, None, False), (128, 16, False, 8, True), (24, 2048, False, 8, True),
    (64, 16, True, 32, True), (8, 3000, False, None, True),
    # Written 36 bits wide, read an element at a time: several rows, a second port, 9- and
    # 5-bit elements.
    (128, 16, False, 8, False), (64, 600, True, 8, False), (36, 700, False, 9, True),
    (20, 100, False, 5, False),
    # A word of one element of 19 to 36 bits, written and read 36 bits wide; wider, in two.
    (36, 1500, True, None, True), (27, 100, False, None, False), (40, 100, False, None, False),
]] + [
    # An output bank's memory: the write takes effect as the generic memory's does.
    (32, 128, False, None, False, False), (16, 3000, False, None, False, False),
])
def test_dp16kd_memory_equals_memory_and_register(tmp_path, width, depth, second, element,
                                                    ahead, write_ahead):
    files = []
    for name, blocks in (("generic", False), ("blocks", True)):
        path = tmp_path / f"{name}.v"
        path.write_text(verilog.convert(Ram(width, depth, blocks, second, element, ahead,
                                            write_ahead),
                                        name=f"{name}_ram", emit_src=False))
        files.append(str(path))
    text = (tmp_path / "blocks.v").read_text()
    one_copy = text.count("DP16KD #") // (2 if second else 1)
    assert one_copy and text.count("DP16KD #") == one_copy * (2 if second else 1)
    n = depth + 4000
    ram = Ram(width, depth, False, second, element, ahead)
    elements = width // (element or width)
    (tmp_path / "tb.v").write_text(TB.format(
        aw=max(1, (depth - 1).bit_length()), w=width, depth=depth, n=n, elements=elements,
        sw=len(ram.rsel), q=len(ram.rdata)))
    subprocess.run(["iverilog", "-g2005", "-s", "tb", "-o", str(tmp_path / "tb.vvp"),
                    str(tmp_path / "tb.v"), *files, *sim_models("ecp5")], check=True)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "tb.vvp")], capture_output=True,
                         text=True, check=True).stdout
    line = next(s for s in out.splitlines() if s.startswith("errors="))
    errors, nonzero = (int(f.split("=")[1]) for f in line.split())
    assert errors == 0 and nonzero > n // 5, out


def test_block_rams_are_chosen_where_yosys_would_choose_them_or_lut_ram_costs_a_lot():
    assert uses_dp16kd(256, 8, 1, "ecp5")
    assert not uses_dp16kd(256, 8, 1, "generic") and not uses_dp16kd(256, 8, 1, "ice40")
    assert not uses_dp16kd(32, 8, 1, "ecp5")            # 4 LUT-RAM cells for one block: kept
    assert uses_dp16kd(32, 64, 1, "ecp5")               # 32 cells for 4 blocks (8x8 gemm_os: A)
    assert uses_dp16kd(256, 8, 2, "ecp5")               # two read ports: a copy each
    assert uses_dp16kd(512, 32, 1, "ecp5")              # not a PDPW16KD emulating read-before-write


def test_a_word_of_elements_keeps_each_element_in_one_group_of_blocks():
    # 16 int8 sub-banks (12x12 gemm_os's A): written 36 bits wide, four elements per block in
    # 9-bit slots, four blocks, each reading its own element.
    mem = DP16KDMemory(unsigned(128), 16, 8)
    assert mem.narrow and mem.columns == [range(4 * c, 4 * c + 4) for c in range(4)]
    assert dp16kd_columns(36, 128, 8) == 4 and dp16kd_columns(18, 128, 8) == 8
    assert dp16kd_columns(18, 64, 32) == 4
    # Two elements fill an 18-bit block as they are; one element wider than a block spans
    # blocks of its own; a single element as before.
    assert not DP16KDMemory(unsigned(16), 16, 8).narrow
    assert DP16KDMemory(unsigned(64), 16, 32).columns == [range(0, 1), range(1, 2)]
    assert DP16KDMemory(unsigned(27), 100).columns == [range(0, 1)]
    text = verilog.convert(Ram(128, 16, True, element=8, ahead=True), name="r", emit_src=False)
    # A copy of the read address (4 bits) and element (2) beside each block.
    assert text.count("DP16KD #") == 4 and text.count("FD1P3AX ") == 4 * 6
    # A copy of the write beside each block: its address (4 bits) and four int8, not the 0s
    # that pad them to 9-bit slots.
    assert text.count("FD1S3AX ") == 4 * (4 + 32) and text.count("FD1S3IX ") == 4
    assert text.count(".DATA_WIDTH_A(32'd36)") == 4 and text.count(".DATA_WIDTH_B(32'd9)") == 4
