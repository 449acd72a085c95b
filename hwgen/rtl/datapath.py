"""The datapath of one member of a lockstep group: its statements compiled to pipelined logic.

Each expression becomes a value at a pipeline level (``schedule.Levels``); an operand is
delayed to the level where it is used; control values (loop indices, conditions, the slot) are
tapped from the group's delay lines at ``skew + level``. Loop-carried variables are registers
written at the end of each iteration in which the segment runs. A variable that starts a
predicated iteration at a constant (``c = 0`` on a loop's first iteration) is set to it *before*
that iteration, from the condition one stage earlier on its delay line: a synchronous set of
the register, not a multiplexer in front of its adder.
"""
import operator

from amaranth.hdl import Cat, Const, Mux, Shape, Signal, Value

from ..ir.graph import (BINARY, ArrayRead, ArrayWrite, Assign, BinOp, Convert, FloatOp, Get,
                        LoopIndex, Neg, Put, Read, Select, SetSlice, Slice, StreamOp, VarRef,
                        Write, stmt_exprs, Const as IRConst)
from ..ir.accumulate import accumulators
from ..ir.layout import memory_arrays
from ..schedule.levels import MULT_STAGES, READ_LATENCY, is_runtime_product
from ..schedule.lines import SLOT, Line
from ..schedule.ports import safe_name
from .arith import add_cleared, mul_const, named
from .delay import Pipes
from .float_datapath import FloatLowering
from .local_array import LocalArray
from .multiply import multiply
from .signatures import shape_of, stored_shape
from .staged import Cleared, Staged, level_of

# ``a op b`` on Amaranth values (``ir.graph.BINARY`` is the same on Python integers).
_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_,
        "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
        "//": operator.floordiv, "%": operator.mod,     # floor semantics, as Python's
        "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


class Member(FloatLowering):
    """Compiles the statements of instance ``name`` into a module of its own, ``m``, whose
    edge is ``outside`` (a ``boundary.Boundary``): everything the member takes from its group
    or gives to it (control lines, the enable, links, FIFO and memory ports, its stall) is a
    port there.

    Parameters
    ----------
    group : rtl.group.Group
        The member's group: its plan, target and ports.
    controller : rtl.controller.Controller
        The group's controller, which defines the control lines.
    outside : rtl.boundary.Boundary
    m : Module
    name : str
        The instance.
    """

    def __init__(self, group, controller, outside, m, name):
        self.group, self.controller, self.outside, self.m = group, controller, outside, m
        self.en = outside.en
        plan = group.plan
        self.graph, self.bankings, self.ports = plan.graph, plan.bankings, group.ports
        self.drives = plan.kinds[group.scheduled.name].drives
        self.links = group.scheduled.links
        self.inst = plan.graph.instances[name]
        self.levels = plan.schedule.levels[name]
        # Only whether the member starts the wavefront (``schedule.kinds``): a register is
        # preset a level early only behind the base.
        self.behind = group.scheduled.skew[name] > 0
        # Locals are as wide as their values can be (an accumulator: its terms per problem).
        ranges = plan.ranges[0].get(name, {})
        self.regs = {v: Signal(stored_shape(t, ranges.get(v)), reset_less=True,
                               name=safe_name(v))
                     for v, t in sorted(self.inst.vars.items())}
        memory = memory_arrays(self.inst)
        self.arrays = {a: LocalArray(self.m, a, t, self.en, a in memory,
                                     self.inst.contents.get(a))
                       for a, t in sorted(self.inst.arrays.items())}
        self.memo = {}          # expression -> emitted value, within one statement
        self.pipes = Pipes(self.m, self.en)      # datapath values delayed to their uses
        # The statement being compiled, its ``ir.Site`` and its predicates.
        self.stmt, self.site, self.pred = None, None, ()
        self.segment = 0
        self.products = 0       # multiplies so far (each names its registers or DSP block)
        self.adds = 0           # adds of a cleared value so far (``arith.add_cleared``)
        self.presets = []       # (var, value, delay-line tap): set before an iteration runs
        # Variables a tensor write reads from their register (``schedule.Levels.held``):
        # never preset, which would overwrite the value the write reads.
        self.held = set(self.levels.held.values())
        self.sums = accumulators(self.inst)     # float accumulators (``rtl.float_sum``)
        self.starts = {}        # accumulator -> its start value
        self.fifo_ops = {}      # (StreamOp, channel) -> [(condition, value to put)]

    def compile(self):
        """Compile every statement, then the loop-carried registers and local arrays."""
        statement = {ArrayWrite: self._array_write, Assign: self._assign, Put: self._put,
                     Write: self._write}
        for gi, seg in enumerate(self.inst.segments):
            self.segment, env = gi, {}
            self.unread = _unread_before(seg.body)
            for site, _, s in self.inst.sites(gi):
                self.site, self.stmt, self.pred = site, s, s.pred
                self.memo.clear()
                statement[type(s)](s, env)
            for var, v in env.items():
                if var in self.sums:
                    continue        # no register: its partial sums are in its adder
                lvl = self.levels.var_w[var]
                # A split variable's register is read before this level: written only on the
                # iterations that assign it, never rewritten with the value read before.
                ran = Cat(*(self.cond(s.pred, lvl) for s in seg.body
                            if isinstance(s, Assign) and s.var == var)).any() \
                    if var in self.levels.split else self.cond((), lvl)
                with self.m.If(self.en & ran):
                    self.m.d.sync += self.regs[var].eq(self.at(v, lvl))
        for var, value, before in self.presets:      # after every update: the preset wins
            with self.m.If(self.en & before):
                self.m.d.sync += self.regs[var].eq(value)
        for arr in self.arrays.values():
            arr.finish()
        for (op, channel), ops in self.fifo_ops.items():
            self._fifo_port(op, channel, ops)
        self.outside.finish(self.m)

    def _fifo_port(self, op, channel, ops):
        """Drive the FIFO port of ``channel``: the statements on it never run on one
        iteration (``schedule.support``), and their puts are at one level."""
        port = self.outside.fifo(op, channel)
        self.m.d.comb += port.en.eq(Cat(*(c for c, _ in ops)).any() & self.en)
        if op is StreamOp.PUT:
            data = Signal(shape_of(self.graph.channels[channel].dtype),
                          name=f"put_{safe_name(channel)}")
            value = ops[-1][1]
            for c, v in reversed(ops[:-1]):
                value = Mux(c, v, value)
            self.m.d.comb += [data.eq(value), port.data.eq(data)]

    # -- values at levels -----------------------------------------------------------------------

    def at(self, v, level):
        """Emitted value ``v`` at pipeline ``level``."""
        if isinstance(v, int):
            return Const(v)
        if isinstance(v, Line):
            return self.outside.tap(v, level)
        return self.pipes.delay(v.value, v.level, level)

    def cond(self, pred, level):
        """'This iteration runs a statement under ``pred``', at ``level``."""
        return self.outside.tap(self.controller.cond(self.segment, pred), level)

    def emit(self, e, env):
        """Expression ``e`` as an int (folded), a delay line or a ``Staged`` value."""
        if e not in self.memo:
            self.memo[e] = self._emit(e, env)
        return self.memo[e]

    def _emit(self, e, env):
        if isinstance(e, IRConst):
            return e.value
        if isinstance(e, LoopIndex):
            return self.controller.index(e.depth)
        if isinstance(e, VarRef):
            if e.name in env:
                return env[e.name]
            return Staged(self.regs[e.name], self.levels.var[e.name])
        kinds = {Get: self._get, Read: self._read, BinOp: self._binop, Neg: self._neg,
                 Slice: self._slice, Select: self._select, SetSlice: self._set_slice,
                 ArrayRead: self._array_read, FloatOp: self._float_op, Convert: self._convert}
        return kinds[type(e)](e, env)

    # -- expressions ----------------------------------------------------------------------------

    def _get(self, e, env):
        m, shape = self.m, shape_of(self.graph.channels[e.channel].dtype)
        if e.channel in self.links:
            return Staged(self.outside.link_in(e.channel, shape), 0)
        port = self.outside.fifo(StreamOp.GET, e.channel)
        c = self.cond(self.pred, 0)
        self.fifo_ops.setdefault((StreamOp.GET, e.channel), []).append((c, None))
        self._stall_on(e.channel, c & ~port.rdy)
        data = Signal(shape, name=f"get_{safe_name(e.channel)}")
        m.d.comb += data.eq(port.data)
        return Staged(data, 0)

    def _read(self, e, env):
        access = (self.site, e)
        mport = self.ports.port_of[access]
        port = self.outside.memory(mport)
        parts = [self.emit(i, env) for i in self.ports.address_index[access]]
        lvl = max([level_of(p) for p in parts] + [0])
        if access in self.drives:       # a shared port is driven once
            # An ``ahead`` port's address and slot go out one level early: the buffer
            # registers them, beside its memories (``schedule.ports.ahead``).
            at = lvl - mport.ahead
            self.m.d.comb += [port.en.eq(self.en), port.slot.eq(self.outside.tap(SLOT, at))]
            if self.bankings[e.tensor].depth > 1:     # else the port has no address
                self.m.d.comb += port.addr.eq(self._address(e, access, parts, at))
        return Staged(port.data, lvl + READ_LATENCY)

    def _binop(self, e, env):
        a, b = self.emit(e.lhs, env), self.emit(e.rhs, env)
        if isinstance(a, int) and isinstance(b, int):
            return BINARY[e.op](a, b)
        lvl = max(level_of(a), level_of(b))
        if is_runtime_product(e):
            self.products += 1
            prod = multiply(self.m, self.at(a, lvl), self.at(b, lvl), self.en,
                            f"mul{self.products}", self.group.target,
                            fabric=self.inst.name in self.graph.fabric)
            return Staged(prod, lvl + MULT_STAGES)
        if e.op == "*" and (isinstance(a, int) or isinstance(b, int)):
            c, v = (a, b) if isinstance(a, int) else (b, a)      # shifts and adds: no DSP
            product = mul_const(self.at(v, lvl), abs(c))
            return Staged(-product if c < 0 else product, lvl)
        cleared = [x for x in (a, b) if isinstance(x, Cleared) and x.level == lvl]
        if e.op == "+" and cleared and not isinstance(a, int) and not isinstance(b, int):
            x, y = (a, b) if a is cleared[0] else (b, a)
            self.adds += 1
            return Staged(add_cleared(self.m, x.kept, x.clear, self.at(y, lvl),
                                      f"add{self.adds}",
                                      self.group.target), lvl)
        return Staged(_OPS[e.op](self.at(a, lvl), self.at(b, lvl)), lvl)

    def _neg(self, e, env):
        a = self.emit(e.operand, env)
        return -a if isinstance(a, int) else Staged(-self.at(a, level_of(a)), level_of(a))

    def _slice(self, e, env):
        a = self.emit(e.operand, env)
        off = 0 if e.offset is None else self.emit(e.offset, env)
        w = e.stop - e.start
        if isinstance(a, int) and isinstance(off, int):
            return (a >> (e.start + off)) & ((1 << w) - 1)
        lvl = max(level_of(a), level_of(off))
        a = Value.cast(self.at(a, lvl))
        if isinstance(e.operand, VarRef):       # a register narrowed to its values' range
            whole = Signal(Shape(self.levels.inst.vars[e.operand.name].bits, a.shape().signed),
                           name=f"whole")
            self.m.d.comb += whole.eq(a)
            a = whole
        if isinstance(off, int):
            return Staged(a[e.start + off:e.start + off + w], lvl)
        return Staged(a[e.start:].bit_select(self.at(off, lvl).as_unsigned(), w), lvl)

    def _set_slice(self, e, env):
        old, new = self.emit(e.operand, env), self.emit(e.value, env)
        off = 0 if e.offset is None else self.emit(e.offset, env)
        lvl = max(level_of(old), level_of(new), level_of(off))
        packed = Signal(e.width, name=f"packed")
        part = Signal(e.stop - e.start, name=f"part")
        self.m.d.comb += [packed.eq(self.at(old, lvl)), part.eq(self.at(new, lvl))]
        if isinstance(off, int):
            start = e.start + off
            return Staged(Cat(packed[:start], part, packed[start + len(part):]), lvl)
        result = Signal(e.width, name=f"inserted")
        at = self.at(off, lvl).as_unsigned()
        self.m.d.comb += [result.eq(packed), result[e.start:].bit_select(at, len(part)).eq(part)]
        return Staged(result, lvl)

    def _select(self, e, env):
        c, a, b = (self.emit(x, env) for x in (e.cond, e.a, e.b))
        if isinstance(c, int):
            return a if c else b
        lvl = max(level_of(c), level_of(a), level_of(b))
        value = Mux(self.at(c, lvl), self.at(a, lvl), self.at(b, lvl))
        return Staged(named(self.m, value, f"sel"), lvl)

    def _array_read(self, e, env):
        arr = self.arrays[e.array]
        lvl = self.levels.arr[e.array] + int(e.array in self.levels.late[self.site])
        parts = [self.emit(i, env) for i in e.index]
        addr = arr.address([self.at(p, lvl - arr.latency) for p in parts])
        return Staged(arr.read(addr), lvl)

    # -- statements -----------------------------------------------------------------------------

    def _array_write(self, s, env):
        arr = self.arrays[s.array]
        lvl = self.levels.arr_w[s.array]
        parts = [self.emit(i, env) for i in s.index]
        v = self.emit(s.value, env)
        arr.write(self.cond(s.pred, lvl), arr.address([self.at(p, lvl) for p in parts]),
                  self.at(v, lvl))

    def _assign(self, s, env):
        if s.var in self.sums:
            self._float_sum(s, env)
            return
        reg = Staged(self.regs[s.var], self.levels.var[s.var])
        before = reg.level - 1          # the iteration, one stage before it reads
        if s.pred and isinstance(s.value, IRConst) and self.site.statement in self.unread \
                and (self.behind or before >= 0) \
                and s.var not in self.levels.split and s.var not in self.held:
            tap = self.cond(s.pred, before)
            self.presets.append((s.var, s.value.value, tap))
            env[s.var] = reg
            return
        v = self.emit(s.value, env)
        lvl = level_of(v)
        clear = None
        if s.pred:
            cur = env.get(s.var, reg)
            lvl = max(lvl, level_of(cur))
            clear = self.cond(s.pred, lvl)
            value = Mux(clear, self.at(v, lvl), self.at(cur, lvl))
        else:
            value = self.at(v, lvl)
        w = Signal(self.regs[s.var].shape(), name=f"{s.var}_new")
        self.m.d.comb += w.eq(value)
        # Zero under a predicate: an adder that takes the value clears it in its own logic.
        zero = isinstance(v, int) and v == 0 and clear is not None
        env[s.var] = Cleared(w, lvl, self.at(cur, lvl), clear) if zero else Staged(w, lvl)

    def _put(self, s, env):
        m = self.m
        v = self.emit(s.value, env)
        lvl = self.levels.puts[s.channel]
        if s.channel in self.links:
            link = self.outside.link_out(s.channel, shape_of(self.graph.channels[s.channel].dtype))
            with m.If(self.en):
                m.d.sync += link.eq(self.at(v, lvl))
            return
        port = self.outside.fifo(StreamOp.PUT, s.channel)
        c = self.cond(s.pred, lvl)
        self.fifo_ops.setdefault((StreamOp.PUT, s.channel), []).append((c, self.at(v, lvl)))
        self._stall_on(s.channel, c & ~port.rdy)

    def _stall_on(self, channel, blocked):
        """The group stalls while ``blocked``, except on a FIFO back into itself, which never
        waits (``schedule.static.schedule``)."""
        if channel not in self.group.plan.schedule.looped:
            self.outside.stall_on(blocked)

    def _write(self, s, env):
        site = self.site
        parts = [self.emit(i, env) for i in self.ports.address_index[site]]
        v = self.emit(s.value, env)
        if site in self.levels.held:        # the variable's register, a level after its write
            var = self.levels.held[site]
            v = Staged(self.regs[var], self.levels.var_w[var] + 1)
        lvl = self.levels.writes[site]      # every write of the tensor at one level
        port = self.outside.memory(self.ports.port_of[site])
        c = self.cond(s.pred, lvl)
        self.m.d.comb += [port.data.eq(self.at(v, lvl)), port.en.eq(c & self.en),
                          port.slot.eq(self.outside.tap(SLOT, lvl))]
        if self.bankings[s.tensor].depth > 1:     # else the port has no address
            self.m.d.comb += port.addr.eq(self._address(s, site, parts, lvl))

    def _address(self, access, key, parts, level):
        """The address of a tensor access (``key`` in the group's ports) inside its bank, at
        pipeline ``level``."""
        banking = self.bankings[access.tensor]
        addr = 0
        for p, base, stride in zip(parts, self.ports.shard_base[key],
                                   banking.strides()):
            if isinstance(p, int):
                addr += (p - base) * stride
            else:
                term = self.at(p, level) - base if base else self.at(p, level)
                addr = addr + mul_const(term, stride)
        return Const(addr) if isinstance(addr, int) else addr


def _unread_before(body):
    """The positions in ``body`` of the assignments to a variable that no earlier statement
    reads or assigns: there, the variable's register holds nothing the iteration needs."""
    touched, first = set(), set()
    for k, s in enumerate(body):
        if isinstance(s, Assign) and s.var not in touched:
            first.add(k)
        touched |= {e.name for e in stmt_exprs(s) if isinstance(e, VarRef)}
        if isinstance(s, Assign):
            touched.add(s.var)
    return first
