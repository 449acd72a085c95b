"""A two-entry stream register whose upstream ``ready`` is a flip-flop.

Every host port passes one (``rtl.top``), so the host's pins meet only flip-flops. An output
buffer streams through one to the host, so that the host's ``ready`` reaches the buffer only
through a register: without it, ``ready`` fed the enable of every register of an output chain
(an 8x8 ``gemm_os``: 1,408 loads after two LUTs, the critical path). An input buffer takes
its beats from one, so that its handshake logic no longer sits beside the host's ``valid``
pin. Full throughput, one cycle of latency (``schedule.host_timing`` counts it in
``LOAD_LATENCY`` and ``DRAIN_LATENCY``).
"""
from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


class Skid(wiring.Component):
    """``i`` -> ``o``: ``o`` is registered; ``i.ready`` is 'the spare entry is empty'.

    Parameters
    ----------
    shape : shape-like
        The payload.

    Attributes
    ----------
    i_ready_next : Out(1)
        The value ``i.ready`` takes in the next cycle, for a producer that registers what it
        will send (``output_chain.OutputChain``: its shift enable).
    """

    def __init__(self, shape):
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape)),
                          "i_ready_next": Out(1)})

    def elaborate(self, platform):
        m = Module()
        spare = Signal.like(self.i.payload, reset_less=True)
        spare_valid = Signal()
        free = ~self.o.valid | self.o.ready             # the output entry is free
        m.d.comb += [self.i.ready.eq(~spare_valid),
                     self.i_ready_next.eq(free | ~(spare_valid | self.i.valid))]
        m.d.sync += spare_valid.eq(~self.i_ready_next)
        with m.If(free):
            with m.If(spare_valid):
                m.d.sync += [self.o.payload.eq(spare), self.o.valid.eq(1)]
            with m.Else():
                m.d.sync += [self.o.payload.eq(self.i.payload), self.o.valid.eq(self.i.valid)]
        # The empty spare entry follows the input in every cycle: it holds a beat from the
        # cycle it becomes valid (taken while the output waits). Its enable is then one
        # flip-flop, not a LUT of the output's handshake in front of every payload bit.
        with m.If(~spare_valid):
            m.d.sync += spare.eq(self.i.payload)
        return m
