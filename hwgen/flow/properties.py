"""Stream properties as Amaranth assertions, and the harnesses that put them around hwgen's
stream parts for `flow.formal` to prove.

Each harness returns ``(module, ports)``: the part under test with its environment's assumptions
and the properties it must keep. Free inputs of the module (host payloads, valids, readies) are
chosen by the solver. ``fault=True`` injects the harness's fault on purpose between the part and
its checker (`FAULTS` says what it does): the proof must then fail with a trace.
"""
from amaranth.asserts import AnySeq, Initial
from amaranth.hdl import Assert, Assume, Cat, Fragment, Module, ResetSignal, Signal
from amaranth.lib import fifo

from ..rtl.top import Top
from ..schedule import plan
from ..schedule.host_timing import beats

# What each harness's injected fault does (the proof must catch it).
FAULTS = {
    "fifo_link": "the reader's first read does not reach the FIFO: one beat arrives twice",
    "top_ports": "an output's valid drops for one cycle while the host is not ready",
    "top_one_problem": "the host's first output beat is not counted: a beat is lost",
}


def after_reset(m):
    """Reset is asserted in the first cycle; returns a signal that is high from the first cycle
    after reset was released (registers hold their reset values before then)."""
    m.d.comb += Assume(ResetSignal() == Initial())
    live = Signal()
    m.d.sync += live.eq(~ResetSignal())
    return live


def previous(m, value, name):
    """``value`` one cycle ago (reset to 0)."""
    reg = Signal.like(value, name=name)
    m.d.sync += reg.eq(value)
    return reg


def stable_until_taken(m, live, valid, ready, payload, name, check=Assert):
    """Once ``valid`` is high without ``ready``, it stays high and ``payload`` does not change
    until a transfer: asserted for what a part drives, assumed (``check=Assume``) of its
    environment."""
    waiting = previous(m, valid & ~ready, f"{name}_waiting")
    was = previous(m, payload, f"{name}_was")
    with m.If(live & waiting):
        m.d.comb += [check(valid), check(payload == was)]


def fifo_link(width=2, depth=2, fault=False):
    """A FIFO link as ``rtl.top`` builds it: beats leave in order, each exactly once (a beat
    the solver picks at any write is tracked to its read), no overflow or underflow, and a
    waiting reader sees stable data."""
    m = Module()
    m.submodules.q = q = fifo.SyncFIFO(width=width, depth=depth)
    live = after_reset(m)
    w_data, w_en, r_en = (Signal(width, name="w_data"), Signal(name="w_en"), Signal(name="r_en"))
    m.d.comb += [q.w_data.eq(w_data), q.w_en.eq(w_en)]
    read = Signal()                             # a read the reader sees
    first = Signal(init=1)
    dropped = first & int(fault)       # the fault: that read does not reach the FIFO
    m.d.comb += [read.eq(r_en & q.r_rdy), q.r_en.eq(r_en & ~dropped)]
    with m.If(read):
        m.d.sync += first.eq(0)
    # Groups put and get only when the FIFO is ready (they stall otherwise).
    m.d.comb += [Assume(~w_en | q.w_rdy), Assume(~r_en | q.r_rdy)]
    stable_until_taken(m, live, q.r_rdy, read, q.r_data, "r")
    # The tracked beat: its value, and how many beats are ahead of it in the queue.
    pick = AnySeq(1)
    tracked, value = Signal(), Signal(width)
    ahead = Signal(range(depth + 1))
    wrote = w_en & q.w_rdy
    with m.If(~tracked & wrote & pick):
        m.d.sync += [tracked.eq(1), value.eq(w_data), ahead.eq(q.level - read)]
    with m.Elif(tracked & read):
        with m.If(ahead == 0):
            m.d.comb += Assert(q.r_data == value)
            m.d.sync += tracked.eq(0)
        with m.Else():
            m.d.sync += ahead.eq(ahead - 1)
    with m.If(live):
        m.d.comb += [Assert(q.level <= depth), Assert(~tracked | (ahead < q.level))]
    return m, [w_data, w_en, r_en]


def _host(top, live, m):
    """The host of ``top``: inputs obey the stream rules; outputs are checked against them."""
    ports = []
    for t in top.graph.tensors.values():
        s = getattr(top, t.name)
        ports += [s.payload, s.valid, s.ready]
        check = Assume if t.direction == "in" else Assert
        stable_until_taken(m, live, s.valid, s.ready, s.payload, t.name, check)
    return ports


def top_ports(graph, lanes=1, fault=False):
    """A generated top's host ports under any host: every output holds valid and payload until
    taken, every internal FIFO is written only when it has room and read only when it has data
    (rtl.top's groups stall instead)."""
    top = Top(plan(graph, lanes=lanes))
    m = Module()
    m.submodules.dut = Fragment.get(top, None)     # elaborated now: its FIFOs become known
    live = after_reset(m)
    if fault:
        out = graph.outputs[0]
        port = getattr(top, out.name)
        hidden = Signal(name="fault_valid")            # what the checker sees instead of valid
        blink = previous(m, port.valid & ~port.ready, "fault_waiting")
        m.d.comb += hidden.eq(port.valid & ~blink)
        stable_until_taken(m, live, hidden, port.ready, port.payload, "fault")
    ports = _host(top, live, m)
    for q in top.fifos.values():
        with m.If(live):
            m.d.comb += [Assert(~q.w_en | q.w_rdy), Assert(~q.r_en | q.r_rdy)]
    return m, ports


def top_one_problem(graph, lanes=1, slack=2, fault=False):
    """One problem sent by a host that never stalls: every output beat arrives, the last one
    within ``expected_cycles`` (+ ``slack``) of reset, none after it, and the top is idle again
    (every input ready, no output valid)."""
    top = Top(plan(graph, lanes=lanes))
    m = Module()
    m.submodules.dut = top
    live = after_reset(m)
    done = []
    for t in graph.tensors.values():
        s, n = getattr(top, t.name), beats(t, top.lanes[t.name])
        count = Signal(range(n + 2), name=f"{t.name}_count")
        if t.direction == "in":
            m.d.comb += s.valid.eq(live & (count < n))
            taken = s.valid & s.ready
        else:
            m.d.comb += s.ready.eq(1)
            # The fault: the checker misses the first beat of the first output.
            skip = Signal(init=int(fault and t is graph.outputs[0]),
                          name=f"{t.name}_skip")
            with m.If(s.valid):
                m.d.sync += skip.eq(0)
            taken = s.valid & ~skip
            m.d.comb += Assert(~s.valid | (count < n) | ~live)     # nothing after the last
        with m.If(taken):
            m.d.sync += count.eq(count + 1)
        done.append(count == n)
    cycle = Signal(range(top.expected_cycles + slack + 2))
    with m.If(live & (cycle < top.expected_cycles + slack + 1)):
        m.d.sync += cycle.eq(cycle + 1)
    with m.If(cycle == top.expected_cycles + slack):
        m.d.comb += Assert(Cat(*done).all())
        for t in graph.inputs:
            m.d.comb += Assert(getattr(top, t.name).ready)
    payloads = [getattr(top, t.name).payload for t in graph.inputs]
    return m, payloads

