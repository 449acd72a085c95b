"""The members of a lockstep group, each a module of its own, built once per kind.

A member's datapath compiles (``datapath.Member``) into a module whose edge is a
``boundary.Boundary``; its copies of the control lines (``delay.copy_line``) join it once
every member's taps are known, since a parent keeps the copies its children start from.
Members of one *layout* — one ``schedule.kinds`` kind, the same copies relative to their skew —
make the same module: with a ``kinds.Kinds`` (for Verilog) one of them is built and the others
instantiate it; without (Amaranth's simulator, proofs) every member is built. Either way the
group resolves each member's requests to its own signals: its taps of the shared lines, its
parent's copies, its links, its ports and FIFOs.
"""
from collections import Counter
from dataclasses import dataclass

from amaranth.hdl import ClockSignal, Instance, Module, ResetSignal, Signal

from ..schedule.lines import copy_spans, takes_shared
from ..schedule.ports import safe_name
from .boundary import (Boundary, CopyIn, CopyOut, Enable, FifoField, LinkIn, LinkOut,
                       MemoryField, Stall, Tap)
from .datapath import Member
from .delay import copy_line
from .kinds import stem as _stem


@dataclass
class _Built:
    """A member compiled into its module ``m``, its edge ``outside``."""
    m: Module
    outside: Boundary


class Members:
    """Builds the members of ``group`` into its module ``m``.

    Parameters
    ----------
    group : rtl.group.Group
    m : Module
        The group's module.
    en : Signal
        The group's enable.
    lines : delay.DelayLines
    controller : controller.Controller
    links : dict
        Channel -> its link registers (``rtl.group``).
    kinds : rtl.kinds.Kinds or None
        Where a module that several members instantiate is kept (for Verilog).
    """

    def __init__(self, group, m, en, lines, controller, links, kinds=None):
        self.group, self.m, self.en, self.lines = group, m, en, lines
        self.controller, self.links, self.kinds = controller, links, kinds
        scheduled = group.scheduled
        self.names, self.skew = scheduled.members, scheduled.skew
        self.parents = group.parents
        self.plan_kinds = group.plan.kinds[scheduled.name]
        self.layouts = {}       # member -> what its module is built from (``_layout``)
        self.stalls = []        # each member's stall output
        self.outs = {}          # (line, member, delay) -> the member's copy, for its children

    def build(self):
        """Add every member to the group's module; returns their stall signals."""
        built, probe = {}, {}
        for name in self.names:
            kind = self.plan_kinds.kind[name]
            if self.kinds is None or kind not in probe:
                built[name] = self._compile(name)
                probe.setdefault(kind, built[name])
        # A member's taps are its kind's (``schedule.kinds``), its own where it was compiled.
        taps = {name: [r for r in (built.get(name) or probe[self.plan_kinds.kind[name]])
                       .outside.inputs if isinstance(r, Tap)] for name in self.names}
        self.spans = self._spans(taps)
        self.layouts = layouts = {name: self._layout(name, taps[name]) for name in self.names}
        count = Counter(layouts.values())
        made, alone = {}, Counter()
        for name in self.names:
            layout = layouts[name]
            shared = self.kinds is not None and count[layout] > 1
            if not (shared and layout in made):
                b = built.pop(name, None) or self._compile(name)
                edge = self._finish(name, b, taps[name])
                if not shared:
                    self._connect(name, edge)
                    self.m.submodules[safe_name(name)] = b.m
                    alone[_stem(safe_name(name))] += 1
                    continue
                kind = self.kinds.module((self.group.scheduled.name,), _stem(safe_name(name)), b.m,
                                         [(sig, d) for _, sig, d in edge])
                made[layout] = (kind, [(req, d) for req, _, d in edge])
            self._instance(name, *made[layout])
        if self.kinds is not None:
            stems = {name: _stem(safe_name(name)) for name in self.names}
            for stem, n in Counter(stems.values()).items():
                used = {made[layouts[x]][0].name for x in self.names
                        if stems[x] == stem and layouts[x] in made}
                if used:
                    self.kinds.count(stem, n, alone[stem], used)
        return self.stalls

    def _compile(self, name):
        m = Module()
        outside = Boundary(self.group, self.plan_kinds.roles[name], self.lines.shape)
        Member(self.group, self.controller, outside, m, name).compile()
        return _Built(m, outside)

    def _spans(self, taps):
        """Line -> member -> the span of the member's copy (``schedule.lines.copy_spans``):
        every tap at a delay of 1 or more of a member with a parent is of its copy."""
        uses = {}
        for name in self.names:
            if self.parents.get(name) is None:
                continue
            for t in taps[name]:
                delay = self.skew[name] + t.level
                if delay >= 1:
                    uses.setdefault(t.line, {}).setdefault(name, set()).add(delay)
        return {line: copy_spans(u, self.parents) for line, u in uses.items()}

    def _own(self, name, tap):
        """Whether ``tap`` of member ``name`` reads the member's own copy."""
        return self.parents.get(name) is not None and self.skew[name] + tap.level >= 1

    def _layout(self, name, taps):
        """What the module of member ``name`` is built from, relative to its skew: its kind,
        which taps are of its copies, each copy's span, start and the delays its children
        start from."""
        skew = self.skew[name]
        copies = []
        for line in sorted(self.spans, key=lambda ln: ln.order):
            span = self.spans[line].get(name)
            if span is not None:
                copies.append((line, span[0] - skew, span[1] - skew,
                               takes_shared(name, span, self.parents),
                               tuple(sorted(d - skew for d in self._starts(name, line)))))
        return (self.plan_kinds.kind[name], tuple((t, self._own(name, t)) for t in taps),
                tuple(copies))

    def _starts(self, name, line):
        """The delays of ``name``'s copy of ``line`` where its children's copies start."""
        spans = self.spans[line]
        return {spans[c][0] - 1 for c, p in self.parents.items()
                if p == name and c in spans and not takes_shared(c, spans[c], self.parents)}

    def _finish(self, name, b, taps):
        """Add member ``name``'s copies of the control lines to its module; returns its edge:
        ``(request, port, "i" or "o")`` each."""
        skew, outside = self.skew[name], b.outside
        edge = [(r, sig, "i") for r, sig in outside.inputs.items()
                if not (isinstance(r, Tap) and self._own(name, r))]
        for line in sorted(self.spans, key=lambda ln: ln.order):
            span = self.spans[line].get(name)
            if span is None:
                continue
            label = self.lines.label(line)
            source = Signal(self.lines.shape(line), name=f"{label}_from")
            edge.append((CopyIn(line), source, "i"))
            copy = copy_line(b.m, line, label, self.lines.shape(line), span, source,
                             takes_shared(name, span, self.parents), outside.en,
                             self.group.target)
            for t in taps:
                if t.line == line and self._own(name, t):
                    b.m.d.comb += outside.inputs[t].eq(copy[skew + t.level])
            edge += [(CopyOut(line, d - skew), copy[d], "o")
                     for d in sorted(self._starts(name, line))]
        edge += [(r, sig, "o") for r, sig in outside.outputs.items()]
        return edge

    def _connect(self, name, edge):
        for request, sig, direction in edge:
            outer = self._resolve(name, request)
            self.m.d.comb += sig.eq(outer) if direction == "i" else outer.eq(sig)

    def _instance(self, name, kind, edge):
        ports = [(d, port, self._resolve(name, request))
                 for port, (request, d) in zip(kind.ports, edge)]
        self.m.submodules[safe_name(name)] = Instance(
            kind.name, ("i", "clk", ClockSignal()), ("i", "rst", ResetSignal()), *ports)

    def _resolve(self, name, request):
        """Member ``name``'s own signal for ``request``."""
        skew, roles = self.skew[name], self.plan_kinds.roles[name]
        if isinstance(request, Enable):
            return self.en
        if isinstance(request, Tap):
            return self.lines.tap(request.line, skew + request.level)
        if isinstance(request, CopyIn):
            lo = self.spans[request.line][name][0]
            if takes_shared(name, self.spans[request.line][name], self.parents):
                return self.lines.tap(request.line, lo)
            return self._copy(self.parents[name], request.line, lo - 1)
        if isinstance(request, CopyOut):
            return self._copy(name, request.line, skew + request.level)
        if isinstance(request, (LinkIn, LinkOut)):
            regs = self.links[roles.channels[request.channel]]
            return regs[-1] if isinstance(request, LinkIn) else regs[0]
        if isinstance(request, FifoField):
            return getattr(self.group.fifo_port(request.op, roles.channels[request.channel]),
                           request.field)
        if isinstance(request, MemoryField):
            return getattr(getattr(self.group, roles.ports[request.port]), request.field)
        assert isinstance(request, Stall), request
        stall = Signal(name=f"stall_{safe_name(name)}")
        self.stalls.append(stall)
        return stall

    def _copy(self, name, line, delay):
        """Member ``name``'s copy of ``line`` at ``delay``, as its children see it."""
        key = (line, name, delay)
        if key not in self.outs:
            self.outs[key] = Signal(self.lines.shape(line), reset_less=line.datapath,
                                    name=f"{self.lines.label(line)}_d{delay}")
        return self.outs[key]

