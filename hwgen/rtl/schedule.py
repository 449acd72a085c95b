"""The static schedule of a task graph: pipeline levels, lockstep groups, skews and cycles.

Each task instance runs one iteration of its (flattened) loop nest per enabled clock. Inside an
iteration, values have a *level*: the pipeline stage where they exist. A stream get is at level
0; a memory read adds two (synchronous read, then a register: ``READ_LATENCY``); a multiply of
two run-time values adds one (the product register: ``MULT_STAGES``). A loop-carried variable
is written and read back at one fixed level, so ``c += a * b`` updates ``c`` every cycle; so is
every element of a local array (registers read combinationally; a memory's read address goes
out one level earlier and its read port is transparent to the write).

Instances with the same loop structure whose put and get on a stream happen on the same
iterations run in *lockstep*: one controller, one stall, the consumer ``skew`` cycles behind the
producer, and the stream lowered to a chain of registers. Other streams are FIFOs between groups.
Instances that touch no FIFO never stall, so all of them with the same structure share a group.
Because everything is static between stalls, the cycle count of a problem follows from this
schedule; ``compute_cycles`` simulates it where FIFOs make it depend on occupancy.
"""
import itertools
from dataclasses import dataclass, field

from ..errors import HwgenError
from ..ir.graph import (ArrayRead, ArrayWrite, Assign, BinOp, Const, Get, LoopIndex, Neg, Put,
                        Read, Select, SetSlice, Slice, VarRef, Write, stmt_exprs, pred_holds)
from ..ir.layout import array_in_memory


# A tensor read takes two stages: the synchronous memory read, then a register on the read data
# (block RAM's clock-to-output is 5.8 ns on ECP5; without the register it fed the multiplier).
READ_LATENCY = 2

# A multiply of two run-time values ends in a product register (Yosys does not pack it into the
# DSP block). With 2, operand registers are added in front of the multiplier; on ECP5 nextpnr did
# not place them next to the DSP (8x8 gemm_os: 105.8 MHz either way), so one stage it is.
MULT_STAGES = 1


class Levels:
    """Pipeline levels of one instance: variable and local array levels, stream op levels and
    depth."""

    def __init__(self, inst):
        self.inst = inst
        self.var = {v: 0 for v in inst.vars}
        self.arr = {a: int(array_in_memory(t)) for a, t in inst.arrays.items()}
        for _ in range(4 * (len(self.var) + len(self.arr)) + 4):
            new = self._pass()
            if new == (self.var, self.arr):
                break
            self.var, self.arr = new
        else:
            var, arr = self._pass()
            grow = [v for v in self.var if var[v] != self.var[v]] + \
                [a for a in self.arr if arr[a] != self.arr[a]]
            loc = self._assign_loc(grow[0])
            raise HwgenError(f"in task {inst.name}: '{grow[0]}' cannot be updated every cycle: "
                             "its new value needs a multiply or memory read of its old value. "
                             "Accumulate products instead (c += a * b).", loc)
        self.puts = {}      # channel -> level
        self.gets = {}      # channel -> level
        self.writes = {}    # id(Write statement) -> level
        self.depth = 1
        self._pass(record=True)

    def _assign_loc(self, var):
        """The line of the assignment that feeds ``var`` back into itself."""
        found = self.inst.loc
        for seg in self.inst.segments:
            for s in seg.body:
                if isinstance(s, Assign) and s.var == var and any(
                        isinstance(e, VarRef) and e.name == var for e in stmt_exprs(s)):
                    found = s.loc
                if isinstance(s, ArrayWrite) and s.array == var:
                    found = s.loc
        return found

    def level(self, e, env):
        if isinstance(e, (Const, LoopIndex)):
            return 0
        if isinstance(e, VarRef):
            return env.get(e.name, self.var[e.name])
        if isinstance(e, Get):
            return 0
        if isinstance(e, Read):
            return max([self.level(i, env) for i in e.index] + [0]) + READ_LATENCY
        if isinstance(e, ArrayRead):
            return self.arr[e.array]
        if isinstance(e, BinOp):
            a, b = self.level(e.lhs, env), self.level(e.rhs, env)
            both_runtime = not isinstance(e.lhs, Const) and not isinstance(e.rhs, Const)
            return max(a, b) + (MULT_STAGES if e.op == "*" and both_runtime else 0)
        if isinstance(e, (Neg, Slice)):
            return self.level(e.operand, env)
        if isinstance(e, SetSlice):
            return max(self.level(e.operand, env), self.level(e.value, env))
        if isinstance(e, Select):
            return max(self.level(x, env) for x in (e.cond, e.a, e.b))
        raise TypeError(e)

    def _pass(self, record=False):
        new, arr = dict(self.var), dict(self.arr)
        for seg in self.inst.segments:
            env = {}
            for s in seg.body:
                for e in stmt_exprs(s):
                    if isinstance(e, ArrayRead):
                        # The index must be ready when the element is read (a memory's
                        # address one level earlier).
                        lead = int(array_in_memory(self.inst.arrays[e.array]))
                        arr[e.array] = max([arr[e.array]] +
                                           [self.level(i, env) + lead for i in e.index])
                lv = self.level(s.value, env)
                if isinstance(s, (Write, ArrayWrite)):
                    lv = max([lv] + [self.level(i, env) for i in s.index])
                if isinstance(s, ArrayWrite):
                    arr[s.array] = max(arr[s.array], lv)
                if isinstance(s, Assign):
                    if s.pred:
                        lv = max(lv, env.get(s.var, self.var[s.var]))
                    env[s.var] = lv
                    new[s.var] = max(new[s.var], lv)
                if record:
                    self.depth = max(self.depth, lv + 1)
                    if isinstance(s, Write):
                        self.writes[id(s)] = lv
                    if isinstance(s, Put):
                        if s.channel in self.puts:
                            raise HwgenError(f"in task {self.inst.name}: stream '{s.channel}' is "
                                             "put more than once in this task; hardware streams "
                                             "take one put per instance", s.loc)
                        self.puts[s.channel] = lv
                    for e in stmt_exprs(s):
                        if isinstance(e, Get):
                            if e.channel in self.gets:
                                raise HwgenError(f"in task {self.inst.name}: stream '{e.channel}'"
                                                 " is read more than once in this task; get it "
                                                 "once into a local", e.loc)
                            self.gets[e.channel] = 0
                        if isinstance(e, Read):
                            self.depth = max(self.depth, self.level(e, env) + 1)
            if record:
                for v in env:
                    self.depth = max(self.depth, self.var[v] + 1)
                for a in self.arr:
                    self.depth = max(self.depth, self.arr[a] + 1)
        return new, arr


def _op_pattern(inst, channel, kind):
    """Where in the iteration space a stream op happens: (segment, predicates)."""
    for g, seg in enumerate(inst.segments):
        for s in seg.body:
            if kind == "put" and isinstance(s, Put) and s.channel == channel:
                return g, s.pred
            if kind == "get" and any(isinstance(e, Get) and e.channel == channel
                                     for e in stmt_exprs(s)):
                return g, s.pred


def structure(inst):
    return tuple(seg.trips for seg in inst.segments)


@dataclass
class Group:
    """Instances sharing one controller and one stall."""
    name: str
    members: list                       # instance names, in graph order
    skew: dict                          # instance -> cycles behind the group's base
    structure: tuple                    # trip counts per segment, shared by all members
    iterations: int
    taps: int                           # largest skew + level used by any member
    links: dict = field(default_factory=dict)   # register channel -> delay in cycles
    spacing: int = 0                    # fewest enabled cycles between two problem starts


@dataclass
class Schedule:
    levels: dict                        # instance -> Levels
    groups: list
    group_of: dict                      # instance -> group name
    fifos: list                         # channels lowered to FIFOs
    compute_cycles: int                 # from the start pulse to the last group's finish pulse


def schedule(graph):
    levels = {name: Levels(inst) for name, inst in graph.instances.items()}
    parent = {name: name for name in graph.instances}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    lockstep = []
    for name, ch in graph.channels.items():
        p, c = graph.instances[ch.producer], graph.instances[ch.consumer]
        if p is not c and structure(p) == structure(c) and \
                _op_pattern(p, name, "put") == _op_pattern(c, name, "get"):
            lockstep.append(name)
            parent[find(p.name)] = find(c.name)
    fifos = [n for n in graph.channels if n not in lockstep]
    # Instances that never touch a FIFO never stall: those with the same loop structure share
    # one controller (and can share identical memory reads: multicast).
    on_fifo = {find(x) for n in fifos for x in (graph.channels[n].producer,
                                                 graph.channels[n].consumer)}
    free = {}
    for name, inst in graph.instances.items():
        if find(name) not in on_fifo:
            other = free.setdefault(structure(inst), name)
            parent[find(name)] = find(other)

    members = {}
    for name in graph.instances:
        members.setdefault(find(name), []).append(name)
    groups, group_of = [], {}
    for gi, (root, names) in enumerate(members.items()):
        skew = {n: 0 for n in names}
        edges = [graph.channels[n] for n in lockstep if find(graph.channels[n].producer) == root]
        for _ in range(len(names) + 1):
            changed = False
            for ch in edges:
                need = skew[ch.producer] + levels[ch.producer].puts[ch.name] + 1 \
                    - levels[ch.consumer].gets[ch.name]
                if skew[ch.consumer] < need:
                    skew[ch.consumer] = need
                    changed = True
            if not changed:
                break
        else:
            ch = edges[0]
            raise HwgenError(f"streams between {', '.join(names[:4])}... form a cycle; cyclic "
                             "stream graphs are not supported yet", ch.loc)
        base = min(skew.values())
        skew = {n: s - base for n, s in skew.items()}
        inst0 = graph.instances[names[0]]
        group = Group(f"g{gi}", names, skew, structure(inst0),
                      sum(seg.iterations for seg in inst0.segments),
                      max(skew[n] + levels[n].depth - 1 for n in names))
        for ch in edges:
            group.links[ch.name] = skew[ch.consumer] + levels[ch.consumer].gets[ch.name] \
                - skew[ch.producer] - levels[ch.producer].puts[ch.name]
        groups.append(group)
        for n in names:
            group_of[n] = group.name
    sched = Schedule(levels, groups, group_of, fifos, 0)
    sched.compute_cycles = simulate(graph, sched)
    for group in groups:
        group.spacing = _spacing(graph, sched, group)
    return sched


def _spacing(graph, sched, group):
    """Enabled cycles between two problem starts of ``group``.

    A problem may start while the previous one's wavefront is still in the array, once the
    previous one has issued all its iterations, provided its own first tensor write comes after
    the previous problem's finish (output banks hold one problem's results until they are handed
    over). With FIFO streams between groups, problems do not overlap.
    """
    finish = group.iterations - 1 + group.taps
    if sched.fifos:
        return finish + 1
    first_write = finish
    for name, stmt, its in _statements(graph, group):
        if isinstance(stmt, Write):
            tap = group.skew[name] + sched.levels[name].writes[id(stmt)]
            first_write = min(first_write, min(its) + tap)
    return max(group.iterations, finish - first_write + 1)


def _statements(graph, group):
    """Every statement of the group's members with the base iterations that execute it."""
    for name in group.members:
        start = 0
        for seg in graph.instances[name].segments:
            for stmt in seg.body:
                yield name, stmt, _iterations(seg.trips, stmt.pred, start)
            start += seg.iterations


# -- cycle model --------------------------------------------------------------------------------

def _active_ops(graph, sched, group):
    """Per FIFO op of the group: (channel, 'put'|'get', tap, set of base iterations)."""
    ops = []
    for name, stmt, its in _statements(graph, group):
        for kind, chan, lev in _fifo_ops(stmt, sched.levels[name], sched.fifos):
            ops.append((chan, kind, group.skew[name] + lev, its))
    return ops


def _fifo_ops(stmt, lv, fifos):
    if isinstance(stmt, Put) and stmt.channel in fifos:
        yield "put", stmt.channel, lv.puts[stmt.channel]
    for e in stmt_exprs(stmt):
        if isinstance(e, Get) and e.channel in fifos:
            yield "get", e.channel, lv.gets[e.channel]


def _iterations(trips, pred, start):
    nest = itertools.product(*(range(t) for t in trips))
    return {start + n for n, idx in enumerate(nest) if pred_holds(pred, idx, trips)}


def simulate(graph, sched, limit=10_000_000):
    """Cycles from the start pulse until every group is done, as the hardware runs them.

    Mirrors ``rtl.group``: a group advances its counter on every cycle it is not stalled; it
    stalls when an op active at the current counter meets an empty (get) or full (put) FIFO
    (``amaranth.lib.fifo.SyncFIFO``: writable below ``depth``, readable above 0). A group's
    finish pulse comes in the cycle its counter reaches ``iterations + taps - 1``.
    """
    ops = {g.name: _active_ops(graph, sched, g) for g in sched.groups}
    if not sched.fifos:
        return max(g.iterations + g.taps for g in sched.groups)
    level = {c: 0 for c in sched.fifos}
    count = {g.name: 0 for g in sched.groups}
    done = {g.name: None for g in sched.groups}
    for cycle in range(1, limit):
        before = dict(count)
        delta = {c: 0 for c in sched.fifos}
        for g in sched.groups:
            if done[g.name] is not None:
                continue
            n = count[g.name]
            active = [(c, k) for c, k, tap, its in ops[g.name] if (n - tap) in its]
            stall = any((k == "get" and level[c] == 0) or
                        (k == "put" and level[c] == graph.channels[c].depth) for c, k in active)
            if stall:
                continue
            for c, k in active:
                delta[c] += 1 if k == "put" else -1
            if n == g.iterations + g.taps - 1:
                done[g.name] = cycle
            count[g.name] = n + 1
        for c in delta:
            level[c] += delta[c]
        if all(d is not None for d in done.values()):
            return max(done.values())
        if count == before and not any(delta.values()):
            stuck = [f"'{c}' ({'full' if level[c] else 'empty'})" for c in sched.fifos]
            raise HwgenError("the hardware schedule deadlocks at the declared stream depths; "
                             "streams: " + ", ".join(stuck) + ". Deepen the streams.")
    raise HwgenError(f"the hardware schedule did not finish within {limit} cycles")
