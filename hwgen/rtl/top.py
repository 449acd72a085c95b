"""The generated top: host stream ports, input buffers, compute groups, FIFOs, output buffers.

Problems overlap in three stages: while one problem computes (all groups run from one start
pulse until each is done), the next one loads into the other half of the input banks and the
previous one drains from the output buffers. A problem starts when its inputs are loaded, the
groups are idle and the output buffers have room.
"""
from amaranth.hdl import Module, Signal, unsigned
from amaranth.lib import fifo, stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..errors import HwgenError
from ..ir.layout import banking
from .buffer import DRAIN_LATENCY, InputBuffer, OutputBuffer, chained, lane_split
from .group import Group
from .schedule import schedule



def tensor_grids(graph):
    """Grid of the tasks accessing each tensor (for its banking); () when none is sharded."""
    from ..ir.layout import tensor_accesses
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
        self.graph = graph
        self.schedule = schedule(graph)
        grids = tensor_grids(graph)
        self.bankings = {t.name: banking(t, grids.get(t.name, ())) for t in graph.tensors.values()}
        self.lanes = {}
        for t in graph.tensors.values():
            want = lanes.get(t.name) if isinstance(lanes, dict) else lanes
            self.lanes[t.name] = self._auto_lanes(t) if want is None else self._check_lanes(t, want)
        members = {}
        for t in graph.tensors.values():
            sig = stream.Signature(unsigned(t.dtype.bits * self.lanes[t.name]))
            members[t.name] = In(sig) if t.direction == "in" else Out(sig)
        super().__init__(members)

    def _check_lanes(self, t, lanes):
        try:
            if t.direction == "in":
                lane_split(self.bankings[t.name], t.shape, lanes)
            elif lanes != 1 and (not chained(self.bankings[t.name]) or _numel(t) % lanes):
                raise HwgenError(f"output '{t.name}' supports lanes=1"
                                 + (" or a divisor of its size" if chained(self.bankings[t.name])
                                    else ""))
        except HwgenError as e:
            self._MustUse__silence = True
            raise HwgenError(f"tensor '{t.name}': {e.message}") from None
        return lanes

    def _auto_lanes(self, t):
        """The fewest lanes (a divisor of the innermost dimension that fits the layout) that
        move the tensor within one problem's compute time; the most that fit otherwise."""
        need = -(-_numel(t) // max(1, self.schedule.compute_cycles))
        fitting = []
        for lanes in range(1, t.shape[-1] + 1):
            if t.shape[-1] % lanes == 0:
                try:
                    fitting.append(self._check_lanes(t, lanes))
                except HwgenError:
                    pass
        enough = [n for n in fitting if n >= need]
        return min(enough) if enough else max(fitting)

    def _beats(self, t):
        return _numel(t) // self.lanes[t.name]

    @property
    def expected_cycles(self):
        """Cycles of one problem that finds the accelerator idle, first input beat to last
        output beat, when the host never stalls: load, compute, commit, drain."""
        n_in = max(self._beats(t) for t in self.graph.inputs)
        n_out = max(self._beats(t) for t in self.graph.outputs)
        return n_in + self.schedule.compute_cycles + DRAIN_LATENCY + n_out

    @property
    def interval_cycles(self):
        """Cycles per problem in steady state when the host sends problems back to back: the
        slowest of loading, computing (plus the cycle that hands results over) and draining."""
        n_in = max(self._beats(t) for t in self.graph.inputs)
        n_out = max(self._beats(t) for t in self.graph.outputs)
        return max(n_in, self.schedule.compute_cycles + 1, n_out + 1)

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
            buf = InputBuffer(t, self.bankings[t.name], [b for _, _, b in readers[t.name]],
                              self.lanes[t.name])
            m.submodules[f"in_{t.name}"] = buf
            connect(m, wiring.flipped(getattr(self, t.name)), buf.host)
            for k, (grp, pname, _) in enumerate(readers[t.name]):
                connect(m, getattr(grp, pname), getattr(buf, f"rd{k}"))
            ins.append(buf)
        for t in graph.outputs:
            buf = OutputBuffer(t, self.bankings[t.name], [b for _, _, b in writers[t.name]],
                               self.lanes[t.name])
            m.submodules[f"out_{t.name}"] = buf
            connect(m, buf.host, wiring.flipped(getattr(self, t.name)))
            for k, (grp, pname, _) in enumerate(writers[t.name]):
                connect(m, getattr(grp, pname), getattr(buf, f"wr{k}"))
            outs.append(buf)
        for n, name in enumerate(self.schedule.fifos):
            ch = graph.channels[name]
            q = fifo.SyncFIFO(width=ch.dtype.bits, depth=ch.depth)
            m.submodules[f"fifo{n}"] = q
            for grp in groups:
                for pname, c in grp.fifo_puts:
                    if c == name:
                        p = getattr(grp, pname)
                        m.d.comb += [q.w_data.eq(p.data), q.w_en.eq(p.en), p.rdy.eq(q.w_rdy)]
                for pname, c in grp.fifo_gets:
                    if c == name:
                        p = getattr(grp, pname)
                        m.d.comb += [p.data.eq(q.r_data), q.r_en.eq(p.en), p.rdy.eq(q.r_rdy)]

        # One problem computes at a time; its inputs were loaded into one half while the
        # previous problem computed, and its results drain while the next one computes.
        running, start, finish = Signal(), Signal(), Signal()
        m.d.comb += [start.eq(~running & _all([b.loaded for b in ins]) &
                              _all([b.space for b in outs])),
                     finish.eq(running & _all([g.done for g in groups]))]
        m.d.comb += [g.start.eq(start) for g in groups]
        m.d.comb += [b.consume.eq(finish) for b in ins] + [b.commit.eq(finish) for b in outs]
        with m.If(start):
            m.d.sync += running.eq(1)
        with m.Elif(finish):
            m.d.sync += running.eq(0)
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
