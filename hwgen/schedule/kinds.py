"""The kinds of a lockstep group's members: members whose datapaths are the same but for the
names of the streams and banks they use and their place in the wavefront.

``rtl.group`` compiles one member of each kind and, for Verilog, instantiates its module for
the others, so that elaboration, the netlist and the Verilog follow the kinds, not the PEs. A
member's `Roles` list, in the order its body first uses them, the streams it gets from or puts
to, the tensor accesses it makes and the memory ports they go through. Its kind is its body
with every such name replaced by its role, together with everything else its datapath is
compiled from: the instance's locals, levels and register ranges, the address arithmetic of
each access, which streams are links or FIFOs, which reads drive a port that several share,
whether the member starts the wavefront (``rtl.datapath`` presets a register one level
early only behind the base) and whether its multiplies are built in logic (``Graph.fabric``)."""
import dataclasses
from dataclasses import dataclass

from ..ir.graph import BINARY, EXPRESSIONS, BinOp, Const, Get, Neg, Put, Read, Write, stmt_exprs


@dataclass(frozen=True)
class Roles:
    """What a member's roles stand for, each in the order its body first uses them.

    Attributes
    ----------
    channels : tuple of str
        The streams it gets from or puts to.
    ports : tuple of str
        The memory ports (``schedule.ports.MemoryPort.name``) its accesses go through.
    """
    channels: tuple
    ports: tuple


@dataclass(frozen=True)
class MemberKinds:
    """The kinds of one group's members.

    Attributes
    ----------
    kind : dict
        Member -> its kind, numbered in the order of each kind's first member.
    roles : dict
        Member -> its `Roles`.
    drives : frozenset
        The read accesses (``(site, read)``) that drive their port's address: of the reads
        that share a port (a broadcast), the first member's first.
    """
    kind: dict
    roles: dict
    drives: frozenset

    def members(self, kind):
        """The members of ``kind``, in group order."""
        return [name for name, k in self.kind.items() if k == kind]


def member_kinds(plan, group):
    """The `MemberKinds` of ``group`` (one of ``plan.schedule.groups``)."""
    ports = plan.ports[group.name]
    drives = _drivers(plan.graph, group, ports)
    keys, kind, roles = {}, {}, {}
    for name in group.members:
        key, roles[name] = _Canon(plan, group, name, drives).key()
        kind[name] = keys.setdefault(key, len(keys))
    return MemberKinds(kind, roles, drives)


def _drivers(graph, group, ports):
    """The read accesses that drive their port (`MemberKinds.drives`), in the order members
    compile them (``rtl.datapath``: members in group order, statements in order)."""
    driven, drives = set(), set()
    for name in group.members:
        for site, _, s in graph.instances[name].sites():
            for e in stmt_exprs(s):
                if isinstance(e, Read) and ports.port_of[(site, e)].name not in driven:
                    driven.add(ports.port_of[(site, e)].name)
                    drives.add((site, e))
    return frozenset(drives)


def _folded(e):
    """``e``'s value when it is a constant expression of additions and the like, else None."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Neg):
        a = _folded(e.operand)
        return None if a is None else -a
    if isinstance(e, BinOp):
        a, b = _folded(e.lhs), _folded(e.rhs)
        return None if a is None or b is None else BINARY[e.op](a, b)
    return None


class _Canon:
    """One member's kind key and roles."""

    def __init__(self, plan, group, name, drives):
        self.plan, self.group, self.name, self.drives = plan, group, name, drives
        self.ports = plan.ports[group.name]
        self.channels, self.accesses, self.port_roles = {}, {}, {}

    def key(self):
        plan, inst = self.plan, self.plan.graph.instances[self.name]
        body = tuple((seg.trips, tuple(self._statement(site, s) for site, _, s in
                                       inst.sites(gi)))
                     for gi, seg in enumerate(inst.segments))
        sched = plan.schedule
        channels = tuple((ch in self.group.links, ch in sched.fifos, ch in sched.looped,
                          plan.graph.channels[ch].dtype) for ch in self.channels)
        lv = sched.levels[self.name]

        def by_site(table):
            return tuple(sorted(((s.segment, s.statement), _plain(v)) for s, v in table.items()))

        levels = (sorted(lv.var.items()), sorted(lv.var_w.items()), sorted(lv.arr.items()),
                  sorted(lv.arr_w.items()), sorted(lv.split), lv.depth,
                  sorted((self.channels[c], v) for c, v in lv.puts.items()),
                  sorted((self.channels[c], v) for c, v in lv.gets.items()),
                  by_site(lv.writes), by_site(lv.held), by_site(lv.late))
        ranges = sorted(plan.ranges[0].get(self.name, {}).items())
        locals_ = (sorted(inst.vars.items()), sorted(inst.arrays.items()),
                   sorted((a, tuple(v)) for a, v in inst.contents.items()))
        key = (body, tuple(self.accesses.values()), channels, repr(levels), tuple(ranges),
               repr(locals_), self.group.skew[self.name] > 0, self.name in plan.graph.fabric)
        return key, Roles(tuple(self.channels), tuple(self.port_roles))

    def _channel(self, channel):
        return self.channels.setdefault(channel, len(self.channels))

    def _access(self, key, site):
        """The role of a tensor access, with what its datapath is compiled from: its port's
        role and kind, the tensor's element type and bank depth, whether it drives a shared
        port, and its address arithmetic (``rtl.datapath.Member._address``)."""
        if key not in self.accesses:
            port = self.ports.port_of[key]
            role = self.port_roles.setdefault(port.name, len(self.port_roles))
            banking = self.plan.bankings[port.tensor]
            addr = 0
            for p, base, stride in zip(self.ports.address_index[key], self.ports.shard_base[key],
                                       banking.strides()):
                value = _folded(p)
                if value is None:
                    addr = ("+", addr, self._expr(p, site), base, stride)
                elif isinstance(addr, int):
                    addr += (value - base) * stride
                else:
                    addr = ("+", addr, (value - base) * stride)
            self.accesses[key] = (len(self.accesses), role, port.write, port.ahead,
                                  self.plan.graph.tensors[port.tensor].dtype, banking.depth,
                                  key in self.drives, addr)
        return self.accesses[key][0]

    def _statement(self, site, s):
        if isinstance(s, Write):
            return ("write", self._access(site, site), self._expr(s.value, site), s.pred)
        if isinstance(s, Put):
            return ("put", self._channel(s.channel), self._expr(s.value, site), s.pred)
        return (type(s).__name__,) + tuple(self._value(getattr(s, f.name), site)
                                           for f in dataclasses.fields(s) if f.name != "loc")

    def _expr(self, e, site):
        if isinstance(e, Get):
            return ("get", self._channel(e.channel))
        if isinstance(e, Read):
            return ("read", self._access((site, e), site))
        return (type(e).__name__,) + tuple(self._value(getattr(e, f.name), site)
                                           for f in dataclasses.fields(e) if f.name != "loc")

    def _value(self, v, site):
        if isinstance(v, EXPRESSIONS):
            return self._expr(v, site)
        if isinstance(v, tuple):
            return tuple(self._value(x, site) for x in v)
        return v


def _plain(v):
    """A level table's value, hashable (``Levels.late`` holds sets)."""
    return tuple(sorted(v)) if isinstance(v, (set, frozenset)) else v
