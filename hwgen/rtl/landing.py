"""The buffer at every host input port: a landing register that takes the pins every cycle,
then three entries written and read in turn.

A host's input pins ring the chip. A register beside each pin whose enable follows the
handshake needs a control net around the whole ring: with ``rtl.skid`` at the inputs, a
12x12 ``gemm_os`` spent 12 ns routing a flag to the entries of ``B``. Here the pins meet only
the landing register, which has no enable (a pin to it is not a clocked path, so nextpnr may
place it near the entries), and the entries, their enables and flags sit together.

Because a beat lands a cycle after its handshake, the host's ``ready`` (a flip-flop) promises
room a cycle ahead: three entries keep one beat per cycle. Full throughput, two cycles of
latency (``schedule.host_timing`` counts them in ``LOAD_LATENCY``)."""
from amaranth.hdl import Array, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

ENTRIES = 3


class Landing(wiring.Component):
    """``i`` -> landing register -> ``o`` through three entries written and read in turn.

    Parameters
    ----------
    shape : shape-like
        The payload.
    """

    def __init__(self, shape):
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape))})

    def elaborate(self, platform):
        m = Module()
        land = Signal.like(self.i.payload, reset_less=True, name="land")
        entries = [Signal.like(land, reset_less=True, name=f"entry{x}") for x in range(ENTRIES)]
        landed, ready = Signal(), Signal(init=1)
        write, read = Signal(range(ENTRIES)), Signal(range(ENTRIES))
        credit = Signal(range(ENTRIES + 1))             # beats taken and not yet read out
        take = self.i.valid & ready
        taken = self.o.valid & self.o.ready
        credit_next = credit + take - taken
        m.d.comb += [self.i.ready.eq(ready), self.o.payload.eq(Array(entries)[read])]
        # A beat taken now lands in the next cycle and is written in the one after: ``ready``
        # next cycle promises room for it even if nothing is read meanwhile (``credit`` counts
        # the beats in the entries and the landing register, so that this is a few LUTs). The
        # entries hold a beat next cycle unless the only one counted is the one landing then.
        m.d.sync += [land.eq(self.i.payload), landed.eq(take), credit.eq(credit_next),
                     self.o.valid.eq(credit_next != take), ready.eq(credit_next != ENTRIES)]
        for x, entry in enumerate(entries):
            with m.If(landed & (write == x)):
                m.d.sync += entry.eq(land)
        with m.If(landed):
            m.d.sync += write.eq(_following(write))
        with m.If(taken):
            m.d.sync += read.eq(_following(read))
        return m


def _following(pointer):
    """The entry after ``pointer``, in turn."""
    return Mux(pointer == ENTRIES - 1, 0, pointer + 1)
