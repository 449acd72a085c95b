"""Banked, double-buffered on-chip buffers between the host streams and the compute groups.

``InputBuffer`` writes a tensor arriving in row-major order, ``lanes`` elements per beat, into
one memory bank per shard of its layout; compute groups read the banks through synchronous read
ports. Each bank holds two problems (halves): the host loads one while the groups read the other.
When a beat puts several elements into one bank, that bank is split cyclically into ``F``
sub-banks (element address ``a`` lives in sub-bank ``a % F`` at ``a // F``) so that every memory
takes one write per beat.

``OutputBuffer`` is written by the groups and streams the tensor back in row-major order. When
every bank holds one element (the output-stationary case) the banks are registers and a second
set of registers forms a shift chain in row-major order: a finished problem moves into the chain
in one cycle and drains while the next problem computes. Otherwise the banks are two-half
memories read through a mux tree.
"""
import math

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value, unsigned
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out

from ..errors import HwgenError
from . import ports
from .arith import mul_const, mux_tree
from .ports import shape_of
from .timing import chained, lane_split


def _all(terms):
    return Cat(*terms).all() if terms else Const(1)


def _log2(n):
    return (n - 1).bit_length()


def _sub_address(address, f, depth):
    """``address // f`` in exactly the bits a sub-bank of ``depth`` entries needs."""
    return (Value.cast(address) >> _log2(f))[:_log2(depth)]


class _SlotCounter:
    """A slot number counting modulo ``slots``."""

    def __init__(self, m, slots, name):
        self.m, self.slots = m, slots
        self.value = Signal(range(max(2, slots)), name=name)

    def advance(self):
        v = self.value
        self.m.d.sync += v.eq(Mux(v == self.slots - 1, 0, v + 1))


class _BeatWalk:
    """Counters walking a tensor in row-major order one beat at a time: per dimension the shard
    index and the offset inside the shard; the innermost dimension steps by ``F`` elements and
    ``G`` shards per beat."""

    def __init__(self, m, banking, f, g, name):
        self.m, self.banking, self.f, self.g = m, banking, f, g
        self.offset = [Signal(range(e), name=f"{name}_o{d}") for d, e in enumerate(banking.extent)]
        self.shard = [Signal(range(s), name=f"{name}_s{d}") for d, s in enumerate(banking.shards)]
        n = len(self.offset)
        steps = [(1, 1)] * (n - 1) + [(f, g)]
        self.wraps = []
        for d in range(n):
            o, s = self.offset[d], self.shard[d]
            fo, gs = steps[d]
            self.wraps.append((o == banking.extent[d] - fo, s == banking.shards[d] - gs, fo, gs))
        self.last = Signal(name=f"{name}_last")
        m.d.comb += self.last.eq(_all([ow & sw for ow, sw, _, _ in self.wraps]))

    def bank(self, lane_bank=0):
        b = Const(0)
        for d, (s, n) in enumerate(zip(self.shard, self.banking.shards)):
            if d == len(self.shard) - 1:
                s = s + lane_bank
            b = mul_const(b, n) + s if n > 1 else b
        return b

    @property
    def address(self):
        """Address inside the bank of the beat's first element for that bank."""
        a = Const(0)
        for o, stride in zip(self.offset, self.banking.strides()):
            a = a + mul_const(o, stride)
        return a

    def step(self):
        carry = Const(1)
        for d in reversed(range(len(self.offset))):
            o, s = self.offset[d], self.shard[d]
            o_wrap, s_wrap, fo, gs = self.wraps[d]
            with self.m.If(carry):
                self.m.d.sync += o.eq(Mux(o_wrap, 0, o + fo))
                with self.m.If(o_wrap):
                    self.m.d.sync += s.eq(Mux(s_wrap, 0, s + gs))
            carry = carry & o_wrap & s_wrap


class InputBuffer(wiring.Component):
    """Host stream -> two-half banks.

    Parameters
    ----------
    tensor : ir.Tensor
    banking : ir.layout.Banking
    readers : list of int
        The bank each read port ``rd<k>`` reads.
    lanes : int
        Elements per host beat.
    slots : int
        Problems the banks hold at once (2: double buffering).

    Attributes
    ----------
    host : In(stream.Signature(unsigned(bits * lanes)))
        The tensor, row-major, element 0 of a beat in the low bits, two's complement.
    loaded : Out(1)
        The slot the next problem will use holds a complete problem.
    start : In(1)
        Pulse: a problem starts on that slot.
    consume : In(1)
        Pulse: the oldest started problem is done reading; its slot may be reloaded.
    rd<k> : In(read_port)
        Reads slot ``rd<k>.slot``; ``data`` follows two enabled cycles after ``addr``.
    """

    def __init__(self, tensor, banking, readers, lanes=1, slots=2):
        self.tensor, self.banking, self.readers, self.lanes = tensor, banking, list(readers), lanes
        self.slots = slots
        self._MustUse__silence = True       # no "never used" warning if the lanes do not fit
        self.f, self.g = lane_split(banking, tensor.shape, lanes)
        self._MustUse__silence = False
        shape = shape_of(tensor.dtype)
        members = {"host": In(stream.Signature(unsigned(tensor.dtype.bits * lanes))),
                   "loaded": Out(1), "start": In(1), "consume": In(1)}
        for k, _ in enumerate(self.readers):
            members[f"rd{k}"] = In(ports.read_port(banking.depth, shape, ports.slot_bits(slots)))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        f, g, bits = self.f, self.g, self.tensor.dtype.bits
        shape = shape_of(self.tensor.dtype)
        sub_depth = self.banking.depth // f
        # The slot is the address MSBs: each slot is padded to a power of two.
        sb = ports.slot_bits(self.slots)
        mems = [[memory.Memory(shape=shape, depth=(1 << sb) << _log2(sub_depth), init=[])
                 for _ in range(f)]
                for _ in range(self.banking.banks)]
        for b, subs in enumerate(mems):
            for s, mem in enumerate(subs):
                m.submodules[f"bank{b}_{s}"] = mem
        # full: the slot holds a problem (loaded, maybe started, not yet consumed);
        # fresh: the slot holds a loaded problem that has not started.
        full, fresh = Signal(self.slots), Signal(self.slots)
        wr_slot, next_slot, free_slot = (_SlotCounter(m, self.slots, n)
                                         for n in ("wr_slot", "next_slot", "free_slot"))
        walk = _BeatWalk(m, self.banking, f, g, "ld")
        take = Signal()
        m.d.comb += [self.host.ready.eq(~full.bit_select(wr_slot.value, 1)),
                     take.eq(self.host.valid & self.host.ready),
                     self.loaded.eq(fresh.bit_select(next_slot.value, 1))]
        sub_addr = Cat(_sub_address(walk.address, f, sub_depth), wr_slot.value)
        for lane in range(self.lanes):
            bank = walk.bank(lane // f)
            data = self.host.payload[lane * bits:(lane + 1) * bits]
            for b, subs in enumerate(mems):
                wp = subs[lane % f].write_port()
                m.d.comb += [wp.addr.eq(sub_addr), wp.data.eq(data),
                             wp.en.eq(take & (bank == b))]
        with m.If(take):
            walk.step()
            with m.If(walk.last):
                m.d.sync += [full.bit_select(wr_slot.value, 1).eq(1),
                             fresh.bit_select(wr_slot.value, 1).eq(1)]
                wr_slot.advance()
        with m.If(self.start):
            m.d.sync += fresh.bit_select(next_slot.value, 1).eq(0)
            next_slot.advance()
        with m.If(self.consume):
            m.d.sync += full.bit_select(free_slot.value, 1).eq(0)
            free_slot.advance()
        for k, b in enumerate(self.readers):
            port = getattr(self, f"rd{k}")
            addr = Value.cast(port.addr)
            datas = []
            for mem in mems[b]:
                rp = mem.read_port()
                m.d.comb += [rp.addr.eq(Cat(_sub_address(addr, f, sub_depth), port.slot)),
                             rp.en.eq(port.en)]
                datas.append(rp.data)
            # The read data (after the sub-bank mux) is registered: read latency 2.
            data = datas[0]
            if f > 1:
                sel = Signal(_log2(f), name=f"rd{k}_sub")
                with m.If(port.en):
                    m.d.sync += sel.eq(addr[:_log2(f)])
                data = mux_tree(datas, sel)
            q = Signal(shape, reset_less=True, name=f"rd{k}_q")
            with m.If(port.en):
                m.d.sync += q.eq(data)
            m.d.comb += port.data.eq(q)
        return m


class OutputBuffer(wiring.Component):
    """Banks -> host stream.

    Attributes
    ----------
    host : Out(stream.Signature(unsigned(bits * lanes)))
    space : Out(1)
        The slot the next problem will write is free.
    start : In(1)
        Pulse: a problem starts.
    commit : In(1)
        Pulse: the oldest started problem finished writing.
    wr<k> : In(write_port)
        Written by the compute groups; ``writers[k]`` is its bank.
    """

    def __init__(self, tensor, banking, writers, lanes=1, slots=2):
        self.tensor, self.banking, self.writers, self.lanes = tensor, banking, list(writers), lanes
        self.slots = slots
        n = math.prod(tensor.shape)
        if lanes < 1 or n % lanes or (lanes > 1 and not chained(banking)):
            raise HwgenError(f"output '{tensor.name}' supports lanes=1"
                             + (f" or a divisor of its {n} elements" if chained(banking) else ""))
        shape = shape_of(tensor.dtype)
        members = {"host": Out(stream.Signature(unsigned(tensor.dtype.bits * lanes))),
                   "space": Out(1), "start": In(1), "commit": In(1)}
        for k, _ in enumerate(self.writers):
            members[f"wr{k}"] = In(ports.write_port(banking.depth, shape, ports.slot_bits(slots)))
        super().__init__(members)

    def elaborate(self, platform):
        return self._chain() if chained(self.banking) else self._memory()

    def _chain(self):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        n, lanes = self.banking.banks, self.lanes
        banks = [Signal(shape, reset_less=True, name=f"bank{b}") for b in range(n)]
        chain = [Signal(shape, reset_less=True, name=f"chain{b}") for b in range(n)]
        full, busy = Signal(), Signal()
        beats = n // lanes
        sent = Signal(range(beats + 1))
        take, load = Signal(), Signal()
        # The banks are free for the next problem once the last result has moved into the
        # chain (or moves this cycle). If a problem is still in flight, the chain must also be
        # idle, so that this problem moves into the chain as soon as it commits, before the next
        # one writes (the group spaces its starts so that writes follow the previous finish).
        in_flight = Signal(range(self.slots + 2))
        m.d.sync += in_flight.eq(in_flight + self.start - self.commit)
        m.d.comb += [self.space.eq((~full | load) & ((in_flight == 0) | ~busy)),
                     load.eq(full & ~busy),
                     self.host.valid.eq(busy),
                     self.host.payload.eq(Cat(*chain[:lanes])),
                     take.eq(self.host.valid & self.host.ready)]
        for b in range(n):
            for k, wb in enumerate(self.writers):
                if wb == b:
                    port = getattr(self, f"wr{k}")
                    with m.If(port.en):
                        m.d.sync += banks[b].eq(port.data)
            with m.If(load):
                m.d.sync += chain[b].eq(banks[b])
            with m.Elif(take):
                if b + lanes < n:
                    m.d.sync += chain[b].eq(chain[b + lanes])
        with m.If(load):
            m.d.sync += [full.eq(0), busy.eq(1), sent.eq(0)]
        with m.Elif(take):
            m.d.sync += sent.eq(sent + 1)
            with m.If(sent == beats - 1):
                m.d.sync += busy.eq(0)
        # A problem may commit in the cycle the previous one moves into the chain.
        with m.If(self.commit):
            m.d.sync += full.eq(1)
        return m

    def _memory(self):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        depth = self.banking.depth
        full = Signal(self.slots)
        next_slot, commit_slot, rd_slot = (_SlotCounter(m, self.slots, n)
                                           for n in ("next_slot", "commit_slot", "rd_slot"))
        sb = ports.slot_bits(self.slots)
        walk = _BeatWalk(m, self.banking, 1, 1, "dr")
        advance, issue, issued_all, last_q = Signal(), Signal(), Signal(), Signal()
        bank_q = Signal(range(self.banking.banks))
        draining = Signal()
        m.d.comb += [self.space.eq(~full.bit_select(next_slot.value, 1)),
                     draining.eq(full.bit_select(rd_slot.value, 1)),
                     advance.eq(~self.host.valid | self.host.ready),
                     issue.eq(draining & ~issued_all & advance)]
        data = []
        for b in range(self.banking.banks):
            mem = memory.Memory(shape=shape, depth=(1 << sb) << _log2(depth), init=[])
            m.submodules[f"bank{b}"] = mem
            for k, wb in enumerate(self.writers):
                if wb == b:
                    wp = mem.write_port()
                    port = getattr(self, f"wr{k}")
                    m.d.comb += [wp.addr.eq(Cat(Value.cast(port.addr), port.slot)),
                                 wp.data.eq(port.data), wp.en.eq(port.en)]
            rp = mem.read_port()
            m.d.comb += [rp.addr.eq(Cat(_sub_address(walk.address, 1, depth), rd_slot.value)),
                         rp.en.eq(advance)]
            data.append(rp.data)
        m.d.comb += self.host.payload.eq(mux_tree(data, bank_q))
        with m.If(advance):
            m.d.sync += [self.host.valid.eq(issue), bank_q.eq(walk.bank()), last_q.eq(walk.last)]
        with m.If(issue):
            walk.step()
            with m.If(walk.last):
                m.d.sync += issued_all.eq(1)
        with m.If(self.start):
            next_slot.advance()
        with m.If(self.commit):
            m.d.sync += full.bit_select(commit_slot.value, 1).eq(1)
            commit_slot.advance()
        with m.If(self.host.valid & self.host.ready & last_q):
            m.d.sync += [full.bit_select(rd_slot.value, 1).eq(0), issued_all.eq(0)]
            rd_slot.advance()
        return m

