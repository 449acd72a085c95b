"""A two-entry stream buffer at every host output port whose payload registers meet no
handshake.

Every host output port passes one (``rtl.top``; input ports meet ``rtl.input_buffer``'s
landing register). The two entries are written in turn and read in turn through a
multiplexer after them, so:

- a payload register's enable is one LUT of three flip-flops ("this entry is written next
  and is free"), whatever the valid and ready signals do. A host's output pins are driven by
  the read multiplexer, whose select is a flip-flop. The host's ``valid`` and ``ready`` reach
  only the few flag registers, never a register of every payload bit (a 12x12 ``gemm_os``:
  its 328 pins ring the chip, and a register of every payload bit beside its pin put 12 ns of
  routing between the pins and the handshake logic);
- ``i.ready`` ('not full') and ``o.valid`` ('not empty') are flip-flops, so the host's
  ``ready`` reaches an output buffer only through a register: without it, ``ready`` fed the
  enable of every register of an output chain (8x8: 1,408 loads after two LUTs).

Full throughput, one cycle of latency (``schedule.host_timing`` counts it in
``DRAIN_LATENCY``).
"""
from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


class Skid(wiring.Component):
    """``i`` -> ``o`` through two registers written and read in turn.

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
        entries = [Signal.like(self.i.payload, name=f"entry{x}", reset_less=True)
                   for x in range(2)]
        read, full = Signal(), Signal()                # the entry read next; both hold a beat
        # The entry written next follows from the others, so that every state of the three
        # flip-flops is safe (an inductive proof visits them all): a free entry takes the input
        # in every cycle, and holds a beat once ``write`` moves on.
        write = read ^ self.o.valid
        written = self.i.valid & self.i.ready
        taken = self.o.valid & self.o.ready
        count_next = self.o.valid + full + written - taken
        m.d.comb += [self.i.ready.eq(~full), self.i_ready_next.eq(count_next != 2),
                     self.o.payload.eq(Mux(read, entries[1], entries[0]))]
        m.d.sync += [full.eq(count_next == 2), self.o.valid.eq(count_next != 0),
                     read.eq(read ^ taken)]
        for x, entry in enumerate(entries):
            with m.If(~full & (write == x)):
                m.d.sync += entry.eq(self.i.payload)
        return m
