"""Banked on-chip buffers between the host streams and the compute groups.

``InputBuffer`` writes a tensor arriving in row-major order, one element per beat, into one
memory bank per shard of its layout; compute groups read the banks through synchronous read
ports. ``OutputBuffer`` is written by the groups and streams the tensor back in row-major order.
"""
from amaranth.hdl import Const, Module, Mux, Signal, Value, unsigned
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out

from . import ports
from .ports import shape_of


# Banks up to this depth are read combinationally (they map to registers or LUT RAM).
SMALL_BANK = 16


class _RowMajorWalk:
    """Counters walking a tensor in row-major order: shard index and offset per dimension."""

    def __init__(self, m, banking, name):
        self.m = m
        self.banking = banking
        self.offset = [Signal(range(e), name=f"{name}_o{d}") for d, e in enumerate(banking.extent)]
        self.shard = [Signal(range(s), name=f"{name}_s{d}") for d, s in enumerate(banking.shards)]
        self.last = Signal(name=f"{name}_last")
        m.d.comb += self.last.eq(_all([o == e - 1 for o, e in zip(self.offset, banking.extent)] +
                                      [s == n - 1 for s, n in zip(self.shard, banking.shards)]))

    @property
    def bank(self):
        b = Const(0)
        for s, n in zip(self.shard, self.banking.shards):
            b = b * n + s if n > 1 else b
        return b

    @property
    def address(self):
        a = Const(0)
        for o, stride in zip(self.offset, self.banking.strides()):
            a = a + o * stride
        return a

    def step(self):
        """Statements that move to the next element (wrapping after the last)."""
        stmts = []
        carry = Const(1)
        for d in reversed(range(len(self.offset))):
            o, s = self.offset[d], self.shard[d]
            e, n = self.banking.extent[d], self.banking.shards[d]
            o_wrap = o == e - 1
            s_wrap = s == n - 1
            with self.m.If(carry):
                self.m.d.sync += o.eq(Mux(o_wrap, 0, o + 1))
                with self.m.If(o_wrap):
                    self.m.d.sync += s.eq(Mux(s_wrap, 0, s + 1))
            carry = carry & o_wrap & s_wrap
        return stmts

    def reset(self):
        return [o.eq(0) for o in self.offset] + [s.eq(0) for s in self.shard]


def mux_tree(values, sel):
    """``values[sel]`` as a balanced tree of 2:1 muxes on the bits of ``sel`` (Yosys maps it
    onto LUT4 + PFUMX + L6MUX; a case statement becomes a much larger one-hot AND-OR)."""
    sel = Value.cast(sel)
    level, bit = list(values), 0
    while len(level) > 1:
        level = [Mux(sel[bit], level[i + 1], level[i]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
        bit += 1
    return level[0]


def _all(terms):
    v = Const(1)
    for t in terms:
        v = v & t
    return v


class InputBuffer(wiring.Component):
    """Host stream -> banks.

    Parameters
    ----------
    tensor : ir.Tensor
    banking : ir.layout.Banking
    readers : list of int
        The bank each read port ``rd<k>`` reads.

    Attributes
    ----------
    host : In(stream.Signature(unsigned(bits)))
        The tensor, row-major, one element per beat, two's complement.
    load : In(1)
        Loading allowed (the banks are not in use).
    loaded : Out(1)
        Every element of the problem has been written; stays high until ``clear``.
    clear : In(1)
    rd<k> : In(read_port)
    """

    def __init__(self, tensor, banking, readers):
        self.tensor, self.banking, self.readers = tensor, banking, list(readers)
        shape = shape_of(tensor.dtype)
        members = {"host": In(stream.Signature(unsigned(tensor.dtype.bits))),
                   "load": In(1), "loaded": Out(1), "clear": In(1)}
        for k, _ in enumerate(self.readers):
            members[f"rd{k}"] = In(ports.read_port(banking.depth, shape))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        banks = []
        for b in range(self.banking.banks):
            mem = memory.Memory(shape=shape, depth=self.banking.depth, init=[])
            m.submodules[f"bank{b}"] = mem
            banks.append(mem)
        walk = _RowMajorWalk(m, self.banking, "ld")
        take = Signal()
        m.d.comb += [self.host.ready.eq(self.load & ~self.loaded), take.eq(self.host.valid &
                                                                        self.host.ready)]
        for b, mem in enumerate(banks):
            wp = mem.write_port()
            m.d.comb += [wp.addr.eq(walk.address), wp.data.eq(self.host.payload),
                         wp.en.eq(take & (walk.bank == b))]
        with m.If(self.clear):
            m.d.sync += self.loaded.eq(0)
        with m.Elif(take):
            walk.step()
            with m.If(walk.last):
                m.d.sync += self.loaded.eq(1)
        for k, b in enumerate(self.readers):
            rp = banks[b].read_port()
            port = getattr(self, f"rd{k}")
            m.d.comb += [rp.addr.eq(port.addr), rp.en.eq(port.en), port.data.eq(rp.data)]
        return m


def chained(banking):
    """One element per bank: the output banks are registers chained in row-major order and the
    drain shifts them out, with no read mux (the expert's output-stationary drain)."""
    return banking.depth == 1


def drain_latency(banking):
    """Cycles from ``OutputBuffer.drain`` rising to the first valid beat."""
    return 0 if chained(banking) else 1


class OutputBuffer(wiring.Component):
    """Banks -> host stream.

    Attributes
    ----------
    host : Out(stream.Signature(unsigned(bits)))
    drain : In(1)
        Start (and keep) streaming the tensor out.
    drained : Out(1)
        The last element has been accepted by the host; stays high until ``clear``.
    clear : In(1)
    wr<k> : In(write_port)
        Written by the compute groups; ``writers[k]`` is its bank.
    """

    def __init__(self, tensor, banking, writers):
        self.tensor, self.banking, self.writers = tensor, banking, list(writers)
        shape = shape_of(tensor.dtype)
        members = {"host": Out(stream.Signature(unsigned(tensor.dtype.bits))),
                   "drain": In(1), "drained": Out(1), "clear": In(1)}
        for k, _ in enumerate(self.writers):
            members[f"wr{k}"] = In(ports.write_port(banking.depth, shape))
        super().__init__(members)

    def elaborate(self, platform):
        if chained(self.banking):
            return self._elaborate_chain()
        m = Module()
        shape = shape_of(self.tensor.dtype)
        walk = _RowMajorWalk(m, self.banking, "dr")
        advance = Signal()      # the output register may take a new element
        issue = Signal()
        issued_all = Signal()
        last_q = Signal()
        m.d.comb += [advance.eq(~self.host.valid | self.host.ready),
                     issue.eq(self.drain & ~issued_all & advance)]
        # Small banks (registers, LUT RAM) are read combinationally and the selected element is
        # registered once; large banks (block RAM) need a synchronous read, then the mux.
        small = self.banking.depth <= SMALL_BANK
        bank_q = Signal(range(self.banking.banks))
        data = []
        for b in range(self.banking.banks):
            mem = memory.Memory(shape=shape, depth=self.banking.depth, init=[])
            m.submodules[f"bank{b}"] = mem
            for k, wb in enumerate(self.writers):
                if wb == b:
                    wp = mem.write_port()
                    port = getattr(self, f"wr{k}")
                    m.d.comb += [wp.addr.eq(port.addr), wp.data.eq(port.data), wp.en.eq(port.en)]
            if small:
                rp = mem.read_port(domain="comb")
                m.d.comb += rp.addr.eq(walk.address)
            else:
                rp = mem.read_port()
                m.d.comb += [rp.addr.eq(walk.address), rp.en.eq(advance)]
            data.append(rp.data)
        selected = mux_tree(data, walk.bank if small else bank_q)
        if small:
            payload = Signal(shape, reset_less=True)
            with m.If(advance):
                m.d.sync += payload.eq(selected)
            selected = payload
        m.d.comb += self.host.payload.eq(selected)
        with m.If(advance):
            m.d.sync += [self.host.valid.eq(issue), bank_q.eq(walk.bank), last_q.eq(walk.last)]
        with m.If(issue):
            walk.step()
            with m.If(walk.last):
                m.d.sync += issued_all.eq(1)
        with m.If(self.host.valid & self.host.ready & last_q):
            m.d.sync += self.drained.eq(1)
        with m.If(self.clear):
            m.d.sync += [self.drained.eq(0), issued_all.eq(0)]
        return m

    def _elaborate_chain(self):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        n = self.banking.banks
        regs = [Signal(shape, reset_less=True, name=f"bank{b}") for b in range(n)]
        sent = Signal(range(n + 1))
        take = Signal()
        m.d.comb += [self.host.valid.eq(self.drain & (sent != n)),
                     self.host.payload.eq(regs[0]),
                     take.eq(self.host.valid & self.host.ready)]
        for b, reg in enumerate(regs):
            with m.If(take):
                if b + 1 < n:
                    m.d.sync += reg.eq(regs[b + 1])
            for k, wb in enumerate(self.writers):
                if wb == b:
                    port = getattr(self, f"wr{k}")
                    with m.Elif(port.en):
                        m.d.sync += reg.eq(port.data)
        with m.If(take):
            m.d.sync += sent.eq(sent + 1)
            with m.If(sent == n - 1):
                m.d.sync += self.drained.eq(1)
        with m.If(self.clear):
            m.d.sync += [self.drained.eq(0), sent.eq(0)]
        return m
