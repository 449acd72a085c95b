"""Buffer memories whose reads leave a block RAM through its own output register.

A buffer read takes two enabled cycles: the memory's synchronous read, then a data register.
Yosys 0.70 maps memories to ECP5 ``DP16KD`` blocks with ``REGMODE = "NOREG"`` only
(``lattice/brams_map_16kd.v``), so the data register sits in the fabric and every read path
starts with the block's 5.83 ns clock-to-output (nextpnr 0.11, ECP5-85k speed 6): the longest
path of an 8×8 ``gemm_os``. With ``REGMODE_B = "OUTREG"`` the same register is the block's own
and the read leaves it after 0.96 ns. ``DP16KDMemory`` builds such a memory from explicit
blocks, on an input buffer's memories that Yosys would put in block RAM, or in LUT-RAM at a
cost of several cells per block (``schedule.memories.input_memory``): port A
writes, port B reads, ``CEB``/``OCEB`` the read enable. ``models/DP16KD.v`` simulates the
block; ``tests/rtl/test_block_ram.py`` holds it equal to the two-register read of
``amaranth.lib.memory``.
"""
from types import SimpleNamespace

from amaranth.hdl import Cat, ClockSignal, Const, Elaboratable, Instance, Module, Mux, Shape, Signal
from amaranth.utils import ceil_log2

from ..schedule.memories import dp16kd_shape, input_memory
from .arith import mux_tree

# Address bits of a DP16KD port, and how far the element address is shifted up for each data
# width (the low bits of an 18-bit port are its byte enables).
ADDR_BITS = 14
_SHIFT = {1: 0, 2: 1, 4: 2, 9: 3, 18: 4}


def uses_dp16kd(entries, width, reads, target):
    """Whether an input buffer's memory is built from explicit DP16KD blocks on ``target``
    (``schedule.memories.input_memory``)."""
    return target == "ecp5" and input_memory(entries, width, reads)[0] == "dp16kd"


class DP16KDMemory(Elaboratable):
    """``depth`` entries of ``shape`` in DP16KD blocks: write ports as ``amaranth.lib.memory``'s
    (merged into port A: at most one may be enabled in a cycle), read ports whose ``data``
    follows two enabled cycles after ``addr`` (read register, output register). Each read port
    reads its own copy of the blocks, all written alike (as Yosys copies a memory per read)."""

    def __init__(self, shape, depth):
        self.shape, self.depth = Shape.cast(shape), depth
        self._writes, self._reads = [], []

    def write_port(self):
        port = SimpleNamespace(addr=Signal(range(self.depth)), data=Signal(self.shape),
                               en=Signal())
        self._writes.append(port)
        return port

    def read_port(self):
        port = SimpleNamespace(addr=Signal(range(self.depth)), en=Signal(),
                               data=Signal(self.shape))
        self._reads.append(port)
        return port

    def elaborate(self, platform):
        m = Module()
        width = self.shape.width
        bits, rows_depth = dp16kd_shape(self.depth, width)
        # Port A takes the enabled write's address and data; with one write port, its own
        # (no gate that zeroes them while it is idle: the block ignores them then).
        wa, wd, we = Signal(range(self.depth)), Signal(width), Signal()
        writes = self._writes or [self.write_port()]
        addr, data = writes[0].addr, writes[0].data
        for p in writes[1:]:
            addr, data = Mux(p.en, p.addr, addr), Mux(p.en, p.data, data)
        m.d.comb += [wa.eq(addr), wd.eq(data), we.eq(Cat(p.en for p in writes).any())]
        for k, rd in enumerate(self._reads or [self.read_port()]):
            self._copy(m, k, rd, (wa, wd, we), bits, rows_depth)
        return m

    def _copy(self, m, k, rd, write, bits, rows_depth):
        """The blocks read port ``k`` (``rd``) reads, written by ``write`` = (addr, data, en)."""
        wa, wd, we = write
        width, low = self.shape.width, ceil_log2(rows_depth)
        rows, cols = -(-self.depth // rows_depth), -(-width // bits)
        outs = []
        for r in range(rows):
            out = Signal(cols * bits, name=f"row{r}" + (f"_rd{k}" if k else ""))
            row_we = we & (wa[low:] == r) if rows > 1 else we
            for c in range(cols):
                m.submodules[f"ram{r}_{c}" + (f"_rd{k}" if k else "")] = self._block(
                    bits, wa[:low], wd[c * bits:(c + 1) * bits], row_we,
                    rd.addr[:low], rd.en, out[c * bits:(c + 1) * bits])
            outs.append(out[:width])
        data = outs[0]
        if rows > 1:
            # The row of a read follows it through the block's two registers.
            row1, row2 = (Signal(range(rows), name=f"rd{k}_row{n}") for n in (1, 2))
            with m.If(rd.en):
                m.d.sync += [row1.eq(rd.addr[low:]), row2.eq(row1)]
            data = mux_tree(outs, row2)
        m.d.comb += rd.data.eq(data)

    @staticmethod
    def _block(bits, waddr, wdata, we, raddr, ren, rdata):
        """One DP16KD: port A writes ``wdata`` at ``waddr``, port B reads ``raddr`` through its
        read and output registers into ``rdata``."""
        shift = _SHIFT[bits]
        ports = {}
        for letter, addr in (("A", waddr), ("B", raddr)):
            # An 18-bit port's address bits 0 and 1 are its byte enables: both on.
            a = Cat(Const(3 if bits == 18 else 0, shift), addr, Const(0, ADDR_BITS))[:ADDR_BITS]
            ports.update({f"i_AD{letter}{k}": a[k] for k in range(ADDR_BITS)})
        d = Cat(wdata, Const(0, 18))[:18]
        q = Signal(18)
        ports.update({f"i_DIA{k}": d[k] for k in range(18)})
        ports.update({f"i_DIB{k}": Const(0) for k in range(18)})
        ports.update({f"o_DOB{k}": q[k] for k in range(18)})
        ports.update({f"i_CS{p}{k}": Const(0) for p in "AB" for k in range(3)})
        block = Instance(
            "DP16KD",
            p_DATA_WIDTH_A=bits, p_DATA_WIDTH_B=bits, p_REGMODE_A="NOREG", p_REGMODE_B="OUTREG",
            p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="NORMAL", p_RESETMODE="SYNC",
            p_CSDECODE_A="0b000", p_CSDECODE_B="0b000", p_GSR="DISABLED",
            i_CLKA=ClockSignal(), i_CEA=Const(1), i_OCEA=Const(1), i_WEA=we, i_RSTA=Const(0),
            i_CLKB=ClockSignal(), i_CEB=ren, i_OCEB=ren, i_WEB=Const(0), i_RSTB=Const(0),
            **ports)
        m = Module()
        m.submodules.block = block
        m.d.comb += rdata.eq(q[:len(rdata)])
        return m
