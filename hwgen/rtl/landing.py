"""The buffer at every host input port: landing registers that take the pins every cycle,
then entries written and read in turn.

A host's input pins ring the chip. A register beside each pin whose enable follows the
handshake needs a control net around the whole ring: with ``rtl.skid`` at the inputs, a
12x12 ``gemm_os`` spent 12 ns routing a flag to the entries of ``B``. Here the pins meet only
the landing registers, which have no enable (a pin to the first is not a clocked path, and
each may sit anywhere between the pin and the entries), and the entries, their enables and
flags sit together. Two landing stages, so that no hop spans the ring to the entries in one
cycle (12x12 with 328 of 365 pins: one stage left 12.9-16.2 ns of routing on either side of
it).

Because a beat lands ``STAGES`` cycles after its handshake, the host's ``ready`` (a
flip-flop) promises room that far ahead: ``STAGES + 2`` entries keep one beat per cycle. Full
throughput, ``STAGES + 1`` cycles of latency (``schedule.host_timing`` counts them in
``LOAD_LATENCY``)."""
from amaranth.hdl import Array, Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

STAGES = 2
ENTRIES = STAGES + 2


class Landing(wiring.Component):
    """``i`` -> ``STAGES`` landing registers -> ``o`` through ``ENTRIES`` entries written and
    read in turn.

    Parameters
    ----------
    shape : shape-like
        The payload.
    """

    def __init__(self, shape):
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape))})

    def elaborate(self, platform):
        m = Module()
        lands = [Signal.like(self.i.payload, reset_less=True, name=f"land{n}")
                 for n in range(STAGES)]
        entries = [Signal.like(lands[0], reset_less=True, name=f"entry{x}")
                   for x in range(ENTRIES)]
        landed = [Signal(name=f"landed{n}") for n in range(STAGES)]
        ready = Signal(init=1)
        write, read = Signal(range(ENTRIES)), Signal(range(ENTRIES))
        credit = Signal(range(ENTRIES + 1))     # beats taken and not yet read out
        take = self.i.valid & ready
        taken = self.o.valid & self.o.ready
        credit_next = credit + take - taken
        m.d.comb += [self.i.ready.eq(ready), self.o.payload.eq(Array(entries)[read])]
        # A beat taken now is written ``STAGES`` cycles later: ``ready`` next cycle promises
        # room for it even if nothing is read meanwhile (``credit`` counts the beats in the
        # entries and the landing registers, so that this is a few LUTs). Next cycle the
        # entries hold the beats counted but those still landing then: taken now, or in the
        # stages before the last.
        landing = sum([take] + landed[:-1], Const(0, range(STAGES + 1)))
        m.d.sync += [lands[0].eq(self.i.payload), landed[0].eq(take), credit.eq(credit_next),
                     self.o.valid.eq(credit_next != landing),
                     ready.eq(credit_next != ENTRIES)]
        m.d.sync += [a.eq(b) for a, b in zip(lands[1:] + landed[1:], lands[:-1] + landed[:-1])]
        for x, entry in enumerate(entries):
            with m.If(landed[-1] & (write == x)):
                m.d.sync += entry.eq(lands[-1])
        with m.If(landed[-1]):
            m.d.sync += write.eq(_following(write))
        with m.If(taken):
            m.d.sync += read.eq(_following(read))
        return m


def _following(pointer):
    """The entry after ``pointer``, in turn."""
    return Mux(pointer == ENTRIES - 1, 0, pointer + 1)
