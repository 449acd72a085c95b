"""Output buffer for one element per bank (the output-stationary case): the banks are
registers, and a second set of registers forms a shift chain in row-major order. A finished
problem moves into the chain in one cycle and drains, ``lanes`` elements per beat, while the
next problem computes."""
from amaranth.hdl import Cat, Module, Signal

from .output_buffer import OutputBuffer
from .signatures import shape_of


class OutputChain(OutputBuffer):
    """Register banks -> shift chain -> host stream (see ``OutputBuffer``)."""

    def elaborate(self, platform):
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
        # ``space`` is a register computed from the next state, so that the start handshake
        # (rtl.top) begins at flip-flops: ``(~full | load) & ((in_flight == 0) | ~busy)`` is
        # ``~busy | (~full & (in_flight == 0))`` since ``load`` is ``full & ~busy``.
        in_flight = Signal(range(self.slots + 2))
        in_flight_next, full_next, busy_next = Signal.like(in_flight), Signal(), Signal()
        space = Signal(init=1)
        m.d.comb += [self.space.eq(space),
                     self.host.valid.eq(busy),
                     self.host.payload.eq(Cat(*chain[:lanes])),
                     take.eq(self.host.valid & self.host.ready),
                     in_flight_next.eq(in_flight + self.start - self.commit),
                     # A problem may commit in the cycle the previous one moves into the chain.
                     full_next.eq(self.commit | (full & ~load)),
                     busy_next.eq(load | (busy & ~(take & (sent == beats - 1))))]
        # ``load`` (``full & ~busy``) is a register too: it selects the input of every chain
        # register.
        m.d.sync += [in_flight.eq(in_flight_next), full.eq(full_next), busy.eq(busy_next),
                     load.eq(full_next & ~busy_next),
                     space.eq(~busy_next | (~full_next & (in_flight_next == 0)))]
        for b in range(n):
            for k, wb in enumerate(self.writers):
                if wb == b:
                    port = self.write_port(k)
                    with m.If(port.en):
                        m.d.sync += banks[b].eq(port.data)
            with m.If(load):
                m.d.sync += chain[b].eq(banks[b])
            with m.Elif(take):
                if b + lanes < n:
                    m.d.sync += chain[b].eq(chain[b + lanes])
        with m.If(load):
            m.d.sync += sent.eq(0)
        with m.Elif(take):
            m.d.sync += sent.eq(sent + 1)
        return m
