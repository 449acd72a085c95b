"""The generated top: host stream ports, input buffers, compute groups, FIFOs, output buffers.

Problems overlap: while one problem computes, the next ones load into other slots of the input
banks and earlier ones drain from the output buffers; in the array, a problem starts as soon as
the previous one has issued its iterations, so their wavefronts follow each other. Every value a
problem uses travels with its slot number, so two problems can share the array.
"""
from amaranth.hdl import Cat, Module, Signal, unsigned
from amaranth.lib import fifo, stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..ir.graph import StreamOp
from ..schedule.host_timing import FINISH_AHEAD, chained
from ..schedule.plan import Plan
from .group import Group
from .input_buffer import InputBuffer
from .output_banks import OutputBanks
from .output_chain import OutputChain
from .replica import copies
from .skid import Skid
from .target import check_target


class Top(wiring.Component):
    """The accelerator for one ``schedule.Plan``. One ``stream`` port per tensor, named after
    it (``In`` for inputs, ``Out`` for outputs), ``lanes`` elements per beat.

    Parameters
    ----------
    plan : schedule.Plan
        ``hwgen.schedule.plan(graph, lanes)``.
    target : str
        What the design lowers to (``rtl.target.TARGETS``): ``"generic"`` (the default, and
        what Amaranth's simulator runs), ``"ecp5"`` (MULT18X18D and DP16KD blocks), ``"ice40"``.
    kinds : rtl.kinds.Kinds or None
        For Verilog: where the groups keep the modules their members of one kind share.

    Attributes
    ----------
    plan, target, graph, schedule, bankings, lanes, slots, expected_cycles, interval_cycles
        The parameters and the plan's parts, read-only.
    fifos : dict
        After elaboration: channel -> its ``SyncFIFO`` (simulations report stuck streams).
    skids : dict
        After elaboration: output tensor -> the ``skid.Skid`` at its port (proofs).
    handshake : list
        After elaboration: ``(copy, flag)``, each block's copy of another block's start flag
        and that flag; they are equal in every cycle (proofs).
    """

    def __init__(self, plan, target="generic", kinds=None):
        if not isinstance(plan, Plan):
            raise TypeError(f"Top takes a hwgen.schedule.plan(graph), not {plan!r}")
        self._plan, self._target, self._kinds = plan, check_target(target), kinds
        self.fifos, self.skids, self.handshake = {}, {}, []
        members = {}
        for t in plan.graph.tensors.values():
            sig = stream.Signature(unsigned(t.dtype.bits * plan.lanes[t.name]))
            members[t.name] = In(sig) if t.direction == "in" else Out(sig)
        super().__init__(members)

    plan = property(lambda self: self._plan)
    target = property(lambda self: self._target)
    graph = property(lambda self: self._plan.graph)
    schedule = property(lambda self: self._plan.schedule)
    bankings = property(lambda self: self._plan.bankings)
    lanes = property(lambda self: self._plan.lanes)
    slots = property(lambda self: self._plan.slots)
    expected_cycles = property(lambda self: self._plan.expected_cycles)
    interval_cycles = property(lambda self: self._plan.interval_cycles)

    def elaborate(self, platform):
        m = Module()
        plan = self.plan
        groups = []
        for g in self.schedule.groups:
            grp = Group(plan, g, self.target, self._kinds)
            m.submodules[g.name] = grp
            groups.append(grp)
        ins, outs = self._buffers(m, groups)
        self._fifos(m, groups)
        self._handshake(m, groups, ins, outs)
        return m

    def _buffers(self, m, groups):
        """An input buffer per input tensor, an output buffer per output tensor, wired to the
        host ports and to the groups' memory ports."""
        graph, plan = self.graph, self.plan
        readers = {t.name: [] for t in graph.inputs}
        writers = {t.name: [] for t in graph.outputs}
        for grp in groups:
            for port in grp.ports.reads:
                readers[port.tensor].append((grp, port))
            for port in grp.ports.writes:
                writers[port.tensor].append((grp, port))
        ins, outs = [], []
        for t in graph.inputs:
            buf = InputBuffer(t, plan.bankings[t.name], [p.bank for _, p in readers[t.name]],
                              plan.lanes[t.name], plan.slots, self.target,
                              [p.ahead for _, p in readers[t.name]], t.type.resident)
            m.submodules[f"in_{t.name}"] = buf
            connect(m, wiring.flipped(getattr(self, t.name)), buf.host)
            for k, (grp, port) in enumerate(readers[t.name]):
                connect(m, getattr(grp, port.name), buf.read_port(k))
            ins.append(buf)
        for t in graph.outputs:
            args = (t, plan.bankings[t.name], [p.bank for _, p in writers[t.name]],
                    plan.lanes[t.name], plan.slots)
            if chained(plan.bankings[t.name]):
                buf = OutputChain(*args, target=self.target, lead=plan.chain_lead)
            else:
                buf = OutputBanks(*args, shared_rows=t.name in plan.shared_rows,
                                  target=self.target)
            m.submodules[f"out_{t.name}"] = buf
            lead, ahead = plan.skid_lead(t.name)
            assert lead == (buf.lead + 1 if isinstance(buf, OutputChain) else 1), \
                f"{t.name}: the skid's lead is not the plan's"
            skid = m.submodules[f"skid_{t.name}"] = Skid(buf.host.payload.shape(), lead,
                                                          self.target, valid_ahead=ahead)
            self.skids[t.name] = skid
            connect(m, buf.host, skid.i)
            if skid.valid_ahead:
                m.d.comb += skid.i_valid_ahead.eq(buf.valid_ahead)
            connect(m, skid.o, wiring.flipped(getattr(self, t.name)))
            if isinstance(buf, OutputChain):
                # A cycle further ahead, then a register: the chain's decision begins at a
                # flip-flop, not at the host's ``ready`` and the skid's ``o.valid`` through
                # the LUTs of the announcement. A cleared skid promises room, so the register
                # starts high.
                ready_ahead = Signal(init=1, name=f"{t.name}_ready_ahead")
                m.d.sync += ready_ahead.eq(skid.i_ready_ahead)
                m.d.comb += buf.ready_ahead.eq(ready_ahead)
            for k, (grp, port) in enumerate(writers[t.name]):
                connect(m, getattr(grp, port.name), buf.write_port(k))
            outs.append(buf)
        return ins, outs

    def _fifos(self, m, groups):
        """A ``SyncFIFO`` of the declared depth per FIFO stream, between its two groups."""
        for n, name in enumerate(self.schedule.fifos):
            ch = self.graph.channels[name]
            q = fifo.SyncFIFO(width=ch.dtype.bits, depth=ch.depth)
            m.submodules[fifo_instance(n)] = q
            self.fifos[name] = q
            for grp in groups:
                for port in grp.ports.fifo(StreamOp.PUT):
                    if port.channel == name:
                        p = getattr(grp, port.name)
                        m.d.comb += [q.w_data.eq(p.data), q.w_en.eq(p.en), p.rdy.eq(q.w_rdy)]
                for port in grp.ports.fifo(StreamOp.GET):
                    if port.channel == name:
                        p = getattr(grp, port.name)
                        m.d.comb += [p.data.eq(q.r_data), q.r_en.eq(p.en), p.rdy.eq(q.r_rdy)]

    def _handshake(self, m, groups, ins, outs):
        """A problem starts when every group accepts one, its inputs are loaded and its output
        slot is free. Problems finish in order; when every group has finished the oldest one,
        its input slots are released and its results committed for draining."""
        # Per block: (name, flag, its next value, its reset value).
        flags = ([(f"g{k}", g.accept, getattr(g, "accept_next", None), 1)
                  for k, g in enumerate(groups)] +
                 [(b.tensor.name, b.loaded, b.loaded_next, 0) for b in ins] +
                 [(b.tensor.name, b.space, b.space_next, 1) for b in outs])
        if all(nxt is not None for _, _, nxt, _ in flags):
            starts = self._local_starts(m, flags)
        else:       # a group that stalls: ``accept`` is not a register
            start = Signal()
            m.d.comb += start.eq(Cat(*[flag for _, flag, _, _ in flags]).all())
            starts = [start] * len(flags)
        m.d.comb += [b.start.eq(s) for b, s in zip(groups + ins + outs, starts)]
        if len(groups) == 1 and groups[0].announces_finish:
            # Each buffer takes its own copy of the finish, through registers of its own from
            # the announcement, so that no one register feeds every buffer across the die.
            finishes = [self._own_finish(m, groups[0].finished_ahead, b.tensor.name)
                        for b in ins + outs]
        else:
            finishes = [self._finish(m, groups)] * len(ins + outs)
        m.d.comb += [b.consume.eq(f) for b, f in zip(ins, finishes)]
        m.d.comb += [b.commit.eq(f) for b, f in zip(outs, finishes[len(ins):])]
        # A chain's own register of the announcement: the controller's tap, drawn towards the
        # other buffers' copies, sits too far from the chain's decision to feed it.
        m.d.comb += [b.commit_ahead.eq(copies(m, groups[0].finished_ahead, 1,
                                              f"commit_{b.tensor.name}", self.target)[0])
                     for b in outs if getattr(b, "lead", 1) > 1]

    def _local_starts(self, m, flags):
        """Each block's own ``start``: its flag and, beside it, a copy of every other block's
        (a register of its next value), so that a start crosses the die as a flag's next value
        into a copy, not as one AND that drives every block (a path from one block's flag
        through the AND to another block's registers, across the die in a cycle). The copies
        equal the flags (``handshake``), so every block starts in the same cycle."""
        self.handshake = []
        starts = []
        for name, own, _, _ in flags:
            terms = [own]
            for other, flag, nxt, init in flags:
                if flag is own:
                    continue
                # Copies clear to 0 in reset: a flag that resets to 1 is copied inverted.
                q, = copies(m, nxt ^ init, 1, f"hs_{other}_at_{name}", self.target)
                self.handshake.append((q ^ init, flag))
                terms.append(q ^ init)
            start = Signal(name=f"start_{name}")
            m.d.comb += start.eq(Cat(*terms).all())
            starts.append(start)
        return starts

    def _finish(self, m, groups):
        """The oldest problem has finished in every group."""
        finish = Signal()
        if len(groups) == 1:
            m.d.comb += finish.eq(groups[0].finished)
            return finish
        pending = []
        for k, g in enumerate(groups):
            n = Signal(range(self.slots + 2), name=f"g{k}_finished")
            m.d.sync += n.eq(n + g.finished - finish)
            pending.append((n != 0) | g.finished)
        m.d.comb += finish.eq(Cat(*pending).all())
        return finish

    def _own_finish(self, m, ahead, name):
        """``ahead`` (a finish announced ``FINISH_AHEAD`` cycles early) through that many kept
        registers (``rtl.replica``): a buffer's own copy of the finish."""
        for c in range(FINISH_AHEAD):
            ahead = copies(m, ahead, 1, f"finish_{name}{c}", self.target)[0]
        return ahead


def fifo_instance(n):
    """Name of the n-th FIFO's instance in the generated top (``design.json`` lists them)."""
    return f"fifo{n}"
