"""Stream properties as Amaranth assertions, and the harnesses that put them around hwgen's
stream parts for `flow.formal` to prove: the links and the generated top here, the buffers in
`properties_buffers` and `properties_outputs`.

Each harness returns ``(module, ports)``, or ``(module, ports, depth)`` when it knows how many
cycles its bounded check needs: the part under test with its environment's assumptions and the
properties it must keep. Free inputs of the module (host payloads, valids, readies) are chosen
by the solver. ``fault=True`` injects the harness's fault on purpose between the part and its
checker (`FAULTS` says what it does): the proof must then fail with a trace.
"""
from amaranth.asserts import AnySeq, Initial
from amaranth.hdl import Assert, Assume, Cat, Fragment, Module, Mux, ResetSignal, Signal
from amaranth.lib import fifo

from ..rtl.group import Group
from ..rtl.top import Top
from ..schedule import plan
from ..schedule.host_timing import beats
from ..schedule.ports import safe_name

# What each harness's injected fault does (the proof must catch it).
FAULTS = {
    "fifo_link": "the reader's first read does not reach the FIFO: one beat arrives twice",
    "register_links": "a producer's put also lands while its group stalls: a beat is lost",
    "input_buffers": "the host's first beat reaches the buffer twice: a beat is duplicated",
    "output_buffers": "once, the buffer sees ready while the host is not: a beat is lost",
    "top_ports": "an output's valid drops for one cycle while the host is not ready",
    "top_problems": "the host's first output beat is not counted: a beat is lost",
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


class _ProbedFIFO(fifo.SyncFIFO):
    """Amaranth's ``SyncFIFO``, elaborated for the ``"formal"`` platform (which asserts that its
    pointers agree with its level), with its head pointer and a probe read port on its storage
    brought out: observers for an inductive invariant, its behaviour is unchanged."""

    def __init__(self, *, width, depth):
        super().__init__(width=width, depth=depth)
        self.head = Signal(range(depth), name="head")
        self.probe_addr = Signal(range(depth), name="probe_addr")
        self.probe_data = Signal(width, name="probe_data")

    def elaborate(self, platform):
        m = super().elaborate("formal")
        storage = m.submodules.storage
        probe = storage.read_port(domain="comb")
        m.d.comb += [self.head.eq(storage.read_ports[0].addr),   # the FIFO reads its head
                     probe.addr.eq(self.probe_addr), self.probe_data.eq(probe.data)]
        return m


def fifo_link(width=2, depth=2, fault=False):
    """A FIFO link as ``rtl.top`` builds it (Amaranth's ``SyncFIFO``): beats leave in order,
    each exactly once (a beat the solver picks at any write is tracked to its read), no
    overflow or underflow, and a waiting reader sees stable data. Inductive: the tracked beat
    is asserted to sit in the storage ``ahead`` entries behind the head."""
    m = Module()
    m.submodules.q = q = _ProbedFIFO(width=width, depth=depth)
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
    at = q.head + ahead
    m.d.comb += q.probe_addr.eq(Mux(at >= depth, at - depth, at))
    with m.If(live):
        m.d.comb += [Assert(q.level <= depth), Assert(~tracked | (ahead < q.level)),
                     Assert(~tracked | (q.probe_data == value))]
    return m, [w_data, w_en, r_en]


class _LinkChains(Group):
    """The link registers of one ``rtl.group.Group``, built by the code the generator runs
    (``Group._links``) and nothing else of the group, with the group's enable a free input: a
    group stalls whenever one of its FIFO operations is blocked, so the chains must hold their
    beats through any stall."""

    def __init__(self, plan, scheduled):
        super().__init__(plan, scheduled)
        self.en = Signal(name=f"{scheduled.name}_en")
        self._m = Module()
        self.chains = self._links(self._m, self.en)

    def elaborate(self, platform):
        return self._m


def register_links(graph, lanes=1, fault=False):
    """Every lockstep link of ``graph``'s plan, under stalls the solver picks: the value a
    producer puts in an enabled cycle is what its consumer gets exactly as many enabled cycles
    later as the schedule puts between the put and the get (skews and levels), so each beat is
    got once and in order; while the group stalls, the consumer's view holds. Inductive: the
    tracked beat is asserted to sit in the register the chain has moved it to."""
    p = plan(graph, lanes=lanes)
    m = Module()
    live = after_reset(m)
    ports = []
    for g in p.schedule.groups:
        if g.links:
            m.submodules[g.name] = part = _LinkChains(p, g)
            ports.append(part.en)
            for ch, regs in part.chains.items():
                c = graph.channels[ch]
                delay = (g.skew[c.consumer] + p.schedule.levels[c.consumer].gets[ch]
                         - g.skew[c.producer] - p.schedule.levels[c.producer].puts[ch])
                ports.append(_link(m, live, part.en, regs, delay, safe_name(ch), fault))
    return m, ports


def _link(m, live, en, regs, delay, name, fault):
    """Drive one chain as ``rtl.datapath`` does and check it; returns the producer's value (a
    free input)."""
    put = Signal.like(regs[0], name=f"{name}_put")
    # The producer puts in every enabled cycle; the fault: its put also lands while stalled.
    with m.If(en | int(fault)):
        m.d.sync += regs[0].eq(put)
    got = regs[-1]                  # what the consumer gets in an enabled cycle
    stalled, was = previous(m, ~en, f"{name}_stalled"), previous(m, got, f"{name}_was")
    with m.If(live & stalled):
        m.d.comb += Assert(got == was)
    pick = AnySeq(1)
    tracked, value = Signal(name=f"{name}_tracked"), Signal.like(put, name=f"{name}_value")
    left = Signal(range(delay + 1), name=f"{name}_left")     # enabled cycles until the get
    with m.If(en):
        with m.If(~tracked & pick):
            m.d.sync += [tracked.eq(1), value.eq(put), left.eq(delay - 1)]
        with m.Elif(tracked & (left == 0)):
            m.d.comb += Assert(got == value)
            m.d.sync += tracked.eq(0)
        with m.Elif(tracked):
            m.d.sync += left.eq(left - 1)
    for k, reg in enumerate(regs):
        with m.If(live & tracked & (left == delay - 1 - k)):
            m.d.comb += Assert(reg == value)
    m.d.comb += Assert(~live | ~tracked | (left < delay))
    return put


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
    fifos_never_blocked(m, top, live)
    with m.If(live):        # what makes the skids' states inductive (``rtl.skid``)
        m.d.comb += [Assert(s.consistent) for s in top.skids.values()]
        m.d.comb += [Assert(copy == flag) for copy, flag in top.handshake]
    return m, ports


def fifos_never_blocked(m, top, live):
    """Every FIFO of the elaborated ``top`` is written only when it has room and read only
    when it has data: groups stall on FIFOs between them, and never wait on a FIFO back into
    themselves (``schedule.static.schedule``)."""
    for q in top.fifos.values():
        with m.If(live):
            m.d.comb += [Assert(~q.w_en | q.w_rdy), Assert(~q.r_en | q.r_rdy)]


def top_problems(graph, lanes=1, problems=2, slack=2, fault=False):
    """``problems`` problems from a host that never stalls and sends each problem only after
    the last output beat of the one before: every output beat of a problem arrives within
    ``expected_cycles`` (+ ``slack``) of its first input beat, none after the last problem's;
    in the cycle after a problem's last output beat the top is idle (every input ready, no
    output valid), and the next problem then runs the same, without a reset. Returns the depth
    the bounded check needs as a third element."""
    top = Top(plan(graph, lanes=lanes))
    m = Module()
    m.submodules.dut = Fragment.get(top, None)     # elaborated now: its FIFOs become known
    live = after_reset(m)
    fifos_never_blocked(m, top, live)
    finished = Signal(range(problems + 1), name="finished")   # problems fully drained
    beats_of = {t.name: beats(t, top.lanes[t.name]) for t in graph.tensors.values()}
    counts = {t.name: Signal(range(problems * beats_of[t.name] + 2), name=f"{t.name}_count")
              for t in graph.tensors.values()}
    for t in graph.tensors.values():
        s, n, count = getattr(top, t.name), beats_of[t.name], counts[t.name]
        if t.direction == "in":
            m.d.comb += s.valid.eq(live & (count < n * (finished + 1)) & (finished < problems))
            taken = s.valid & s.ready
        else:
            m.d.comb += s.ready.eq(1)
            # The fault: the checker misses the first beat of the first output.
            skip = Signal(init=int(fault and t is graph.outputs[0]), name=f"{t.name}_skip")
            with m.If(s.valid):
                m.d.sync += skip.eq(0)
            taken = s.valid & ~skip
            m.d.comb += Assert(~live | ~s.valid | (count < n * problems))  # none after the last
        with m.If(taken):
            m.d.sync += count.eq(count + 1)
    drained = Signal()      # every output beat of the current problem has been taken
    m.d.comb += drained.eq(Cat(*[counts[t.name] == beats_of[t.name] * (finished + 1)
                                 for t in graph.outputs]).all())
    limit = top.expected_cycles + slack
    since = Signal(range(limit + 2), name="since")  # cycles since the problem's first beat
    with m.If(live & (finished < problems)):
        m.d.sync += since.eq(Mux(since == limit + 1, since, since + 1))
        with m.If(drained):
            m.d.comb += [Assert(getattr(top, t.name).ready) for t in graph.inputs]
            m.d.comb += [Assert(~getattr(top, t.name).valid) for t in graph.outputs]
            m.d.sync += [finished.eq(finished + 1), since.eq(0)]
        with m.If(since == limit):
            m.d.comb += Assert(drained)
    payloads = [getattr(top, t.name).payload for t in graph.inputs]
    return m, payloads, problems * (limit + 3) + 2
