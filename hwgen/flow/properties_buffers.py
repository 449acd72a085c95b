"""Harnesses around the input buffers, built as ``rtl.top`` builds them from a generated
design's plan (host stream -> ``InputBuffer`` -> the groups' reads), and what the buffer
harnesses share (`properties_outputs` has the output buffers).

The compute side is free within the rules ``rtl.top`` keeps (a problem starts only when its
input is loaded, each started problem is consumed once, reads go to any address of any slot);
the host obeys ready/valid. One element of one problem, both picked by the solver, is tracked
from the host beat that carries it to every read of its bank address. Every other element is
0: the buffers only move data, so an element that lands in the wrong place, problem or beat
shows as a 0 where the tracked value belongs (or the reverse), and the solver reasons about
one value instead of all of them. The banks are memories, so these are bounded checks, over
enough cycles to fill every slot and reuse one (``flow.formal``); invariants that tie the
buffer's state (`state`, probe ports on its memories) to the harness's counters keep each
step of the check local.
"""
from amaranth.asserts import AnyConst
from amaranth.hdl import Assert, Assume, Cat, Fragment, Module, Mux, Signal, Value
from amaranth.utils import ceil_log2

from ..rtl.input_buffer import InputBuffer
from ..rtl.signatures import address, shape_of
from ..schedule import READ_LATENCY, plan
from ..schedule.host_timing import LOAD_LATENCY, beats, lane_split, slot_bits
from .properties import after_reset, previous, stable_until_taken


def bank_ports(p, tensor, kind):
    """The bank of each of ``tensor``'s ``kind`` ("reads" or "writes") ports, numbered as
    ``rtl.top`` numbers a buffer's ports: group by group, in port order."""
    return [port.bank for port in _ports(p, tensor, kind)]


def _ports(p, tensor, kind):
    """``tensor``'s ``kind`` ports (``schedule.ports.MemoryPort``), in `bank_ports` order."""
    return [port for g in p.schedule.groups
            for port in getattr(p.ports[g.name], kind) if port.tensor == tensor]


def advance(m, counter, modulo, when):
    """``counter`` counts ``when`` modulo ``modulo``."""
    with m.If(when):
        m.d.sync += counter.eq(Mux(counter == modulo - 1, 0, counter + 1))


def chosen(m, n, name):
    """A constant in ``range(n)`` the solver picks."""
    value = Signal(range(max(2, n)), name=name)
    m.d.comb += [value.eq(AnyConst(range(max(2, n)))), Assume(value < n)]
    return value


def _unravel(e, shape):
    """The index of element ``e`` (row-major) of a tensor of ``shape``."""
    index = []
    for n in reversed(shape):
        index.insert(0, e % n)
        e //= n
    return index


def element(m, banking, lanes, name):
    """An element the solver picks, in stream order (rows padded as the banking stores them):
    the beat and lane that carry it, its bank and its address there."""
    shape = tuple(s * e for s, e in zip(banking.shards, banking.extent))
    count = banking.banks * banking.depth
    which = chosen(m, count, f"{name}_element")
    fields = [Signal(range(max(2, n)), name=f"{name}_{f}") for f, n in
              (("beat", count // lanes), ("lane", lanes), ("bank", banking.banks),
               ("addr", banking.depth))]
    with m.Switch(which):
        for e in range(count):
            index = _unravel(e, shape)
            with m.Case(e):
                m.d.comb += [f.eq(v) for f, v in zip(fields, (
                    e // lanes, e % lanes, banking.bank(index), banking.address(index)))]
    return fields


def state(fragment):
    """The registers and wires an elaborated part and its modules assign, by name (the first
    of a name): its internal state, for the invariants that tie it to a harness's counters
    (they make each step of a bounded check local instead of a search through the whole
    run)."""
    found = {}

    def targets(value):
        if isinstance(value, Signal):
            found.setdefault(value.name, value)
        for inner in ([getattr(value, "value", None)] + list(getattr(value, "parts", ()))):
            if inner is not None:
                targets(inner)

    def walk(statements):
        for st in statements:
            if hasattr(st, "lhs"):
                targets(st.lhs)
            for _, body, _ in getattr(st, "cases", ()):
                walk(body)

    def visit(fragment):
        for statements in fragment.statements.values():
            walk(statements)
        for sub, _, _ in getattr(fragment, "subfragments", ()):
            visit(sub)
    visit(fragment)
    return found


def free_inputs(*signals):
    """The free inputs among ``signals`` (zero-width ones are constants)."""
    return [s for s in signals if len(s)]


class _ProbedInput(InputBuffer):
    """``InputBuffer`` with a combinational probe read port on each bank's memory, all at
    ``probe_addr``: observers for the invariant that the tracked element sits in its cell
    (its behaviour is unchanged)."""

    def __init__(self, tensor, banking, readers, lanes, slots, ahead):
        super().__init__(tensor, banking, readers, lanes, slots, ahead=ahead)
        self.split = f = lane_split(banking, tensor.shape, lanes)[0]
        self.probe_addr = Signal(slot_bits(slots) + ceil_log2(banking.depth // f),
                                 name="probe_addr")
        self.probe_data = [[Signal(shape_of(tensor.dtype), name=f"probe{b}_{s}")
                            for s in range(f)] for b in range(banking.banks)]

    def elaborate(self, platform):
        m = super().elaborate(platform)
        width = shape_of(self.tensor.dtype).width
        for b, subs in enumerate(self.probe_data):
            port = m.submodules[f"bank{b}"].read_port(domain="comb")
            m.d.comb += port.addr.eq(self.probe_addr)
            for s, data in enumerate(subs):
                m.d.comb += data.eq(port.data[s * width:(s + 1) * width])
        return m


def input_buffers(graph, lanes=1, fault=False):
    """Every input buffer of ``graph``'s top under a host that obeys ready/valid and groups
    that read any address of any slot: the buffer takes a beat exactly when a slot is free
    (no overflow) and says ``loaded`` exactly when a whole problem waits (no underflow); the
    tracked element, once taken, is what every read of its bank address in its slot returns
    (``READ_LATENCY`` enabled cycles later, one more ahead) until its problem is consumed.
    Returns the depth of the check: enough beats to fill every slot, free one and load into it
    again."""
    p = plan(graph, lanes=lanes)
    m = Module()
    live = after_reset(m)
    ports, depth = [], 0
    for t in graph.inputs:
        reads = _ports(p, t.name, "reads")
        buf = _ProbedInput(t, p.bankings[t.name], [r.bank for r in reads], p.lanes[t.name],
                           p.slots, [r.ahead for r in reads])
        m.submodules[f"in_{t.name}"] = part = Fragment.get(buf, None)
        ports += _input_buffer(m, live, buf, state(part), fault and t is graph.inputs[0])
        depth = max(depth, beats(t, buf.lanes) * p.slots + 4 + LOAD_LATENCY)
    return m, ports, depth


class _Counts:
    """What the harness counts of one input buffer."""


def _input_buffer(m, live, buf, inside, fault):
    """The host and the compute side of ``buf``, and the checks; returns the free inputs."""
    n, slots, count = buf.tensor.name, buf.slots, beats(buf.tensor, buf.lanes)
    c = _Counts()
    c.beat = Signal(range(max(2, count)), name=f"{n}_beat")   # in the problem being loaded
    c.loads = Signal(range(slots + 2), name=f"{n}_loads")   # problems loaded (saturates)
    c.held = Signal(range(slots + 2), name=f"{n}_held")     # loaded, not consumed
    c.fresh = Signal(range(slots + 2), name=f"{n}_fresh")   # loaded, not started
    c.load_slot, c.start_slot, c.use_slot = (Signal(range(slots), name=f"{n}_{s}_slot")
                                             for s in ("load", "start", "use"))
    take, payload, ports = _input_host(m, live, buf, fault)
    start, consume = Signal(name=f"{n}_start"), Signal(name=f"{n}_consume")
    m.d.comb += [buf.start.eq(start), buf.consume.eq(consume)]
    complete = take & (c.beat == count - 1)
    # The buffer writes the last beat LOAD_LATENCY cycles after its handshake: only then is
    # its problem fresh.
    writing = [Signal(name=f"{n}_writing{d}") for d in range(LOAD_LATENCY)]
    m.d.sync += [w.eq(v) for w, v in zip(writing, [complete] + writing)]
    written = writing[-1]
    # The buffer counts the beats a cycle after the handshake and walks its banks a cycle
    # later, from the landing registers.
    c.counted = Signal(range(max(2, count)), name=f"{n}_counted")
    c.walked = Signal(range(max(2, count)), name=f"{n}_walked")
    c.wr_slot = Signal(range(slots), name=f"{n}_wr_slot")
    counted, counted_last, landed, landed_last = (
        Signal(name=f"{n}_{s}") for s in ("counted_beat", "counted_last", "landed_beat",
                                          "landed_last"))
    m.d.sync += [counted.eq(take), counted_last.eq(complete), landed.eq(counted),
                 landed_last.eq(counted_last)]
    advance(m, c.counted, count, counted)
    advance(m, c.walked, count, landed)
    advance(m, c.wr_slot, slots, landed_last)
    advance(m, c.beat, count, take)
    advance(m, c.load_slot, slots, complete)
    advance(m, c.start_slot, slots, start)
    advance(m, c.use_slot, slots, consume)
    m.d.sync += [c.held.eq(c.held + complete - consume), c.fresh.eq(c.fresh + written - start)]
    with m.If(complete & (c.loads <= slots)):
        m.d.sync += c.loads.eq(c.loads + 1)
    # rtl.top starts a problem only when it is loaded, and consumes each started one once.
    m.d.comb += [Assume(~start | buf.loaded),
                 Assume(~consume | (c.held != c.fresh + sum(writing)))]
    # ``ready`` falls for a cycle after the host held back a problem's last beat that would
    # have filled the last slot (``rtl.input_buffer``); otherwise it says whether one is free.
    held_back = Signal(name=f"{n}_held_back")
    m.d.sync += held_back.eq(buf.host.ready & ~take & (c.beat == count - 1) &
                             (c.held + 1 - consume == slots))
    with m.If(live):
        m.d.comb += [Assert(buf.host.ready == ((c.held < slots) & ~held_back)),
                     Assert(buf.loaded == (c.fresh != 0))]
    track = _input_track(m, live, buf, c, (take, payload, consume))
    _input_invariants(m, live, buf, inside, c, track)
    return ports + [start, consume] + track.ports


def _input_track(m, live, buf, c, host):
    """The tracked element: 0 in every other lane and beat, taken into its slot, read back
    by every read of its bank address there until its problem is consumed."""
    take, payload, consume = host
    n, bits = buf.tensor.name, buf.tensor.dtype.bits
    t = _Counts()
    t.beat, t.lane, t.bank, t.addr = element(m, buf.banking, buf.lanes, n)
    t_problem = chosen(m, buf.slots + 1, f"{n}_problem")
    carrying = Signal(name=f"{n}_carrying")     # this beat carries the tracked element
    m.d.comb += carrying.eq((c.loads == t_problem) & (c.beat == t.beat))
    for lane in range(buf.lanes):
        m.d.comb += Assume((payload.word_select(lane, bits) == 0) | (carrying & (t.lane == lane)))
    t.tracked, t.value = Signal(name=f"{n}_tracked"), Signal(bits, name=f"{n}_value")
    t.slot = Signal.like(c.load_slot, name=f"{n}_slot")
    # landed: the tracked element is in its memory cell (written LOAD_LATENCY cycles after it
    # is taken).
    arriving = [Signal(name=f"{n}_arriving{d}") for d in range(LOAD_LATENCY - 1)]
    t.landed = Signal(name=f"{n}_landed")
    m.d.sync += [a.eq(v) for a, v in zip(arriving + [t.landed], [t.tracked] + arriving)]
    with m.If(take & carrying):
        m.d.sync += [t.tracked.eq(1), t.slot.eq(c.load_slot),
                     t.value.eq(payload.word_select(t.lane, bits))]
    with m.If(consume & (c.use_slot == t.slot)):
        m.d.sync += [t.tracked.eq(0), t.landed.eq(0)] + [a.eq(0) for a in arriving]
    t.ports = []
    for k, bank in enumerate(buf.readers):
        port = buf.read_port(k)
        hit = t.landed & (address(port) == t.addr) & (port.slot == t.slot) & (t.bank == bank)
        # A hit's data arrives READ_LATENCY enabled cycles later (the port moves only then),
        # one more for a port whose address comes ahead.
        stages = [Signal(name=f"{n}_rd{k}_stage{d}")
                  for d in range(READ_LATENCY + buf.ahead[k])]
        with m.If(port.en):
            m.d.sync += [s.eq(v) for s, v in zip(stages, [hit] + stages)]
        with m.If(live & stages[-1] & t.tracked):
            m.d.comb += Assert(Value.cast(port.data).as_unsigned() == t.value)
        t.ports += free_inputs(address(port), port.slot, port.en)
    return t


def _input_invariants(m, live, buf, inside, c, t):
    """Where an ``InputBuffer`` keeps what the harness counts: its slot counters, the loaded
    slots not yet started (``fresh``), the walk over the beat being loaded, and the tracked
    element in its memory cell."""
    slots, f = buf.slots, buf.split
    sub = ceil_log2(f)
    m.d.comb += buf.probe_addr.eq(Cat((t.addr >> sub)[:ceil_log2(buf.banking.depth // f)],
                                      t.slot[:slot_bits(slots)]))
    shape = tuple(s * e for s, e in zip(buf.banking.shards, buf.banking.extent))
    with m.If(live):
        m.d.comb += [Assert(inside["wr_slot"] == c.wr_slot),
                     Assert(inside["host_left"] == beats(buf.tensor, buf.lanes) - 1 - c.counted),
                     Assert(inside["host_penult"] == (inside["host_left"] == 1)),
                     Assert(inside["next_slot"] == c.start_slot),
                     Assert(inside["free_slot"] == c.use_slot)]
        for s in range(slots):
            m.d.comb += Assert(inside["fresh"][s] == Cat(*[
                (i < c.fresh) & ((c.start_slot + i) % slots == s) for i in range(slots)]).any())
        with m.Switch(c.walked):
            for beat in range(beats(buf.tensor, buf.lanes)):
                index = _unravel(beat * buf.lanes, shape)
                with m.Case(beat):
                    for d, (i, e) in enumerate(zip(index, buf.banking.extent)):
                        m.d.comb += [Assert(inside[f"ld_o{d}"] == i % e),
                                     Assert(inside[f"ld_s{d}"] == i // e)]
        with m.If(t.landed):
            m.d.comb += Assert(Cat(*[(t.bank == b) & (t.addr[:sub] == s) &
                                     (d.as_unsigned() == t.value)
                                     for b, subs in enumerate(buf.probe_data)
                                     for s, d in enumerate(subs)]).any())


def _input_host(m, live, buf, fault):
    """The host of ``buf``: ``(take, payload, free inputs)``. The fault: the first beat reaches
    the buffer twice (in the next cycle too, while the host sees ``ready`` low)."""
    n = buf.tensor.name
    valid, ready = Signal(name=f"{n}_valid"), Signal(name=f"{n}_ready")
    payload = Signal(len(buf.host.payload), name=f"{n}_payload")
    stable_until_taken(m, live, valid, ready, payload, n, Assume)
    dup = Signal(name=f"{n}_dup")
    if fault:
        first = Signal(init=1, name=f"{n}_first")
        m.d.sync += dup.eq(valid & ready & first)
        with m.If(valid & ready):
            m.d.sync += first.eq(0)
    sent = previous(m, payload, f"{n}_sent")
    m.d.comb += [buf.host.valid.eq(valid | dup), buf.host.payload.eq(Mux(dup, sent, payload)),
                 ready.eq(buf.host.ready & ~dup)]
    return valid & ready, payload, [valid, payload]


