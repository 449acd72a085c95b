"""Output buffer for one element per bank (the output-stationary case): the banks are
registers, and a second set of registers forms a shift chain in row-major order. A finished
problem moves into the chain in one cycle and drains, ``lanes`` elements per beat, while the
next problem computes.

Every chain register's enable and select come straight from flip-flops: the chain decides a
cycle ahead whether it shifts, from ``ready_next``, the value the host's ``ready`` takes in the
next cycle (``rtl.top`` drains the chain through ``skid.Skid``, whose ``ready`` is a
register). An 8x8 ``gemm_os`` has 1,408 chain registers; with ``take = valid & ready`` in
front of their enable, that net was the critical path. The load and shift registers are
copied (``rtl.replica``), one copy per ``LOADS_PER_COPY`` chain bits: a 12x12 ``gemm_os``'s
single load register drove 4,608 chain bits, 13.6 ns of routing across the die."""
from amaranth.hdl import Cat, Module, Signal
from amaranth.lib.wiring import In

from .output_buffer import OutputBuffer
from .replica import copies
from .signatures import shape_of

LOADS_PER_COPY = 64


class OutputChain(OutputBuffer):
    """Register banks -> shift chain -> host stream (see ``OutputBuffer``); ``target``
    (``rtl.target``) selects how the control copies are built (``rtl.replica``).

    Attributes
    ----------
    ready_next : In(1)
        The value ``host.ready`` takes in the next cycle: ``host.ready`` must be a register
        and this its next state (``skid.Skid.i_ready_next``).
    """

    def __init__(self, tensor, banking, writers, lanes=1, slots=2, target="generic"):
        super().__init__(tensor, banking, writers, lanes, slots, {"ready_next": In(1)})
        self._target = target

    def elaborate(self, platform):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        n, lanes = self.banking.banks, self.lanes
        banks = [Signal(shape, reset_less=True, name=f"bank{b}") for b in range(n)]
        chain = [Signal(shape, reset_less=True, name=f"chain{b}") for b in range(n)]
        self._registers(m, banks)
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
        # ``~busy | (~full & (in_flight == 0))`` since ``load`` is ``full & ~busy``, and
        # without a commit (which ``~full`` implies) ``in_flight_next == 0`` is
        # ``~start & idle``. ``idle`` (no problem in flight) and ``final`` (the beat being sent
        # is the last) are registers, so that ``space`` is a few LUTs from flip-flops.
        in_flight = Signal(range(self.slots + 2))
        in_flight_next, full_next, busy_next = Signal.like(in_flight), Signal(), Signal()
        load_next, take_next = Signal(), Signal()
        space, idle, final = Signal(init=1), Signal(init=1), Signal()
        m.d.comb += [self.space.eq(space),
                     self.host.valid.eq(busy),
                     self.host.payload.eq(Cat(*chain[:lanes])),
                     in_flight_next.eq(in_flight + self.start - self.commit),
                     # A problem may commit in the cycle the previous one moves into the chain.
                     full_next.eq(self.commit | (full & ~load)),
                     busy_next.eq(load | (busy & ~(take & final))),
                     load_next.eq(full_next & ~busy_next),
                     take_next.eq(busy_next & self.ready_next)]
        # ``load`` (``full & ~busy``), ``take`` (``host.valid & host.ready``) and the chain's
        # enable ``shift`` (``load | take``) are registers computed from the next state; the
        # chain's load and shift are copies of them, one per ``per_copy`` banks.
        m.d.sync += [in_flight.eq(in_flight_next), full.eq(full_next), busy.eq(busy_next),
                     load.eq(load_next), take.eq(take_next),
                     idle.eq(in_flight_next == 0),
                     space.eq(~busy_next | (~full_next & ~self.start & idle))]
        self._steer(m, banks, chain, load_next, load_next | take_next)
        with m.If(load):
            m.d.sync += [sent.eq(0), final.eq(beats == 1)]
        with m.Elif(take):
            m.d.sync += [sent.eq(sent + 1), final.eq(sent == beats - 2)]
        return m

    def _registers(self, m, banks):
        """Each bank register takes what its write ports write."""
        for k, b in enumerate(self.writers):
            port = self.write_port(k)
            with m.If(port.en):
                m.d.sync += banks[b].eq(port.data)

    def _steer(self, m, banks, chain, load_next, shift_next):
        """The chain: it loads the banks or shifts by ``lanes``, under copies of the load and
        shift registers, one per ``LOADS_PER_COPY`` chain bits."""
        n, lanes = len(chain), self.lanes
        per_copy = max(1, LOADS_PER_COPY // len(chain[0]))
        count = -(-n // per_copy)
        loads = copies(m, load_next, count, "load", self._target)
        shifts = copies(m, shift_next, count, "shift", self._target)
        for b in range(n):
            with m.If(shifts[b // per_copy]):
                with m.If(loads[b // per_copy]):
                    m.d.sync += chain[b].eq(banks[b])
                if b + lanes < n:
                    with m.Else():
                        m.d.sync += chain[b].eq(chain[b + lanes])
