"""Buffer memories whose reads leave a block RAM through its own output register.

A buffer read takes two enabled cycles: the memory's synchronous read, then a data register. Yosys
0.70 maps memories to ECP5 ``DP16KD`` blocks with ``REGMODE = "NOREG"`` only
(``lattice/brams_map_16kd.v``), so the data register sits in the fabric and every read path starts
with the block's long clock-to-output. With ``REGMODE_B = "OUTREG"`` the same register is the
block's own and the read leaves it at once. ``DP16KDMemory`` builds such a memory from explicit
blocks, on the buffer memories that Yosys would put in block RAM, or in LUT-RAM at a cost of several
cells per block (``schedule.memories.buffer_memory``): port A writes, port B reads, ``CEB``/``OCEB``
the read enable. A word of several elements keeps each element whole in its blocks
(``schedule.memories.dp16kd_columns``), so that a read that picks one element picks it from one
group of blocks. A word of elements of at most 9 bits is written 36 bits wide (pseudo-dual-port
mode, four elements per block) and read 9 bits wide, each block returning the element asked for
(``narrow``): a block then holds more elements of a word than a block read whole, so a buffer takes
fewer blocks and its banks sit closer to the PEs they feed. An input's write, and the address of a
read port that comes a cycle early, are registered in a copy beside each block, so that no one
register drives all the blocks of a bank; an output bank's write (``write_ahead=False``) takes
effect as ``amaranth.lib.memory``'s does, its drain reading a problem the cycle after its last
write. ``models/DP16KD.v`` simulates the block; ``tests/rtl/test_block_ram.py`` holds it equal to
the two-register read of ``amaranth.lib.memory`` (behind a write register where the write comes
ahead, and an address register where the read port has one)."""
from types import SimpleNamespace

from amaranth.hdl import Cat, ClockSignal, Const, Elaboratable, Instance, Module, Mux, Shape, Signal
from amaranth.utils import ceil_log2

from ..schedule.memories import (NARROW_ELEMENTS, PDPW16KD_SHAPE, buffer_memory, dp16kd_shape,
                                 narrow_read)
from .arith import mux_tree
from .replica import copies, kept

# Address bits of a DP16KD port, and how far the element address is shifted up for each data
# width (the low bits of an 18-bit port are its byte enables).
ADDR_BITS = 14
_SHIFT = {1: 0, 2: 1, 4: 2, 9: 3, 18: 4}


def uses_dp16kd(entries, width, reads, target, element=None, output=False):
    """Whether a buffer's memory (an ``output``'s, or an input's) of ``element``-bit elements
    is built from explicit DP16KD blocks on ``target`` (``schedule.memories.buffer_memory``)."""
    return (target == "ecp5" and
            buffer_memory(entries, width, reads, element, output)[0] == "dp16kd")


class DP16KDMemory(Elaboratable):
    """``depth`` words of ``shape`` in DP16KD blocks, each word ``element``-bit elements side
    by side (default: one), each element whole in its blocks: write ports as
    ``amaranth.lib.memory``'s (merged into port A: at most one may be enabled in a cycle),
    taking effect a cycle later where ``write_ahead``, read ports whose ``data`` follows two
    enabled cycles after ``addr`` (read register, output register; three for a port ``ahead``:
    an address register first). Each read port reads its own copy of the blocks, all written
    alike (as Yosys copies a memory per read).

    Attributes
    ----------
    columns : list of range
        The elements of a word in groups, each group in blocks of its own.
    """

    def __init__(self, shape, depth, element=None, write_ahead=True):
        self.shape, self.depth, self.write_ahead = Shape.cast(shape), depth, write_ahead
        self.element = element or self.shape.width
        self._writes, self._reads = [], []
        self.bits, self.rows_depth = dp16kd_shape(depth, self.shape.width, self.element)
        # Written 36 bits wide, read an element at a time (``schedule.memories``).
        self.narrow = narrow_read(self.bits, self.shape.width, self.element)

    @property
    def columns(self):
        """The elements of a word in groups, each group in blocks of its own, in order."""
        per = NARROW_ELEMENTS if self.narrow else max(1, self.bits // self.element)
        n = self.shape.width // self.element
        return [range(lo, min(n, lo + per)) for lo in range(0, n, per)]

    def _spans(self):
        """The bits of a word each column of blocks holds, ``(lo, hi)``."""
        bits, element, width = self.bits, self.element, self.shape.width
        if element > bits and not self.narrow:
            return [(e + j * bits, e + min(element, (j + 1) * bits))
                    for e in range(0, width, element) for j in range(-(-element // bits))]
        return [(c.start * element, c.stop * element) for c in self.columns]

    def write_port(self):
        """A write port; where ``write_ahead``, its ``addr``, ``data`` and ``en`` come a cycle
        early: the memory registers them (with no enable) in a copy beside each block."""
        port = SimpleNamespace(addr=Signal(range(self.depth)), data=Signal(self.shape),
                               en=Signal())
        self._writes.append(port)
        return port

    def read_port(self, ahead=False):
        """A read port; ``ahead``: its address is registered first, in a copy beside each
        block (one more enabled cycle). A ``narrow`` memory's port also takes ``sel``, the
        element of the word to read, with ``addr``: its ``data`` holds the element read from
        each column of blocks (`columns`), column ``c``'s in ``data.word_select(c, element)``
        (only the column holding element ``sel`` read it)."""
        width = len(self.columns) * self.element if self.narrow else self.shape.width
        port = SimpleNamespace(addr=Signal(range(self.depth)), en=Signal(),
                               data=Signal(width), ahead=ahead,
                               sel=Signal(range(max(2, self.shape.width // self.element))))
        self._reads.append(port)
        return port

    def elaborate(self, platform):
        m = Module()
        width = self.shape.width
        # Port A takes the enabled write's address and data; with one write port, its own
        # (no gate that zeroes them while it is idle: the block ignores them then).
        wa, wd, we = Signal(range(self.depth)), Signal(width), Signal()
        writes = self._writes or [self.write_port()]
        addr, data = writes[0].addr, writes[0].data
        for p in writes[1:]:
            addr, data = Mux(p.en, p.addr, addr), Mux(p.en, p.data, data)
        m.d.comb += [wa.eq(addr), wd.eq(data), we.eq(Cat(p.en for p in writes).any())]
        for k, rd in enumerate(self._reads or [self.read_port()]):
            self._copy(m, k, rd, (wa, wd, we))
        return m

    def _copy(self, m, k, rd, write):
        """The blocks read port ``k`` (``rd``) reads, written by ``write`` = (addr, data, en),
        each with its copy of the read address."""
        wa, wd, we = write
        bits, low = self.bits, ceil_log2(self.rows_depth)
        a = len(wa[:low])                   # the write address bits a block takes
        rows, spans = -(-self.depth // self.rows_depth), self._spans()
        tag = f"_rd{k}" if k else ""
        outs = []
        for r in range(rows):
            out = Signal(len(rd.data), name=f"row{r}{tag}")
            row_we = we & (wa[low:] == r) if rows > 1 else we
            for c, (lo, hi) in enumerate(spans):
                raddr = rd.addr[:low]
                if self.narrow:             # the element within the block, below the word
                    raddr = Cat(rd.sel[:ceil_log2(NARROW_ELEMENTS)], raddr)
                if rd.ahead:
                    copy = Signal(len(raddr), reset_less=True, name=f"raddr{r}_{c}{tag}")
                    kept(m, copy, raddr, rd.en, "ecp5")
                    raddr = copy
                w_en, w = row_we, Cat(wa[:low], wd[lo:hi])
                if self.write_ahead:        # this block's copy of the write (enable 0 in reset)
                    w_en = copies(m, w_en, 1, f"we{r}_{c}{tag}", "ecp5")[0]
                    w = copies(m, w, 1, f"w{r}_{c}{tag}", "ecp5", reset=False)[0]
                q = Signal(self.element if self.narrow else hi - lo, name=f"q{r}_{c}{tag}")
                m.submodules[f"ram{r}_{c}{tag}"] = self._block(
                    bits, self.narrow, w[:a], self._slots(w[a:]), w_en, raddr, rd.en, q)
                if self.narrow:
                    m.d.comb += out.word_select(c, self.element).eq(q)
                else:
                    m.d.comb += out[lo:hi].eq(q)
            outs.append(out)
        data = outs[0]
        if rows > 1:
            # The row of a read follows it through its registers.
            row = [Signal(range(rows), name=f"rd{k}_row{n}") for n in range(2 + rd.ahead)]
            with m.If(rd.en):
                m.d.sync += [r.eq(v) for r, v in zip(row, [rd.addr[low:]] + row)]
            data = mux_tree(outs, row[-1])
        m.d.comb += rd.data.eq(data)

    def _slots(self, data):
        """A column's elements as its blocks take them: in a ``narrow`` block, each in a 9-bit
        slot (the read's width), padded after the write's copy (no flip-flop holds a 0)."""
        if not self.narrow:
            return data
        n = len(data) // self.element
        return Cat(Cat(data.word_select(e, self.element), Const(0, 9 - self.element))
                   for e in range(n))

    @staticmethod
    def _block(bits, narrow, waddr, wdata, we, raddr, ren, rdata):
        """One DP16KD: port A writes ``wdata`` at ``waddr``, port B reads ``raddr`` through its
        read and output registers into ``rdata``. At 36 bits (pseudo-dual-port mode, as Yosys
        maps a ``PDPW16KD``): port A writes 36 bits (``DIA`` the low half, ``DIB`` the high
        one, its address bits 0 to 3 the byte enables); port B reads 36 (``DOA`` the low half,
        ``DOB`` the high one), or, ``narrow``, 9: element ``e`` of word ``w`` at ``4 * w + e``
        (``lattice/brams_map_16kd.v``)."""
        pdp = bits == PDPW16KD_SHAPE[0]
        ports = {}
        for letter, addr, width in (("A", waddr, bits), ("B", raddr, 9 if narrow else bits)):
            # An 18- or 36-bit port's low address bits are its byte enables: all on.
            shift = 5 if width == 36 else _SHIFT[width]
            a = Cat(Const(15 if width == 36 else 3 if width == 18 else 0, shift), addr,
                    Const(0, ADDR_BITS))[:ADDR_BITS]
            ports.update({f"i_AD{letter}{k}": a[k] for k in range(ADDR_BITS)})
        d = Cat(wdata, Const(0, 36))[:36]
        q = Signal(36)
        ports.update({f"i_DIA{k}": d[k] for k in range(18)})
        ports.update({f"i_DIB{k}": d[18 + k] if pdp else Const(0) for k in range(18)})
        if pdp and not narrow:
            ports.update({f"o_DOA{k}": q[k] for k in range(18)})
            ports.update({f"o_DOB{k}": q[18 + k] for k in range(18)})
        else:
            ports.update({f"o_DOB{k}": q[k] for k in range(18)})
        ports.update({f"i_CS{p}{k}": Const(0) for p in "AB" for k in range(3)})
        # Pseudo-dual-port mode writes on CEA (a PDPW16KD's CEW); its output registers are
        # both ports' (a PDPW16KD's one REGMODE), enabled with the read.
        block = Instance(
            "DP16KD",
            p_DATA_WIDTH_A=bits, p_DATA_WIDTH_B=9 if narrow else bits,
            p_REGMODE_A="OUTREG" if pdp else "NOREG", p_REGMODE_B="OUTREG",
            p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="NORMAL", p_RESETMODE="SYNC",
            p_CSDECODE_A="0b000", p_CSDECODE_B="0b000", p_GSR="DISABLED",
            i_CLKA=ClockSignal(), i_CEA=we if pdp else Const(1), i_OCEA=ren if pdp else Const(1),
            i_WEA=we,
            i_RSTA=Const(0),
            i_CLKB=ClockSignal(), i_CEB=ren, i_OCEB=ren, i_WEB=Const(0), i_RSTB=Const(0),
            **ports)
        m = Module()
        m.submodules.block = block
        m.d.comb += rdata.eq(q[:len(rdata)])
        return m
