"""Output buffer for one element per bank (the output-stationary case): the banks are
registers, and a second set of registers forms a chain: its head row shifts ``lanes`` elements
per beat towards the host port, and each row moves up one when the head row is sent. A finished
problem moves into the chain in one cycle and drains, row by row, while the next problem
computes.

Every chain register's enable and select come straight from flip-flops: the chain decides
``lead`` cycles ahead whether it loads and shifts, from ``ready_ahead``, the value the host's
``ready`` takes ``lead`` cycles later (``rtl.top`` drains the chain through ``skid.Skid``,
which announces it a cycle earlier, into a register), and, with ``lead > 1``, from
``commit_ahead``, the commit ``lead - 1`` cycles later (``rtl.top`` has it when a single
group never stalls: ``schedule.Plan.chain_lead``, through a register). A chain has a register
of every element of the tensor; with ``take = valid & ready`` in front of their enable, the
host's handshake would reach all of them through logic in a cycle. The load and shift
registers are copied (``rtl.replica``), one copy per row of the tensor and ``LOADS_PER_COPY``
chain bits (``schedule.host_timing.copy_groups``), so that no one register drives every chain
bit across the die. With ``lead = 1`` the decision (a few LUTs beside the host port) drives
every copy across the die; with ``lead = 4`` it reaches a register beside it and one more on
its way, then a first rank of copies, each the input of a few copies beside their chain
registers: no long route follows logic (with ``lead = 2`` the decision feeds the first rank
straight across the die; with ``lead = 3`` the placer draws its one register away from the
decision, towards the first rank)."""
from types import SimpleNamespace

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib.wiring import In, Out

from ..schedule.host_timing import copy_groups, row_length
from .output_buffer import OutputBuffer
from .replica import copies, copies_ahead, later
from .signatures import shape_of


class OutputChain(OutputBuffer):
    """Register banks -> shift chain -> host stream (see ``OutputBuffer``); ``target``
    (``rtl.target``) selects how the control copies are built (``rtl.replica``).

    Attributes
    ----------
    ready_ahead : In(1)
        The value ``host.ready`` takes ``lead`` cycles later (``skid.Skid.i_ready_ahead``).
    commit_ahead : In(1)
        With ``lead > 1`` only: the value ``commit`` takes ``lead - 1`` cycles later.
    valid_ahead : Out(2)
        With ``lead > 2`` only: the values ``host.valid`` takes one and two cycles later
        (``skid.Skid.i_valid_ahead``).
    """

    def __init__(self, tensor, banking, writers, lanes=1, slots=2, target="generic", lead=1):
        if not isinstance(lead, int) or lead < 1:
            raise ValueError(f"an output chain decides at least a cycle ahead, not {lead!r}")
        members = {"ready_ahead": In(1)} | ({"commit_ahead": In(1)} if lead > 1 else {}) | \
            ({"valid_ahead": Out(2)} if lead > 2 else {})
        super().__init__(tensor, banking, writers, lanes, slots, members)
        self._target, self.lead = target, lead
        self._row = row_length(self.banking.banks, tensor.shape)

    def elaborate(self, platform):
        m = Module()
        shape = shape_of(self.tensor.dtype)
        n, lanes = self.banking.banks, self.lanes
        banks = [Signal(shape, reset_less=True, name=f"bank{b}") for b in range(n)]
        chain = [Signal(shape, reset_less=True, name=f"chain{b}") for b in range(n)]
        # Each row of the tensor's bank and chain registers in a module of its own: the rows
        # below the head are alike, so the Verilog holds one module of them (``rtl.kinds``).
        rows = [Module() for _ in range(-(-n // self._row))]
        for r, row in enumerate(rows):
            m.submodules[f"row{r}"] = row
        self._registers(rows, banks)
        ahead = self.lead - 1
        fsm = self._decide(m, self.commit_ahead if ahead else self.commit, "_a" if ahead else "")
        # The state in real time: the state machine runs ``lead - 1`` cycles ahead.
        if ahead:
            full_next = later(m, fsm.full, ahead - 1, "full_next")
            if ahead > 1:
                busy_ahead2 = later(m, fsm.busy, ahead - 2, "busy_ahead2")
                busy_next = later(m, busy_ahead2, 1, "busy_next")
            else:
                busy_next = fsm.busy
            busy, sent = later(m, busy_next, 1, "busy"), later(m, fsm.sent, ahead, "sent")
        else:
            busy, full_next, busy_next = fsm.busy, fsm.full_next, fsm.busy_next
        # The banks are free for the next problem once the last result has moved into the
        # chain (or moves this cycle). If a problem is still in flight, the chain must also be
        # idle, so that this problem moves into the chain as soon as it commits, before the next
        # one writes (the group spaces its starts so that writes follow the previous finish).
        # ``space`` is a register computed from the next state, so that the start handshake
        # (rtl.top) begins at flip-flops: ``(~full | load) & ((in_flight == 0) | ~busy)`` is
        # ``~busy | (~full & (in_flight == 0))`` since ``load`` is ``full & ~busy``, and
        # without a commit (which ``~full`` implies) ``in_flight_next == 0`` is
        # ``~start & idle``. ``idle`` (no problem in flight) is a register, so that ``space``
        # is a few LUTs from flip-flops.
        in_flight = Signal(range(self.slots + 2))
        in_flight_next = Signal.like(in_flight)
        space, idle = Signal(init=1), Signal(init=1)
        m.d.comb += [self.space.eq(space),
                     self.host.valid.eq(busy),
                     self.host.payload.eq(Cat(*chain[:lanes])),
                     in_flight_next.eq(in_flight + self.start - self.commit)]
        m.d.comb += self.space_next.eq(~busy_next | (~full_next & ~self.start & idle))
        m.d.sync += [in_flight.eq(in_flight_next), idle.eq(in_flight_next == 0),
                     space.eq(self.space_next)]
        if ahead > 1:
            m.d.comb += self.valid_ahead.eq(Cat(busy_next, busy_ahead2))
        self._steer(m, rows, banks, chain, fsm)
        return m

    def _decide(self, m, commit, suffix):
        """The state machine that decides what the chain does, fed ``commit`` and
        ``ready_ahead`` (``lead - 1`` cycles ahead of the chain): the banks hold a problem that
        waits (``full``), the chain holds one being sent (``busy``), the beat being sent
        (``sent``; ``final``: it is the last; ``row_final``: the last of its row); ``load_next``,
        ``take_next`` and ``row_next``: the chain loads, a beat leaves, and the chain moves up
        a row (it loads, or a row's last beat leaves), ``lead`` cycles later."""
        names = ("full busy load take final row_final full_next busy_next load_next take_next "
                 "row_final_next row_next").split()
        s = SimpleNamespace(**{k: Signal(name=k + suffix) for k in names})
        beats, per_row = self.banking.banks // self.lanes, self._row // self.lanes
        s.sent = Signal(range(beats + 1), name="sent" + suffix)
        in_row = Signal(range(per_row), name="in_row" + suffix)
        m.d.comb += [# A problem may commit in the cycle the previous one moves into the chain.
                     s.full_next.eq(commit | (s.full & ~s.load)),
                     s.busy_next.eq(s.load | (s.busy & ~(s.take & s.final))),
                     s.load_next.eq(s.full_next & ~s.busy_next),
                     s.take_next.eq(s.busy_next & self.ready_ahead),
                     s.row_next.eq(s.load_next | (s.take_next & s.row_final_next))]
        # ``load`` (``full & ~busy``), ``take`` (``host.valid & host.ready``) and the chain's
        # enable ``shift`` (``load | take``) are registers computed from the next state.
        m.d.sync += [s.full.eq(s.full_next), s.busy.eq(s.busy_next),
                     s.load.eq(s.load_next), s.take.eq(s.take_next),
                     s.row_final.eq(s.row_final_next)]
        m.d.comb += s.row_final_next.eq(s.row_final)
        with m.If(s.load):
            m.d.sync += [s.sent.eq(0), s.final.eq(beats == 1), in_row.eq(0)]
            m.d.comb += s.row_final_next.eq(per_row == 1)
        with m.Elif(s.take):
            m.d.sync += [s.sent.eq(s.sent + 1), s.final.eq(s.sent == beats - 2),
                         in_row.eq(Mux(s.row_final, 0, in_row + 1))]
            m.d.comb += s.row_final_next.eq((per_row == 1) | (in_row == per_row - 2))
        return s

    def _copies(self, m, decided, count, name):
        """``count`` copies of the decision ``decided``, ``lead`` cycles later: with ``lead``
        above 2, first through registers beside the decision, then in two ranks across the die
        (``replica.copies_ahead``)."""
        if self.lead == 1:
            return copies(m, decided, count, name, self._target)
        decided = later(m, decided, self.lead - 2, f"{name}_r")
        return copies_ahead(m, decided, count, name, self._target)

    def _registers(self, rows, banks):
        """Each bank register takes what its write ports write, in its row's module."""
        for k, b in enumerate(self.writers):
            port, m = self.write_port(k), rows[b // self._row]
            with m.If(port.en):
                m.d.sync += banks[b].eq(port.data)

    def _steer(self, m, rows_m, banks, chain, fsm):
        """The chain: it loads the banks; its head row shifts by ``lanes`` towards the host
        port, and every row takes the row below it when the head row's last beat leaves. No
        register takes one from the far end of another row: a single row-major chain would take
        the head of row ``r + 1`` into the tail of row ``r``, a route across the array. The load
        and move decisions arrive through copies ``lead`` cycles later, one per group of chain
        registers (``copy_groups``); each row's registers are in its module of ``rows_m``."""
        n, lanes, row = len(chain), self.lanes, self._row
        group = copy_groups(n, self.tensor.shape, len(chain[0]))
        loads = self._copies(m, fsm.load_next, group[-1] + 1, "load")
        shifts = self._copies(m, fsm.load_next | fsm.take_next, group[row - 1] + 1, "shift")
        rows = self._copies(m, fsm.row_next, group[-1] + 1, "row") if n > row else None
        for b in range(n):
            g, head, rm = group[b], b < row, rows_m[b // row]
            with rm.If(shifts[g] if head else rows[g]):
                with rm.If(loads[g]):
                    rm.d.sync += chain[b].eq(banks[b])
                if b + row < n:
                    with rm.Elif(rows[g]) if head else rm.Else():
                        rm.d.sync += chain[b].eq(chain[b + row])
                if head and b + lanes < row:
                    with rm.Else():
                        rm.d.sync += chain[b].eq(chain[b + lanes])
