"""A lockstep group: task instances compiled to one controller, one stall and their datapaths.

The controller walks the group's iteration space (segments of perfect loop nests) one iteration
per enabled cycle and produces, for iteration ``n``, the flags each statement needs (the
iteration is valid, it lies in segment ``g``, it is the first/last of some loops) and the loop
indices. A member ``skew`` cycles behind the base, at pipeline level ``l``, sees those signals
through a shared delay line tapped at ``skew + l`` — the control wavefront of a systolic array.

Every register moves only when the group is enabled (``en``: no FIFO op active this cycle is
blocked). Datapath registers are reset-less; control registers reset.
"""
import math

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from ..ir.graph import (BINARY, ArrayRead, ArrayWrite, Assign, BinOp, Get, LoopIndex, Neg, Put,
                        Read, Select, SetSlice, Slice, VarRef, Write, Const as IRConst,
                        stmt_exprs, subexprs)
from ..ir.layout import array_in_memory, index_bounds
from ..ir.types import Sharded
from . import ports
from .arith import mul_const, mux_tree
from .ports import shape_of
from .schedule import MULT_STAGES, READ_LATENCY


def _safe(name):
    return name.replace("[", "_").replace("]", "").replace(",", "_").replace("@", "_")


class _Staged:
    """A value that exists at pipeline ``level``."""

    def __init__(self, value, level):
        self.value, self.level = value, level


class _Tapped:
    """A control value available at every level through the delay line ``key``."""

    def __init__(self, key):
        self.key = key


class Group(wiring.Component):
    """The hardware of one ``schedule.Group``.

    Parameters
    ----------
    graph : ir.Graph
    sched : schedule.Schedule
    group : schedule.Group
    bankings : dict
        Tensor name -> ``ir.layout.Banking``.

    Attributes
    ----------
    start : In(1)
        Pulse: start a problem (only when ``accept``).
    accept : Out(1)
        A problem may start this cycle: the group is idle, or the previous problem has issued
        its iterations and is far enough ahead (``schedule.Group.spacing``).
    finished : Out(1)
        Pulse: the oldest problem in the array has made its last side effect.
    rd_<k>, wr_<k>, put_<ch>, get_<ch>
        Memory and FIFO ports; ``read_ports``, ``write_ports``, ``fifo_puts``, ``fifo_gets``
        say what each connects to.
    """

    def __init__(self, graph, sched, group, bankings, slots=2, spacing=None):
        self.graph, self.sched, self.group, self.bankings = graph, sched, group, bankings
        self.slots = slots
        self.spacing = max(group.spacing, spacing or 0)
        slot_bits = ports.slot_bits(slots)
        self.read_ports = []    # (port name, tensor, bank)
        self.write_ports = []
        self.fifo_puts = []     # (port name, channel)
        self.fifo_gets = []
        self._port_of = {}
        self._shard_base = {}
        shared = {}             # (tensor, bank, index, skew) -> read port name
        members = {"start": In(1), "accept": Out(1), "finished": Out(1)}

        def memory_port(access, inst, seg, prefix, table, signature):
            """A read or write port to the one bank ``access`` touches. Reads of the same
            address by members at the same skew share one port: a broadcast (multicast)."""
            bank = self._bank(inst, access, seg)
            key = None
            if prefix == "rd" and not any(isinstance(e, (VarRef, Get, Read, ArrayRead))
                                          for i in access.index for e in subexprs(i)):
                key = (access.tensor, bank, access.index, group.skew[inst.name])
                if key in shared:
                    self._port_of[id(access)] = shared[key]
                    return
            pname = f"{prefix}{len(table)}"
            table.append((pname, access.tensor, bank))
            depth = bankings[access.tensor].depth
            dtype = graph.tensors[access.tensor].dtype
            members[pname] = Out(signature(depth, shape_of(dtype), slot_bits))
            self._port_of[id(access)] = pname
            if key is not None:
                shared[key] = pname

        def fifo_port(channel, prefix, table, signature):
            pname = f"{prefix}_{_safe(channel)}"
            table.append((pname, channel))
            members[pname] = Out(signature(shape_of(graph.channels[channel].dtype)))

        for name in group.members:
            inst = graph.instances[name]
            for seg in inst.segments:
                for s in seg.body:
                    if isinstance(s, Write):
                        memory_port(s, inst, seg, "wr", self.write_ports, ports.write_port)
                    if isinstance(s, Put) and s.channel in sched.fifos:
                        fifo_port(s.channel, "put", self.fifo_puts, ports.fifo_put)
                    for e in stmt_exprs(s):
                        if isinstance(e, Read) and id(e) not in self._port_of:
                            memory_port(e, inst, seg, "rd", self.read_ports, ports.read_port)
                        if isinstance(e, Get) and e.channel in sched.fifos:
                            fifo_port(e.channel, "get", self.fifo_gets, ports.fifo_get)
        super().__init__(members)

    def _bank(self, inst, access, seg):
        """The single bank an access touches (the layout check guarantees there is one); also
        records the first index of that bank's shard in every dimension."""
        tensor = self.graph.tensors[access.tensor]
        banking = self.bankings[access.tensor]
        layout = tensor.type.layout or ()
        index = []
        for d, e in enumerate(access.index):
            sharded = d < len(layout) and isinstance(layout[d], Sharded)
            index.append(index_bounds(e, seg.trips)[0] if sharded else 0)
        self._shard_base[id(access)] = tuple((i // x) * x for i, x in zip(index, banking.extent))
        return banking.bank(index)

    # -- elaboration --------------------------------------------------------------------------

    def elaborate(self, platform):
        m = Module()
        self.m = m
        self.en = Signal()
        self.stall_terms = []
        self.lines = {}         # delay line key -> (base value, [registers])
        self.base = {}          # delay line key -> base value
        self.pipes = {}
        self._driven = set()
        self._controller(m)
        self.links = {ch: [Signal(shape_of(self.graph.channels[ch].dtype), reset_less=True,
                                  name=f"link_{_safe(ch)}_{k}") for k in range(delay)]
                      for ch, delay in sorted(self.group.links.items())}
        for ch, regs in self.links.items():
            with m.If(self.en):
                for a, b in zip(regs[1:], regs[:-1]):
                    m.d.sync += a.eq(b)
        for name in self.group.members:
            self._member(m, name)
        stall = Signal()
        if self.stall_terms:
            m.d.comb += stall.eq(self._any(self.stall_terms))
        m.d.comb += self.en.eq(~stall)
        for key, (base, regs) in sorted(self.lines.items(), key=lambda kv: str(kv[0])):
            with m.If(self.en):
                for k, r in enumerate(regs):
                    m.d.sync += r.eq(base if k == 0 else regs[k - 1])
        return m

    @staticmethod
    def _any(terms):
        return Cat(*terms).any()

    def _controller(self, m):
        g = self.group
        total = g.iterations + g.taps
        running = Signal()
        count = Signal(range(max(total, self.spacing) + 1))
        self.valid0 = valid0 = Signal()
        m.d.comb += valid0.eq(running & (count < g.iterations))
        depth = max((len(t) for t in g.structure), default=0)
        self.idx = [Signal(range(max([t[d] for t in g.structure if len(t) > d]) + 1),
                           name=f"idx{d}") for d in range(depth)]
        self.seg = Signal(range(len(g.structure) + 1))
        # The slot (buffer half) of the problem whose iterations are issuing; it travels with
        # them through the delay lines so that two problems can share the array.
        self.slot = Signal(range(max(2, self.slots)), name="slot")
        slot_next = Signal(range(max(2, self.slots)))
        self.base[("slot",)] = self.slot
        last_iter = Signal()
        m.d.comb += last_iter.eq(valid0 & (count == g.iterations - 1))
        self.base[("finish",)] = last_iter
        m.d.comb += [self.accept.eq(self.en & (~running | (count >= self.spacing - 1))),
                     self.finished.eq(self._tap(("finish",), g.taps) & self.en)]
        with m.If(self.start):
            m.d.sync += [running.eq(1), count.eq(0), self.seg.eq(0), self.slot.eq(slot_next),
                         slot_next.eq(Mux(slot_next == self.slots - 1, 0, slot_next + 1))]
            m.d.sync += [i.eq(0) for i in self.idx]
        with m.Elif(running & self.en):
            m.d.sync += count.eq(count + 1)
            # Run until the last iteration has left the array and the spacing has passed.
            with m.If(count == max(total, self.spacing) - 1):
                m.d.sync += running.eq(0)
            with m.If(valid0):
                with m.Switch(self.seg):
                    for gi, trips in enumerate(g.structure):
                        with m.Case(gi):
                            lasts = [self.idx[d] == trips[d] - 1 for d in range(len(trips))]
                            for d in range(len(trips)):
                                inner = Const(1) if d == len(trips) - 1 else \
                                    self._all(lasts[d + 1:])
                                with m.If(inner):
                                    m.d.sync += self.idx[d].eq(Mux(lasts[d], 0, self.idx[d] + 1))
                            with m.If(self._all(lasts) if trips else Const(1)):
                                m.d.sync += self.seg.eq(gi + 1)

    @staticmethod
    def _all(terms):
        return Cat(*terms).all() if terms else Const(1)

    def _cond_key(self, gi, pred):
        key = ("cond", gi, tuple((p.kind, p.depth) for p in pred))
        if key not in self.base:
            trips = self.group.structure[gi]
            v = self.valid0 & (self.seg == gi)
            for p in pred:
                for d in range(p.depth, len(trips)):
                    v = v & (self.idx[d] == (0 if p.kind == "first" else trips[d] - 1))
            sig = Signal(name=f"c{gi}_" + "_".join(f"{p.kind}{p.depth}" for p in pred))
            self.m.d.comb += sig.eq(v)
            self.base[key] = sig
        return key

    def _tap(self, key, delay):
        base = self.base[key]
        if delay == 0:
            return base
        _, regs = self.lines.setdefault(key, (base, []))
        while len(regs) < delay:
            reset_less = key[0] in ("idx", "slot")
            regs.append(Signal.like(base, reset_less=reset_less,
                                    name=f"{'_'.join(map(str, key[:2]))}_d{len(regs) + 1}"))
        return regs[delay - 1]

    def _pipe(self, value, frm, to, name):
        """``value`` (existing at level ``frm``) delayed to level ``to``."""
        assert to >= frm, (frm, to)
        v = value
        for lvl in range(frm + 1, to + 1):
            key = (id(value), lvl)
            if key not in self.pipes:
                r = Signal(v.shape(), reset_less=True, name=f"{name}_l{lvl}")
                with self.m.If(self.en):
                    self.m.d.sync += r.eq(v)
                self.pipes[key] = (r, value)
            v = self.pipes[key][0]
        return v

    # -- a member -------------------------------------------------------------------------------

    def _member(self, m, name):
        inst = self.graph.instances[name]
        levels = self.sched.levels[name]
        skew = self.group.skew[name]
        prefix = _safe(name)
        regs = {v: Signal(shape_of(t), reset_less=True, name=f"{prefix}__{_safe(v)}")
                for v, t in sorted(inst.vars.items())}
        arrays = {a: _LocalArray(m, f"{prefix}__{a}", t, self.en)
                  for a, t in sorted(inst.arrays.items())}
        memo = {}       # expression -> emitted value, within one statement

        def at(v, level, label="v"):
            if isinstance(v, int):
                return Const(v)
            if isinstance(v, _Tapped):
                return self._tap(v.key, skew + level)
            return self._pipe(v.value, v.level, level, f"{prefix}__{label}")

        def cond(gi, pred, level):
            return self._tap(self._cond_key(gi, pred), skew + level)

        def level_of(v):
            return 0 if isinstance(v, (int, _Tapped)) else v.level

        def emit(e, env, gi):
            if e not in memo:
                memo[e] = emit_new(e, env, gi)
            return memo[e]

        def emit_new(e, env, gi):
            if isinstance(e, IRConst):
                return e.value
            if isinstance(e, LoopIndex):
                key = ("idx", e.depth)
                self.base.setdefault(key, self.idx[e.depth])
                return _Tapped(key)
            if isinstance(e, VarRef):
                if e.name in env:
                    return env[e.name]
                return _Staged(regs[e.name], levels.var[e.name])
            if isinstance(e, Get):
                if e.channel in self.links:
                    return _Staged(self.links[e.channel][-1], 0)
                port = getattr(self, f"get_{_safe(e.channel)}")
                c = cond(gi, stmt_pred, 0)
                m.d.comb += port.en.eq(c & self.en)
                self.stall_terms.append(c & ~port.rdy)
                data = Signal(shape_of(self.graph.channels[e.channel].dtype),
                              name=f"{prefix}__get_{_safe(e.channel)}")
                m.d.comb += data.eq(port.data)
                return _Staged(data, 0)
            if isinstance(e, Read):
                pname = self._port_of[id(e)]
                port = getattr(self, pname)
                parts = [emit(i, env, gi) for i in e.index]
                lvl = max([level_of(p) for p in parts] + [0])
                if pname not in self._driven:       # a shared port is driven once
                    self._driven.add(pname)
                    m.d.comb += [port.addr.eq(self._address(e, parts, lvl, at)),
                                 port.en.eq(self.en),
                                 port.slot.eq(self._tap(("slot",), skew + lvl))]
                return _Staged(port.data, lvl + READ_LATENCY)
            if isinstance(e, BinOp):
                a, b = emit(e.lhs, env, gi), emit(e.rhs, env, gi)
                if isinstance(a, int) and isinstance(b, int):
                    return BINARY[e.op](a, b)
                lvl = max(level_of(a), level_of(b))
                if e.op == "*" and not isinstance(a, int) and not isinstance(b, int):
                    # Optional operand registers, then the product register.
                    x, y = at(a, lvl + MULT_STAGES - 1), at(b, lvl + MULT_STAGES - 1)
                    value = x * y
                    prod = Signal(value.shape(), reset_less=True, name=f"{prefix}__prod")
                    with m.If(self.en):
                        m.d.sync += prod.eq(value)
                    return _Staged(prod, lvl + MULT_STAGES)
                return _Staged(_binop(e.op, at(a, lvl), at(b, lvl)), lvl)
            if isinstance(e, Neg):
                a = emit(e.operand, env, gi)
                return -a if isinstance(a, int) else _Staged(-at(a, level_of(a)), level_of(a))
            if isinstance(e, Slice):
                a = emit(e.operand, env, gi)
                if isinstance(a, int):
                    return (a >> e.start) & ((1 << (e.stop - e.start)) - 1)
                return _Staged(at(a, level_of(a))[e.start:e.stop], level_of(a))
            if isinstance(e, Select):
                c, a, b = (emit(x, env, gi) for x in (e.cond, e.a, e.b))
                if isinstance(c, int):
                    return a if c else b
                lvl = max(level_of(c), level_of(a), level_of(b))
                value = Mux(at(c, lvl), at(a, lvl), at(b, lvl))
                w = Signal(value.shape(), name=f"{prefix}__sel")
                m.d.comb += w.eq(value)
                return _Staged(w, lvl)
            if isinstance(e, SetSlice):
                old, new = emit(e.operand, env, gi), emit(e.value, env, gi)
                lvl = max(level_of(old), level_of(new))
                base = Signal(e.width, name=f"{prefix}__packed")
                part = Signal(e.stop - e.start, name=f"{prefix}__part")
                m.d.comb += [base.eq(at(old, lvl)), part.eq(at(new, lvl))]
                return _Staged(Cat(base[:e.start], part, base[e.stop:]), lvl)
            if isinstance(e, ArrayRead):
                arr = arrays[e.array]
                lvl = levels.arr[e.array]
                parts = [emit(i, env, gi) for i in e.index]
                addr = arr.address([at(p, lvl - arr.latency) for p in parts])
                return _Staged(arr.read(addr), lvl)
            raise TypeError(e)

        for gi, seg in enumerate(inst.segments):
            env = {}
            for s in seg.body:
                stmt_pred = s.pred
                memo.clear()
                if isinstance(s, ArrayWrite):
                    arr = arrays[s.array]
                    lvl = levels.arr[s.array]
                    parts = [emit(i, env, gi) for i in s.index]
                    v = emit(s.value, env, gi)
                    arr.write(cond(gi, s.pred, lvl), arr.address([at(p, lvl) for p in parts]),
                              at(v, lvl))
                elif isinstance(s, Assign):
                    v = emit(s.value, env, gi)
                    t = inst.vars[s.var]
                    lvl = level_of(v)
                    if s.pred:
                        cur = env.get(s.var, _Staged(regs[s.var], levels.var[s.var]))
                        lvl = max(lvl, level_of(cur))
                        value = Mux(cond(gi, s.pred, lvl), at(v, lvl), at(cur, lvl))
                    else:
                        value = at(v, lvl)
                    w = Signal(shape_of(t), name=f"{prefix}__{s.var}_new")
                    m.d.comb += w.eq(value)
                    env[s.var] = _Staged(w, lvl)
                elif isinstance(s, Put):
                    v = emit(s.value, env, gi)
                    lvl = levels.puts[s.channel]
                    dtype = self.graph.channels[s.channel].dtype
                    if s.channel in self.links:
                        with m.If(self.en):
                            m.d.sync += self.links[s.channel][0].eq(at(v, lvl))
                    else:
                        port = getattr(self, f"put_{_safe(s.channel)}")
                        c = cond(gi, s.pred, lvl)
                        data = Signal(shape_of(dtype), name=f"{prefix}__put_{_safe(s.channel)}")
                        m.d.comb += [data.eq(at(v, lvl)), port.data.eq(data),
                                     port.en.eq(c & self.en)]
                        self.stall_terms.append(c & ~port.rdy)
                elif isinstance(s, Write):
                    parts = [emit(i, env, gi) for i in s.index]
                    v = emit(s.value, env, gi)
                    lvl = max([level_of(p) for p in parts] + [level_of(v)])
                    port = getattr(self, self._port_of[id(s)])
                    c = cond(gi, s.pred, lvl)
                    m.d.comb += [port.addr.eq(self._address(s, parts, lvl, at)),
                                 port.data.eq(at(v, lvl)), port.en.eq(c & self.en),
                                 port.slot.eq(self._tap(("slot",), skew + lvl))]
            for var, v in env.items():
                lvl = levels.var[var]
                with m.If(self.en & cond(gi, (), lvl)):
                    m.d.sync += regs[var].eq(at(v, lvl))
        for arr in arrays.values():
            arr.finish()

    def _address(self, access, parts, level, at):
        """The address of a tensor access inside its bank, at pipeline ``level``."""
        banking = self.bankings[access.tensor]
        addr = 0
        for p, base, stride in zip(parts, self._shard_base[id(access)], banking.strides()):
            if isinstance(p, int):
                addr += (p - base) * stride
            else:
                term = at(p, level) - base if base else at(p, level)
                addr = addr + mul_const(term, stride)
        return Const(addr) if isinstance(addr, int) else addr


class _LocalArray:
    """A task's local array: registers (combinational read through a mux tree) or, when large,
    a memory whose read ports are transparent to its one write port (read address one level
    before the data). Writes from several statements share the write port: their conditions
    never hold in the same cycle, since one iteration is at a given level at a time."""

    def __init__(self, m, name, ttype, en):
        self.m, self.name, self.ttype, self.en = m, name, ttype, en
        self.size = math.prod(ttype.shape)
        self.writes = []
        shape = shape_of(ttype.dtype)
        if array_in_memory(ttype):
            self.latency = 1
            self.mem = memory.Memory(shape=shape, depth=self.size, init=[])
            m.submodules[name] = self.mem
            self.wp = self.mem.write_port()
        else:
            self.latency = 0
            self.regs = [Signal(shape, reset_less=True, name=f"{name}_{k}")
                         for k in range(self.size)]

    def address(self, parts):
        """Row-major flat address from index parts (ints or values)."""
        addr, stride = 0, 1
        for p, n in zip(reversed(parts), reversed(self.ttype.shape)):
            addr = addr + (p * stride if isinstance(p, int) else mul_const(p, stride))
            stride *= n
        if isinstance(addr, int):
            return addr
        a = Signal(range(self.size), name=f"{self.name}_addr")
        self.m.d.comb += a.eq(addr)
        return a

    def read(self, addr):
        if self.latency == 0:
            return self.regs[addr] if isinstance(addr, int) else mux_tree(self.regs, addr)
        rp = self.mem.read_port(transparent_for=(self.wp,))
        self.m.d.comb += [rp.addr.eq(addr), rp.en.eq(self.en)]
        return rp.data

    def write(self, cond, addr, data):
        if self.latency == 0:
            for k, r in enumerate(self.regs):
                hit = cond if isinstance(addr, int) else cond & (addr == k)
                if isinstance(addr, int) and addr != k:
                    continue
                with self.m.If(self.en & hit):
                    self.m.d.sync += r.eq(data)
        else:
            self.writes.append((cond, addr, data))

    def finish(self):
        """Drive the memory's write port from every write statement."""
        if self.latency == 0:
            return
        en, addr, data = Const(0), Const(0), Const(0)
        for c, a, d in self.writes:
            en, addr, data = en | c, Mux(c, a, addr), Mux(c, d, data)
        self.m.d.comb += [self.wp.en.eq(en & self.en), self.wp.addr.eq(addr),
                          self.wp.data.eq(data)]




def _binop(op, a, b):
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "&": lambda: a & b,
            "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b, ">>": lambda: a >> b,
            "==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b,
            "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()
