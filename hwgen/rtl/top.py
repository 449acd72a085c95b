"""The generated top: host stream ports, input buffers, compute groups, FIFOs, output buffers.

Problems overlap: while one problem computes, the next ones load into other slots of the input
banks and earlier ones drain from the output buffers; in the array, a problem starts as soon as
the previous one has issued its iterations, so their wavefronts follow each other. Every value a
problem uses travels with its slot number, so two problems can share the array.
"""
from amaranth.hdl import Cat, Module, Signal, unsigned
from amaranth.lib import fifo, stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..ir.layout import banking, tensor_accesses
from . import timing
from .buffer import InputBuffer, OutputBuffer
from .group import Group
from .schedule import schedule



def tensor_grids(graph):
    """Grid of the tasks accessing each tensor (for its banking); () when none is sharded."""
    grids = {}
    for name, inst, *_ in tensor_accesses(graph):
        grids.setdefault(name, inst.grid)
    return grids


class Top(wiring.Component):
    """The accelerator for one task graph. One ``stream`` port per tensor, named after it.

    Parameters
    ----------
    graph : ir.Graph
    lanes : int or dict or None
        Elements per host beat: one number for every port, a dict per tensor name, or None to
        choose per tensor the fewest lanes that let loading and draining keep up with compute.
    """

    def __init__(self, graph, lanes=None):
        self._MustUse__silence = True       # no "never used" warning if a check below fails
        self.graph = graph
        self.schedule = schedule(graph)
        grids = tensor_grids(graph)
        self.bankings = {t.name: banking(t, grids.get(t.name, ())) for t in graph.tensors.values()}
        self.lanes = {}
        for t in graph.tensors.values():
            want = lanes.get(t.name) if isinstance(lanes, dict) else lanes
            self.lanes[t.name] = self._auto_lanes(t) if want is None else \
                timing.check_lanes(t, self.bankings[t.name], want)
        members = {}
        for t in graph.tensors.values():
            sig = stream.Signature(unsigned(t.dtype.bits * self.lanes[t.name]))
            members[t.name] = In(sig) if t.direction == "in" else Out(sig)
        super().__init__(members)
        self._MustUse__silence = False

    @property
    def _compute(self):
        return self.schedule.compute_cycles

    @property
    def _starts(self):
        """Fewest cycles between two problem starts in the array (one problem at a time when
        FIFOs couple the groups)."""
        if self.schedule.fifos:
            return self._compute
        return max(g.spacing for g in self.schedule.groups)

    def _auto_lanes(self, t):
        return timing.auto_lanes(t, self.bankings[t.name], self._compute, self._starts)

    def _timing(self):
        return timing.host_timing(list(self.graph.tensors.values()), self.bankings, self.lanes,
                                  self._compute, self._starts)

    @property
    def slots(self):
        return self._timing()[1]

    @property
    def expected_cycles(self):
        """Cycles of one problem that finds the accelerator idle, first input beat to last
        output beat, when the host never stalls: load, compute, commit, drain."""
        return timing.latency(list(self.graph.tensors.values()), self.lanes, self._compute)

    @property
    def interval_cycles(self):
        """Cycles per problem in steady state when the host sends problems back to back: the
        slowest of loading, starting problems (the array takes a new one as soon as the last
        has issued its iterations) and draining."""
        return self._timing()[0]

    def elaborate(self, platform):
        m = Module()
        graph = self.graph
        groups = []
        for g in self.schedule.groups:
            # Without FIFOs every group starts a problem exactly every interval_cycles, so that
            # loading, draining and the output chain never hold a start back in steady state.
            spacing = None if self.schedule.fifos else self.interval_cycles
            grp = Group(graph, self.schedule, g, self.bankings, self.slots, spacing)
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
            buf = InputBuffer(t, self.bankings[t.name], [b for _, _, b in readers[t.name]],
                              self.lanes[t.name], self.slots)
            m.submodules[f"in_{t.name}"] = buf
            connect(m, wiring.flipped(getattr(self, t.name)), buf.host)
            for k, (grp, pname, _) in enumerate(readers[t.name]):
                connect(m, getattr(grp, pname), getattr(buf, f"rd{k}"))
            ins.append(buf)
        for t in graph.outputs:
            buf = OutputBuffer(t, self.bankings[t.name], [b for _, _, b in writers[t.name]],
                               self.lanes[t.name], self.slots)
            m.submodules[f"out_{t.name}"] = buf
            connect(m, buf.host, wiring.flipped(getattr(self, t.name)))
            for k, (grp, pname, _) in enumerate(writers[t.name]):
                connect(m, getattr(grp, pname), getattr(buf, f"wr{k}"))
            outs.append(buf)
        self.fifos = {}         # channel -> SyncFIFO, for simulations that report stuck streams
        for n, name in enumerate(self.schedule.fifos):
            ch = graph.channels[name]
            q = fifo.SyncFIFO(width=ch.dtype.bits, depth=ch.depth)
            m.submodules[fifo_instance(n)] = q
            self.fifos[name] = q
            for grp in groups:
                for pname, c in grp.fifo_puts:
                    if c == name:
                        p = getattr(grp, pname)
                        m.d.comb += [q.w_data.eq(p.data), q.w_en.eq(p.en), p.rdy.eq(q.w_rdy)]
                for pname, c in grp.fifo_gets:
                    if c == name:
                        p = getattr(grp, pname)
                        m.d.comb += [p.data.eq(q.r_data), q.r_en.eq(p.en), p.rdy.eq(q.r_rdy)]

        # A problem starts when every group accepts one, its inputs are loaded and its output
        # slot is free. Problems finish in order; when every group has finished the oldest one,
        # its input slots are released and its results committed for draining.
        start, finish = Signal(), Signal()
        m.d.comb += start.eq(_all([g.accept for g in groups] + [b.loaded for b in ins] +
                                  [b.space for b in outs]))
        m.d.comb += [g.start.eq(start) for g in groups] + [b.start.eq(start) for b in ins + outs]
        if len(groups) == 1:
            m.d.comb += finish.eq(groups[0].finished)
        else:
            pending = []
            for k, g in enumerate(groups):
                n = Signal(range(self.slots + 2), name=f"g{k}_finished")
                m.d.sync += n.eq(n + g.finished - finish)
                pending.append((n != 0) | g.finished)
            m.d.comb += finish.eq(_all(pending))
        m.d.comb += [b.consume.eq(finish) for b in ins] + [b.commit.eq(finish) for b in outs]
        return m


def fifo_instance(n):
    """Name of the n-th FIFO's instance in the generated top (``design.json`` lists them)."""
    return f"fifo{n}"


def _all(signals):
    return Cat(*signals).all()
