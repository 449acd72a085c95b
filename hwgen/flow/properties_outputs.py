"""Harnesses around the output buffers, built as ``rtl.top`` builds them from a generated
design's plan: the groups' writes -> ``OutputChain`` or ``OutputBanks`` -> host stream.

The compute side is free within the rules ``rtl.top`` keeps (a problem starts only when its
output has space and fewer than ``slots`` problems run, problems commit in order, a group
writes only the problems it runs; `chain_timing` for the chain); the host drains with any
back-pressure. One element of one problem, both picked by the solver, is tracked from the last
write to its bank address to the host beat that must carry it; every other element is 0
(`properties_buffers` says why). Bounded checks, with invariants that tie the buffer's state
to the harness's counters so that each step stays local.
"""
from amaranth.hdl import Assert, Assume, Cat, Const, Fragment, Module, Mux, Signal, Value
from amaranth.utils import ceil_log2

from ..rtl.output_banks import OutputBanks
from ..rtl.output_chain import OutputChain
from ..rtl.replica import later
from ..rtl.signatures import address, shape_of
from ..schedule import plan
from ..schedule.host_timing import (DRAIN_LATENCY, beats, chained, drain_latency, row_length,
                                    slot_bits)
from .properties import after_reset, previous, stable_until_taken
from .properties_buffers import advance, bank_ports, chosen, element, free_inputs, state


def chain_timing(p):
    """Whether ``rtl.top``'s timing lets an ``OutputChain`` hold one problem in its registers
    at a time. The chain needs a problem's writes to follow the commit of the one before (the
    schedule's ``group_spacing``), and a problem not to start before the one two starts earlier
    has committed, two cycles before (else that one may still wait for the chain when the one
    in between commits, and the new one's writes overwrite it). Commits come
    ``compute_cycles`` after their start and starts at least a group's ``spacing`` apart
    (``rtl.controller``), so the second holds when ``compute + 1 < 2 * spacing``."""
    spacing = max(max(g.spacing, p.group_spacing or 0) for g in p.schedule.groups)
    return p.schedule.compute_cycles + 1 < 2 * spacing


def output_buffers(graph, lanes=1, fault=False):
    """Every output buffer of ``graph``'s top (``OutputChain`` or ``OutputBanks``, as
    ``rtl.top`` picks) under groups that write the problems they run and a host with any
    back-pressure: valid and payload hold until taken; a beat leaves only for a committed
    problem, ``beats`` per problem, in order; the tracked element is at its beat and lane,
    with the last value the groups wrote to its bank address for its problem (not lost,
    duplicated or overwritten). Returns the depth of the check."""
    p = plan(graph, lanes=lanes)
    m = Module()
    live = after_reset(m)
    ports, depth = [], 0
    for t in graph.outputs:
        banking = p.bankings[t.name]
        writers = bank_ports(p, t.name, "writes")
        if chained(banking):
            buf = OutputChain(t, banking, writers, p.lanes[t.name], p.slots, lead=p.chain_lead)
        else:
            buf = _ProbedBanks(t, banking, writers, p.lanes[t.name], p.slots,
                               t.name in p.shared_rows)
        m.submodules[f"out_{t.name}"] = part = Fragment.get(buf, None)
        ports += _output_buffer(m, live, buf, state(part), chain_timing(p),
                                fault and t is graph.outputs[0])
        # Two problems drained through every slot; memory banks read a cycle later each.
        depth = max(depth, 2 * (beats(t, buf.lanes) + drain_latency(banking) - DRAIN_LATENCY)
                    + 2 * p.slots + 4)
    return m, ports, depth


class _ProbedBanks(OutputBanks):
    """``OutputBanks`` with a combinational probe read port on each memory, all at
    ``probe_addr`` (``row`` banks per memory with shared rows; the memory of bank ``b`` is
    ``b // row``): observers for the invariant that the tracked element sits in its cell (its
    behaviour is unchanged)."""

    def __init__(self, tensor, banking, writers, lanes, slots, shared_rows=False):
        super().__init__(tensor, banking, writers, lanes, slots, shared_rows)
        self.probe_addr = Signal(slot_bits(slots) + ceil_log2(self.row) +
                                 ceil_log2(banking.depth), name="probe_addr")
        self.probe_data = [Signal(shape_of(tensor.dtype), name=f"probe{r}")
                           for r in range(banking.banks // self.row)]

    def elaborate(self, platform):
        m = super().elaborate(platform)
        for r, data in enumerate(self.probe_data):
            port = m.submodules[f"bank{r}"].read_port(domain="comb")
            m.d.comb += [port.addr.eq(self.probe_addr), data.eq(port.data)]
        return m


def _output_buffer(m, live, buf, inside, timed, fault):
    """The compute side and the host of ``buf``, and the checks; returns the free inputs.
    ``inside``: `state` of ``buf``; ``timed``: `chain_timing` holds."""
    n, slots = buf.tensor.name, buf.slots
    start, commit = Signal(name=f"{n}_start"), Signal(name=f"{n}_commit")
    m.d.comb += [buf.start.eq(start), buf.commit.eq(commit)]
    decided = commit                # the input the solver picks: ``lead - 1`` cycles ahead
    if getattr(buf, "lead", 1) > 1:
        decided = Signal(name=f"{n}_commit_ahead")
        m.d.comb += [buf.commit_ahead.eq(decided),
                     commit.eq(later(m, decided, buf.lead - 1, f"{n}_commit_in"))]
    running = Signal(range(slots + 2), name=f"{n}_running")     # started, not committed
    oldest, newest = Signal(range(slots), name=f"{n}_oldest"), \
        Signal(range(slots), name=f"{n}_next")
    m.d.sync += running.eq(running + start - commit)
    advance(m, oldest, slots, commit)
    advance(m, newest, slots, start)
    # rtl.top: a problem starts when its output has space and fewer than ``slots`` problems
    # run (the input buffers hold no more); problems commit in order.
    m.d.comb += [Assume(~start | (buf.space & (running < slots))),
                 Assume(~commit | (running != 0))]
    chain = isinstance(buf, OutputChain)
    if chain and timed:
        committed = previous(m, commit, f"{n}_committed")
        m.d.comb += Assume(~start | (running == 0) | ((running == 1) & ~committed))
    take, beat, pending, drained, ports = _output_host(m, live, buf, commit, fault)
    draining = Signal(range(slots), name=f"{n}_draining")     # the slot being drained
    advance(m, draining, slots, drained)
    track = _output_track(m, live, buf, (start, commit, running, newest, pending),
                          (take, beat, drained))
    ports += [start, decided]
    for k, bank in enumerate(buf.writers):
        port = buf.write_port(k)
        ports += free_inputs(port.en, address(port), port.slot, port.data)
        if chain:
            # A problem's writes follow the commit of the one before (`chain_timing`).
            mine = (running != 0) & (port.slot == oldest)
        else:
            mine = Cat(*[(i < running) & (port.slot == (oldest + i) % slots)
                         for i in range(slots)]).any()
        m.d.comb += Assume(~port.en | mine)
        hit = track.open & (bank == track.bank) & (address(port) == track.addr) & \
            (port.slot == track.slot)
        m.d.comb += Assume((Value.cast(port.data) == 0) | hit)
        with m.If(port.en & hit):
            m.d.sync += [track.value.eq(Value.cast(port.data).as_unsigned()),
                         track.written.eq(1)]
    if not chain and buf.row > 1:
        # ``schedule.shared_rows``: the writers of one memory never write in the same cycle.
        for r in range(buf.banking.banks // buf.row):
            ens = [buf.write_port(k).en for k, b in enumerate(buf.writers) if b // buf.row == r]
            if ens:
                m.d.comb += Assume(sum(ens, Const(0, 8)) <= 1)
    if chain:
        _chain_invariants(m, live, buf, inside, track, (running, pending, beat))
    else:
        _banks_invariants(m, live, buf, inside, track,
                          (oldest, newest, pending, draining, beat))
    return ports


def _banks_invariants(m, live, buf, inside, t, counters):
    """Where ``OutputBanks`` keeps what the harness counts: its slot counters, the committed
    slots (``full``), the tracked element in its memory cell until its problem has drained,
    and on the host port once its beat is up."""
    oldest, newest, pending, draining, beat = counters
    slots, bits = buf.slots, buf.tensor.dtype.bits
    row = buf.row
    sub = Const(0, 0) if row == 1 else (t.bank % row)[:ceil_log2(row)]
    m.d.comb += buf.probe_addr.eq(Cat(t.addr[:ceil_log2(buf.banking.depth)], sub,
                                      t.slot[:slot_bits(slots)]))
    full = inside["full"]
    with m.If(live):
        m.d.comb += [Assert(inside["next_slot"] == newest),
                     Assert(inside["commit_slot"] == oldest),
                     Assert(inside["rd_slot"] == draining)]
        for s in range(slots):
            m.d.comb += Assert(full[s] == Cat(*[(i < pending) & ((draining + i) % slots == s)
                                                for i in range(slots)]).any())
        with m.If(t.tracked & t.written):
            m.d.comb += Assert(Cat(*[(t.bank // row == r) & (d.as_unsigned() == t.value)
                                     for r, d in enumerate(buf.probe_data)]).any())
            with m.If(buf.host.valid & (t.ahead == 0) & (beat == t.beat)):
                m.d.comb += Assert(buf.host.payload.word_select(t.lane, bits) == t.value)


def _chain_invariants(m, live, buf, inside, t, counters):
    """Where an ``OutputChain`` keeps what the harness counts: problems in flight, the beat
    being sent, and the tracked element once its problem is in the chain (a row further up
    per row sent; in the head row, ``lanes`` places further down per beat sent)."""
    running, pending, beat = counters
    row = row_length(buf.banking.banks, buf.tensor.shape)
    per_row = row // buf.lanes
    moved = beat // per_row                         # rows sent
    busy, sent = inside["busy"], inside["sent"]
    chain = [inside[f"chain{b}"] for b in range(buf.banking.banks)]
    with m.If(live):
        m.d.comb += [Assert(inside["in_flight"] == running), Assert(~busy | (pending != 0)),
                     Assert(beat == Mux(busy, sent, 0))]
        with m.If(t.tracked & t.written & t.closed & (t.ahead == 0) & busy):
            at = t.bank - moved * row - Mux(t.bank // row == moved, beat % per_row * buf.lanes, 0)
            m.d.comb += Assert(Cat(*[(at == k) & (reg.as_unsigned() == t.value)
                                     for k, reg in enumerate(chain)]).any() | (t.beat < beat))


def _output_host(m, live, buf, commit, fault):
    """The host draining ``buf``: ``(take, beat, pending, drained, free inputs)``. The fault:
    once, the buffer sees ``ready`` while the host is not ready, and the beat is lost. An
    ``OutputChain`` hears ``ready`` ``lead`` cycles ahead (``ready_ahead``), as ``rtl.top``'s
    skid announces it; its fault is hearing ``ready`` that does not come."""
    n, count = buf.tensor.name, beats(buf.tensor, buf.lanes)
    ready, lost = Signal(name=f"{n}_ready"), Signal(name=f"{n}_lost")
    ahead = isinstance(buf, OutputChain)
    if ahead:
        ready_ahead = Signal(name=f"{n}_ready_ahead")
        m.d.comb += ready.eq(later(m, ready_ahead, buf.lead, f"{n}_ready_in"))
    if fault:
        first = Signal(init=1, name=f"{n}_first")
        m.d.comb += lost.eq(first & (~ready_ahead if ahead else buf.host.valid & ~ready))
        with m.If(lost):
            m.d.sync += first.eq(0)
    if ahead:
        m.d.comb += [buf.host.ready.eq(ready), buf.ready_ahead.eq(ready_ahead | lost)]
    else:
        m.d.comb += buf.host.ready.eq(ready | lost)
    free = [ready_ahead if ahead else ready]
    take, drained = Signal(name=f"{n}_take"), Signal(name=f"{n}_drained")
    beat = Signal(range(max(2, count)), name=f"{n}_beat")
    pending = Signal(range(buf.slots + 2), name=f"{n}_pending")  # committed, not drained
    m.d.comb += [take.eq(buf.host.valid & ready), drained.eq(take & (beat == count - 1))]
    stable_until_taken(m, live, buf.host.valid, ready, buf.host.payload, n)
    advance(m, beat, count, take)
    m.d.sync += pending.eq(pending + commit - drained)
    with m.If(live):
        m.d.comb += Assert(~buf.host.valid | (pending != 0))
    return take, beat, pending, drained, free


class _Tracked:
    """The tracked element of an output: where it lives, whether its problem still runs
    (``open``), and the last value written to it."""


def _output_track(m, live, buf, problems, host):
    """Pick a problem (at its start) and an element; follow the problem through its commit and
    the drains ahead of it; at its beat, the tracked element's lane must hold its value."""
    start, commit, running, newest, pending = problems
    take, beat, drained = host
    n, slots, bits = buf.tensor.name, buf.slots, buf.tensor.dtype.bits
    t = _Tracked()
    t.beat, t.lane, t.bank, t.addr = element(m, buf.banking, buf.lanes, n)
    starts = Signal(range(slots + 2), name=f"{n}_starts")     # saturates
    with m.If(start & (starts <= slots)):
        m.d.sync += starts.eq(starts + 1)
    t_problem = chosen(m, slots + 1, f"{n}_problem")
    t.tracked = tracked = Signal(name=f"{n}_tracked")
    t.closed = closed = Signal(name=f"{n}_closed")
    t.slot = Signal.like(newest, name=f"{n}_slot")
    t.value, t.written = Signal(bits, name=f"{n}_value"), Signal(name=f"{n}_written")
    # Commits before the tracked problem's own, and drains before its own.
    before = Signal(range(slots + 2), name=f"{n}_before")
    t.ahead = ahead = Signal(range(2 * slots + 3), name=f"{n}_ahead")
    with m.If(start & (starts == t_problem)):
        m.d.sync += [tracked.eq(1), t.slot.eq(newest), before.eq(running - commit),
                     ahead.eq(running + pending - drained)]
    with m.If(tracked & commit):
        m.d.sync += before.eq(before - 1)
        with m.If(before == 0):
            m.d.sync += closed.eq(1)
    with m.If(tracked & drained):
        m.d.sync += ahead.eq(ahead - 1)
        with m.If(ahead == 0):
            m.d.sync += tracked.eq(0)
    t.open = Signal(name=f"{n}_open")      # the problem runs: writes to the element count
    m.d.comb += t.open.eq(tracked & ~closed)
    lane = buf.host.payload.word_select(t.lane, bits)
    with m.If(live & tracked & t.written & (ahead == 0) & take & (beat == t.beat)):
        m.d.comb += Assert(lane == t.value)
    return t
