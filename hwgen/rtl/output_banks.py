"""Output buffer in memories: each bank holds ``slots`` problems; the host side walks the tensor
in row-major order, reading one element per beat through a mux tree over the memories. A row
of banks (along the innermost shard dimension) shares one memory and one write port where the
schedule never writes two of them in one cycle (``schedule.shared_rows``)."""
from functools import reduce

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import memory
from amaranth.utils import ceil_log2

from ..schedule.shared_rows import output_memories
from .arith import mux_tree
from .output_buffer import OutputBuffer
from .signatures import shape_of
from .walk import BeatWalk, SlotCounter, sub_address


class OutputBanks(OutputBuffer):
    """Memory banks -> host stream (see ``OutputBuffer``); with ``shared_rows``, one memory
    per row of banks, whose writers never write in the same cycle."""

    def __init__(self, tensor, banking, writers, lanes=1, slots=2, shared_rows=False):
        super().__init__(tensor, banking, writers, lanes, slots)
        self._memories, self._row, self._entries = output_memories(banking, slots, shared_rows)

    row = property(lambda self: self._row, doc="Banks per memory: bank ``b`` is in memory "
                   "``b // row``, at its addresses with ``b % row`` above them.")

    def elaborate(self, platform):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        depth = self.banking.depth
        full = Signal(self.slots)
        next_slot, commit_slot, rd_slot = (SlotCounter(m, self.slots, n)
                                           for n in ("next_slot", "commit_slot", "rd_slot"))
        walk = BeatWalk(m, self.banking, 1, 1, "dr")
        advance, issue, issued_all, last_q = Signal(), Signal(), Signal(), Signal()
        row = self._row
        bank_q = Signal(range(self._memories))
        draining = Signal()
        full_next, space = Signal(self.slots), Signal(init=1)
        m.d.comb += [self.space.eq(space), full_next.eq(full),
                     draining.eq(full.bit_select(rd_slot.value, 1)),
                     advance.eq(~self.host.valid | self.host.ready),
                     issue.eq(draining & ~issued_all & advance)]
        data = []
        for r in range(self._memories):
            mem = memory.Memory(shape=shape, init=[], depth=self._entries)
            m.submodules[f"bank{r}"] = mem
            self._write(m, mem, r)
            rp = mem.read_port()
            sub = walk.shard[-1] if row > 1 else Const(0, 0)
            m.d.comb += [rp.addr.eq(Cat(sub_address(walk.address, 1, depth), sub, rd_slot.value)),
                         rp.en.eq(advance)]
            data.append(rp.data)
        m.d.comb += self.host.payload.eq(mux_tree(data, bank_q))
        with m.If(advance):
            m.d.sync += [self.host.valid.eq(issue), last_q.eq(walk.last),
                         bank_q.eq(walk.row() if row > 1 else walk.bank())]
        with m.If(issue):
            walk.step()
            with m.If(walk.last):
                m.d.sync += issued_all.eq(1)
        with m.If(self.start):
            next_slot.advance()
        with m.If(self.commit):
            m.d.comb += full_next.bit_select(commit_slot.value, 1).eq(1)
            commit_slot.advance()
        with m.If(self.host.valid & self.host.ready & last_q):
            m.d.comb += full_next.bit_select(rd_slot.value, 1).eq(0)
            m.d.sync += issued_all.eq(0)
            rd_slot.advance()
        # ``space`` is a register computed from the next state (see InputBuffer.loaded).
        m.d.sync += [full.eq(full_next),
                     space.eq(~full_next.bit_select(next_slot.following(self.start), 1))]
        return m

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
                m.d.comb += [wp.addr.eq(Cat(Value.cast(port.addr), port.slot)),
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
