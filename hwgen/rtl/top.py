"""The generated top: host stream ports, input buffers, compute groups, FIFOs, output buffers.

A problem runs in three phases: LOAD (every input port is accepted until its tensor is in the
banks), COMPUTE (all groups run from one start pulse until each is done), DRAIN (every output
tensor streams out). After the last output beat the top is back in LOAD for the next problem.
"""
from amaranth.hdl import Module, Signal, unsigned
from amaranth.lib import fifo, stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..errors import HwgenError
from ..ir.layout import banking
from .buffer import InputBuffer, OutputBuffer, drain_latency
from .group import Group
from .schedule import schedule

# Cycles the phase control adds to a problem: COMPUTE -> DRAIN (seeing done). The start pulse
# goes out in the cycle the last input is seen loaded.
PHASE_OVERHEAD = 1


def tensor_grids(graph):
    """Grid of the tasks accessing each tensor (for its banking); () when none is sharded."""
    from ..ir.layout import tensor_accesses
    grids = {}
    for name, inst, *_ in tensor_accesses(graph):
        grids.setdefault(name, inst.grid)
    return grids


class Top(wiring.Component):
    """The accelerator for one task graph. One ``stream`` port per tensor, named after it."""

    def __init__(self, graph, lanes=1):
        if lanes != 1:
            self._MustUse__silence = True
            raise HwgenError("only lanes=1 host ports are supported so far")
        self.graph = graph
        self.lanes = lanes
        self.schedule = schedule(graph)
        grids = tensor_grids(graph)
        self.bankings = {t.name: banking(t, grids.get(t.name, ())) for t in graph.tensors.values()}
        members = {}
        for t in graph.tensors.values():
            sig = stream.Signature(unsigned(t.dtype.bits * lanes))
            members[t.name] = In(sig) if t.direction == "in" else Out(sig)
        super().__init__(members)

    @property
    def expected_cycles(self):
        """Cycles of one problem, first input beat to last output beat, when the host never
        stalls: load the largest input, compute, drain the largest output."""
        n_in = max(_numel(t) for t in self.graph.inputs)
        drain = max(drain_latency(self.bankings[t.name]) + _numel(t) for t in self.graph.outputs)
        return n_in + self.schedule.compute_cycles + PHASE_OVERHEAD + drain

    def elaborate(self, platform):
        m = Module()
        graph = self.graph
        groups = []
        for g in self.schedule.groups:
            grp = Group(graph, self.schedule, g, self.bankings)
            m.submodules[g.name] = grp
            groups.append(grp)
        readers = {t.name: [] for t in graph.inputs}
        writers = {t.name: [] for t in graph.outputs}
        for grp in groups:
            for pname, tensor, bank in grp.read_ports:
                readers[tensor].append((grp, pname, bank))
            for pname, tensor, bank in grp.write_ports:
                writers[tensor].append((grp, pname, bank))
        ins, outs = [], []
        for t in graph.inputs:
            buf = InputBuffer(t, self.bankings[t.name], [b for _, _, b in readers[t.name]])
            m.submodules[f"in_{t.name}"] = buf
            connect(m, wiring.flipped(getattr(self, t.name)), buf.host)
            for k, (grp, pname, _) in enumerate(readers[t.name]):
                connect(m, getattr(grp, pname), getattr(buf, f"rd{k}"))
            ins.append(buf)
        for t in graph.outputs:
            buf = OutputBuffer(t, self.bankings[t.name], [b for _, _, b in writers[t.name]])
            m.submodules[f"out_{t.name}"] = buf
            connect(m, buf.host, wiring.flipped(getattr(self, t.name)))
            for k, (grp, pname, _) in enumerate(writers[t.name]):
                connect(m, getattr(grp, pname), getattr(buf, f"wr{k}"))
            outs.append(buf)
        for name in self.schedule.fifos:
            ch = graph.channels[name]
            q = fifo.SyncFIFO(width=ch.dtype.bits, depth=ch.depth)
            m.submodules[f"fifo_{len(m.submodules._builder._named_submodules)}"] = q
            for grp in groups:
                for pname, c in grp.fifo_puts:
                    if c == name:
                        p = getattr(grp, pname)
                        m.d.comb += [q.w_data.eq(p.data), q.w_en.eq(p.en), p.rdy.eq(q.w_rdy)]
                for pname, c in grp.fifo_gets:
                    if c == name:
                        p = getattr(grp, pname)
                        m.d.comb += [p.data.eq(q.r_data), q.r_en.eq(p.en), p.rdy.eq(q.r_rdy)]

        start = Signal()
        all_loaded = _all([b.loaded for b in ins])
        all_done = _all([g.done for g in groups])
        all_drained = _all([b.drained for b in outs])
        m.d.comb += [g.start.eq(start) for g in groups]
        with m.FSM():
            with m.State("LOAD"):
                m.d.comb += [b.load.eq(1) for b in ins]
                with m.If(all_loaded):
                    m.d.comb += start.eq(1)
                    m.d.comb += [b.clear.eq(1) for b in ins]
                    m.next = "COMPUTE"
            with m.State("COMPUTE"):
                with m.If(all_done):
                    m.next = "DRAIN"
            with m.State("DRAIN"):
                m.d.comb += [b.drain.eq(1) for b in outs]
                with m.If(all_drained):
                    m.d.comb += [b.clear.eq(1) for b in outs]
                    m.next = "LOAD"
        return m


def _all(signals):
    v = signals[0]
    for s in signals[1:]:
        v = v & s
    return v


def _numel(t):
    n = 1
    for d in t.shape:
        n *= d
    return n
