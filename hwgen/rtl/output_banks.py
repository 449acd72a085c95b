"""Output buffer in memories: each bank holds ``slots`` problems; the host side walks the tensor
in row-major order, reading one element per beat through a mux tree over the memories. A row
of banks (along the innermost shard dimension) shares one memory and one write port where the
schedule never writes two of them in one cycle (``schedule.shared_rows``).

A read takes two cycles before the mux (``schedule.host_timing.BANK_DRAIN_LATENCY``): the
memory's read, then a data register beside each memory, so that a block RAM's slow
clock-to-output ends at a flip-flop next to it rather than crossing the mux tree to the host
port in the same cycle. On ECP5 a memory Yosys would put in block RAM is built from DP16KD
blocks whose output register is that data register (``rtl.block_ram``): Yosys leaves it unused,
and maps a 32-bit bank to a PDPW16KD whose read-before-write it emulates with a bypass LUT
after the block's clock-to-output."""
from functools import reduce

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import memory
from amaranth.utils import ceil_log2

from ..schedule.shared_rows import output_memories
from .arith import mux_tree
from .block_ram import DP16KDMemory, uses_dp16kd
from .output_buffer import OutputBuffer
from .signatures import address, shape_of
from .walk import BeatWalk, SlotCounter, sub_address


class OutputBanks(OutputBuffer):
    """Memory banks -> host stream (see ``OutputBuffer``); with ``shared_rows``, one memory
    per row of banks, whose writers never write in the same cycle; ``target``
    (``rtl.target.TARGETS``) decides where the memories are DP16KD blocks."""

    def __init__(self, tensor, banking, writers, lanes=1, slots=2, shared_rows=False,
                 target="generic"):
        super().__init__(tensor, banking, writers, lanes, slots)
        self._target = target
        self._memories, self._row, self._entries = output_memories(banking, slots, shared_rows)

    row = property(lambda self: self._row, doc="Banks per memory: bank ``b`` is in memory "
                   "``b // row``, at its addresses with ``b % row`` above them.")

    def elaborate(self, platform):
        m = Module()
        depth = self.banking.depth
        full, issued = Signal(self.slots, name="full"), Signal(self.slots, name="issued")
        # A slot is issued (its reads started) from ``iss_slot`` and retired (its last beat
        # taken) at ``rd_slot``: the next problem's reads follow the last one's without a gap.
        next_slot, commit_slot, iss_slot, rd_slot = (
            SlotCounter(m, self.slots, n) for n in ("next_slot", "commit_slot", "iss_slot",
                                                    "rd_slot"))
        walk = BeatWalk(m, self.banking, 1, 1, "dr")
        advance, issue = Signal(), Signal()
        valid1, last1, last_q = Signal(), Signal(), Signal()
        row = self._row
        bank1, bank_q = (Signal(range(self._memories), name=n) for n in ("bank1", "bank_q"))
        full_next, issued_next, space = Signal(self.slots), Signal(self.slots), Signal(init=1)
        m.d.comb += [self.space.eq(space), full_next.eq(full), issued_next.eq(issued),
                     advance.eq(~self.host.valid | self.host.ready),
                     issue.eq(full.bit_select(iss_slot.value, 1) &
                              ~issued.bit_select(iss_slot.value, 1) & advance)]
        sub = walk.shard[-1] if row > 1 else Const(0, 0)
        addr = Cat(sub_address(walk.address, 1, depth), sub, iss_slot.value)
        data = [self._bank(m, r, addr, advance) for r in range(self._memories)]
        m.d.comb += self.host.payload.eq(mux_tree(data, bank_q))
        with m.If(advance):
            m.d.sync += [valid1.eq(issue), last1.eq(walk.last),
                         bank1.eq(walk.row() if row > 1 else walk.bank()),
                         self.host.valid.eq(valid1), last_q.eq(last1), bank_q.eq(bank1)]
        with m.If(issue):
            walk.step()
            with m.If(walk.last):
                m.d.comb += issued_next.bit_select(iss_slot.value, 1).eq(1)
                iss_slot.advance()
        with m.If(self.start):
            next_slot.advance()
        with m.If(self.commit):
            m.d.comb += full_next.bit_select(commit_slot.value, 1).eq(1)
            commit_slot.advance()
        with m.If(self.host.valid & self.host.ready & last_q):
            m.d.comb += [full_next.bit_select(rd_slot.value, 1).eq(0),
                         issued_next.bit_select(rd_slot.value, 1).eq(0)]
            rd_slot.advance()
        # ``space`` is a register computed from the next state (see InputBuffer.loaded).
        m.d.comb += self.space_next.eq(~full_next.bit_select(next_slot.following(self.start), 1))
        m.d.sync += [full.eq(full_next), issued.eq(issued_next), space.eq(self.space_next)]
        return m

    def _bank(self, m, r, addr, advance):
        """Memory ``r``, read at ``addr`` when ``advance``: its data two advancing cycles later,
        registered beside it (on ECP5 in blocks, in the block's own output register)."""
        shape = shape_of(self.tensor.dtype)
        if uses_dp16kd(self._entries, shape.width, 1, self._target, output=True):
            mem = DP16KDMemory(shape, self._entries, write_ahead=False)
        else:
            mem = memory.Memory(shape=shape, init=[], depth=self._entries)
        m.submodules[f"bank{r}"] = mem
        self._write(m, mem, r)
        rp = mem.read_port()
        m.d.comb += [rp.addr.eq(addr), rp.en.eq(advance)]
        q = Signal(shape, name=f"bank{r}_q")
        if isinstance(mem, DP16KDMemory):
            m.d.comb += q.eq(rp.data)
        else:
            with m.If(advance):
                m.d.sync += q.eq(rp.data)
        return q

    def _write(self, m, mem, r):
        """The write ports of memory ``r``: one per writer, or with shared rows one for the
        row, its writers' address (above it their bank in the row), data and enable or-ed
        together: at most one of them writes in a cycle."""
        row, depth = self._row, self.banking.depth
        ports = [(b % row, self.write_port(k)) for k, b in enumerate(self.writers)
                 if b // row == r]
        if row == 1:
            for _, port in ports:
                wp = mem.write_port()
                m.d.comb += [wp.addr.eq(Cat(address(port), port.slot)),
                             wp.data.eq(port.data), wp.en.eq(port.en)]
            return
        if not ports:
            return
        wp = mem.write_port()
        m.d.comb += [
            wp.en.eq(_either(p.en for _, p in ports)),
            wp.addr.eq(_either(Mux(p.en, Cat(Value.cast(p.addr)[:ceil_log2(depth)],
                                            Const(sub, ceil_log2(row)), p.slot), 0)
                              for sub, p in ports)),
            wp.data.eq(_either(Mux(p.en, p.data, 0) for _, p in ports))]


def _either(values):
    return reduce(lambda a, b: a | b, values)
