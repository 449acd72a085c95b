"""Output buffer in memories: each bank holds ``slots`` problems; the host side walks the tensor
in row-major order, reading one element per beat through a mux tree over the banks."""
from amaranth.hdl import Cat, Module, Signal, Value
from amaranth.lib import memory
from amaranth.utils import ceil_log2

from ..schedule.host_timing import slot_bits
from .arith import mux_tree
from .output_buffer import OutputBuffer
from .signatures import shape_of
from .walk import BeatWalk, SlotCounter, sub_address


class OutputBanks(OutputBuffer):
    """Memory banks -> host stream (see ``OutputBuffer``)."""

    def elaborate(self, platform):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        depth = self.banking.depth
        full = Signal(self.slots)
        next_slot, commit_slot, rd_slot = (SlotCounter(m, self.slots, n)
                                           for n in ("next_slot", "commit_slot", "rd_slot"))
        sb = slot_bits(self.slots)
        walk = BeatWalk(m, self.banking, 1, 1, "dr")
        advance, issue, issued_all, last_q = Signal(), Signal(), Signal(), Signal()
        bank_q = Signal(range(self.banking.banks))
        draining = Signal()
        full_next, space = Signal(self.slots), Signal(init=1)
        m.d.comb += [self.space.eq(space), full_next.eq(full),
                     draining.eq(full.bit_select(rd_slot.value, 1)),
                     advance.eq(~self.host.valid | self.host.ready),
                     issue.eq(draining & ~issued_all & advance)]
        data = []
        for b in range(self.banking.banks):
            mem = memory.Memory(shape=shape, depth=(1 << sb) << ceil_log2(depth), init=[])
            m.submodules[f"bank{b}"] = mem
            for k, wb in enumerate(self.writers):
                if wb == b:
                    wp = mem.write_port()
                    port = self.write_port(k)
                    m.d.comb += [wp.addr.eq(Cat(Value.cast(port.addr), port.slot)),
                                 wp.data.eq(port.data), wp.en.eq(port.en)]
            rp = mem.read_port()
            m.d.comb += [rp.addr.eq(Cat(sub_address(walk.address, 1, depth), rd_slot.value)),
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
