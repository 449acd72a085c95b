"""A stream buffer at every host output port whose payload registers meet no handshake.

Every host output port passes one (``rtl.top``; input ports meet ``rtl.input_buffer``'s
counters). Its entries (``lead + 1``) are written in turn and read in turn through a
multiplexer after them, so:

- a payload register's enable is a flip-flop ("this entry is written in this cycle",
  decided a cycle ahead), one copy per ``BITS_PER_ENABLE`` payload bits, whatever the host
  does. A host's output pins are driven by the read multiplexer, whose select is a
  flip-flop. The host's ``valid`` and ``ready`` reach only the few flag registers, never a
  register of every payload bit (a wide port's pins ring the chip: a register of every payload
  bit beside its pin is far from the handshake logic, and even from a LUT of flip-flops one
  enable of all the bits of an entry is too wide a net);
- ``i.ready`` is a flip-flop, announced ``lead`` cycles ahead (``i_ready_ahead``): it promises
  a free entry for any beat written in the next ``lead`` cycles, so a producer may decide
  ``lead`` cycles ahead whether it sends (``output_chain.OutputChain``: its shift enable, one
  flip-flop per group of chain registers across the die). With ``lead = 1`` this is 'not
  full'; without a register there, the host's ``ready`` would feed the enable of every
  register of an output chain through logic. ``rtl.top`` announces a cycle further ahead
  than a chain decides and registers the announcement, so that the host's ``ready`` reaches
  no decision of the chain within a cycle.

Full throughput, one cycle of latency (``schedule.host_timing`` counts it in
``DRAIN_LATENCY``).
"""
from amaranth.hdl import Array, Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..schedule.host_timing import skid_entries
from .arith import named, table
from .replica import copies, ranks

# Payload bits of an entry per copy of its write enable.
BITS_PER_ENABLE = 16


class Skid(wiring.Component):
    """``i`` -> ``o`` through registers written and read in turn.

    Parameters
    ----------
    shape : shape-like
        The payload.
    lead : int
        Cycles by which ``i.ready`` is announced (1 or more).
    target : str
        ``rtl.target.TARGETS``: how the copies of the write enables are built
        (``rtl.replica``).
    valid_ahead : bool
        With ``lead`` 4 or more: the producer tells ``i.valid`` one and two cycles ahead
        (``i_valid_ahead``) and holds it low in the first two cycles after reset, so that the
        enables are decided three cycles ahead, from flip-flops, into a register beside the
        decision, and reach their copies in two more hops, so that no LUT drives the copies of
        an entry's enable around the die.

    Attributes
    ----------
    i_ready_ahead : Out(1)
        The value ``i.ready`` takes ``lead`` cycles later, for a producer that registers what
        it will send that far ahead.
    i_valid_ahead : In(2)
        With ``valid_ahead`` only: the values ``i.valid`` takes one and two cycles later.
    consistent : Value
        After elaboration: the entry written next follows the ones held, and the promise
        counts the beats held and announced (holds in every reachable state; an inductive
        proof asserts it, ``flow.properties.top_ports``).
    """

    def __init__(self, shape, lead=1, target="generic", valid_ahead=False):
        if lead < 1:
            raise ValueError(f"a skid announces its ready at least a cycle ahead, not {lead}")
        if valid_ahead and lead < 4:
            raise ValueError("a skid decides its enables three cycles ahead only when it "
                             f"announces its ready four or more cycles ahead, not {lead}")
        self.lead, self._target, self.valid_ahead = lead, target, valid_ahead
        super().__init__({"i": In(stream.Signature(shape)), "o": Out(stream.Signature(shape)),
                          "i_ready_ahead": Out(1)} |
                         ({"i_valid_ahead": In(2)} if valid_ahead else {}))

    def elaborate(self, platform):
        m = Module()
        n = skid_entries(self.lead)
        entries = [Signal.like(self.i.payload, name=f"entry{x}", reset_less=True)
                   for x in range(n)]
        # The beats held: none unless ``o.valid``, else ``filled + 1``; every value is a count.
        # The entry written next is a register of its own, moved by the writer alone, so that
        # the entries' enables are one LUT of flip-flops the host's handshake never reaches
        # (not derived from ``read`` and the count, which the host's handshake moves).
        read, write, filled = Signal(range(n)), Signal(range(n)), Signal(range(n))
        count = Mux(self.o.valid, filled + 1, 0)
        after = read + count                                     # never beyond 2n - 1
        self.consistent = write == Mux(after >= n, after - n, after)   # in every reachable state
        # ``refused[k]``: ``i.ready`` is low ``k`` cycles from now (0 .. lead - 1), already
        # announced; every cycle it is high may bring a beat (counted whether or not it does,
        # so that the producer's ``valid`` does not reach ``i_ready_ahead``). ``promised``: the
        # beats held and those promised room, ``count + sum(~refused)``, a register so that
        # ``i_ready_ahead`` ("room remains after this cycle's read") is one LUT of flip-flops
        # and the host's ``ready``, not a sum and a compare. It never exceeds ``n``, so
        # ``full`` (``promised == n``) says there is none.
        refused = [Signal(name=f"refused{k}") for k in range(self.lead)]
        promised = Signal(range(n + 1), init=self.lead)
        full = Signal(init=self.lead == n)
        taken = self.o.valid & self.o.ready
        ready_ahead = ~full | taken
        self.consistent &= ((promised == count + sum(~r for r in refused)) &
                            (promised <= n) & (full == (promised == n)))
        m.d.comb += [self.i.ready.eq(~refused[0]), self.i_ready_ahead.eq(ready_ahead),
                     self.o.payload.eq(Array(entries)[read])]
        refused_next = refused[1:] + [~ready_ahead]
        m.d.sync += [r.eq(after) for r, after in zip(refused, refused_next)]
        self._flags(m, n, read, write, filled, refused[0], promised, full)
        # The entry written next is free whenever ``i.ready`` is high: it takes the input,
        # under enables decided ahead, each a table of the flags (one LUT level, not the next
        # pointer, then a compare).
        width = len(self.i.payload)
        groups = -(-width // BITS_PER_ENABLE)
        for x, entry in enumerate(entries):
            enables = self._enables(m, x, n, groups, write, refused, refused_next)
            self.consistent &= Cat(enables) == (self.i.ready & (write == x)).replicate(groups)
            for g, enable in enumerate(enables):
                bits = slice(g * BITS_PER_ENABLE, min(width, (g + 1) * BITS_PER_ENABLE))
                with m.If(enable):
                    m.d.sync += entry[bits].eq(self.i.payload[bits])
        return m

    def _enables(self, m, x, n, groups, write, refused, refused_next):
        """``groups`` flip-flops, each entry ``x``'s write enable ``i.ready & (write == x)``:
        copies of its decision a cycle ahead or, with ``valid_ahead``, of its decision three
        cycles ahead, through a register and two ranks of copies (``replica.ranks``). In
        reset (and at power-up, when the flip-flops hold 0) entry 0 is enabled: its copies
        hold the enable's complement."""
        first = int(x == 0)
        def enable_after(w, v, r, *then):
            # ``then``: the next cycles' valid and refusal, then the refusal of the cycle
            # whose enable this is.
            w = _write_after(w, v, r) % n
            if len(then) > 1:
                return enable_after(w, *then)
            return int(not then[0] and w == x) ^ first
        now = (write, self.i.valid, refused[0])
        if not self.valid_ahead:
            held = copies(m, table(enable_after, *now, refused_next[0], width=1), groups,
                          f"we{x}", self._target)
            return [h ^ first for h in held]
        v1, v2 = self.i_valid_ahead
        decided = table(enable_after, *now, v1, refused[1], v2, refused[2], refused_next[2],
                        width=1)
        [held_decided] = copies(m, decided, 1, f"we{x}_decided", self._target)
        held_first, held = ranks(m, held_decided, groups, f"we{x}", self._target)
        self.consistent &= ((held_decided == table(enable_after, *now, v1, refused[1],
                                                   refused[2], width=1)) &
                            (Cat(held_first) == table(enable_after, *now, refused[1], width=1)
                             .replicate(len(held_first))))
        return [h ^ first for h in held]

    def _flags(self, m, n, read, write, filled, refused, promised, full):
        """The count, promise and pointers after this cycle, as truth tables of a few bits
        (``arith.table``): a LUT level each, where ``+`` and ``-`` would be carry chains."""
        def count_after(valid, filled, offered, refusing, took):
            return (filled + 1 if valid else 0) + (offered & ~refusing) - (valid & took)

        def promised_after(promised, valid, took, refusing, offered):
            taken = valid & took
            return promised - taken - (~refusing & ~offered & 1) + (promised != n or taken)

        flags = (self.o.valid, filled, self.i.valid, refused, self.o.ready)
        promised_next = named(m, table(promised_after, promised, self.o.valid, self.o.ready,
                                       refused, self.i.valid, width=len(promised)),
                              "promised_next")
        m.d.sync += [
            filled.eq(table(lambda *a: count_after(*a) - 1, *flags, width=len(filled))),
            self.o.valid.eq(table(lambda *a: count_after(*a) != 0, *flags, width=1)),
            promised.eq(promised_next), full.eq(promised_next == n),
            read.eq(table(lambda r, v, t: (r + (v & t)) % n, read, self.o.valid, self.o.ready,
                          width=len(read))),
            write.eq(table(lambda *a: _write_after(*a) % n, write, self.i.valid, refused,
                           width=len(write)))]


def _write_after(write, valid, refused):
    """The entry written next after this cycle (before wrapping at the entry count): the
    pointer moves when a beat is offered and ``i.ready`` is high."""
    return write + (valid & ~refused & 1)
