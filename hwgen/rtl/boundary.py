"""The edge of a member's module: each signal the member takes from its group or gives to it.

A member compiles into a module of its own (``rtl.datapath``) that reaches outside itself only
through its `Boundary`: a port, created on first use, for each request — a control line at a
level, the group's enable, a link register, a field of a FIFO or memory port, its stall. A
request names streams and ports by their role in the member (``schedule.kinds.Roles``), so
that the group resolves the same requests for every member of a kind (``rtl.group``): for
Verilog, the module of one member then stands for all of them.
"""
from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Signal

from ..ir.graph import StreamOp
from ..schedule.lines import Line
from ..schedule.ports import safe_name


@dataclass(frozen=True)
class Enable:
    """The group's enable (in)."""


@dataclass(frozen=True)
class Stall:
    """A blocked FIFO operation of the member's: the group stalls (out)."""


@dataclass(frozen=True)
class Tap:
    """``line`` at pipeline ``level``: ``skew + level`` enabled cycles after the base (in)."""
    line: Line
    level: int


@dataclass(frozen=True)
class CopyIn:
    """What the member's copy of ``line`` starts from: the shared line, or its parent's copy
    a cycle earlier (in; ``rtl.delay``)."""
    line: Line


@dataclass(frozen=True)
class CopyOut:
    """The member's copy of ``line`` at ``level`` (``skew + level`` cycles after the base),
    where a child's copy starts (out)."""
    line: Line
    level: int


@dataclass(frozen=True)
class LinkIn:
    """The last register of the lockstep stream of role ``channel`` (in)."""
    channel: int


@dataclass(frozen=True)
class LinkOut:
    """The first register of the lockstep stream of role ``channel``, the member's (out)."""
    channel: int


@dataclass(frozen=True)
class FifoField:
    """Field ``field`` of the member's ``op`` port on the FIFO of role ``channel``."""
    channel: int
    op: StreamOp
    field: str


@dataclass(frozen=True)
class MemoryField:
    """Field ``field`` of the memory port of role ``port``."""
    port: int
    field: str


# The fields of a FIFO port a member drives; it reads the others.
_DRIVEN = {StreamOp.PUT: ("en", "data"), StreamOp.GET: ("en",)}


class _Fields:
    """A port's fields, each made a port of the member's module when first used."""

    def __init__(self, make):
        self._make = make

    def __getattr__(self, field):
        return self._make(field)


class Boundary:
    """The ports of one member's module.

    Parameters
    ----------
    group : rtl.group.Group
        The member's group: its ports' shapes.
    roles : schedule.kinds.Roles
        The member's roles: its requests name streams and ports by them.
    line_shape : callable
        ``Line`` -> the shape of its values.

    Attributes
    ----------
    inputs, outputs : dict
        Request -> the port (a ``Signal``) the member reads or drives.
    """

    def __init__(self, group, roles, line_shape):
        self._group = group
        self._channel = {c: k for k, c in enumerate(roles.channels)}
        self._port = {p: k for k, p in enumerate(roles.ports)}
        self._line_shape = line_shape
        self.inputs, self.outputs = {}, {}
        self.stalls = []

    def _input(self, request, shape, name):
        if request not in self.inputs:
            self.inputs[request] = Signal(shape, name=name)
        return self.inputs[request]

    def _output(self, request, shape, name, reset_less=False):
        if request not in self.outputs:
            self.outputs[request] = Signal(shape, name=name, reset_less=reset_less)
        return self.outputs[request]

    @property
    def en(self):
        """The group's enable: the constant 1 in a group that never stalls
        (``rtl.group.Group.stalls``)."""
        return self._input(Enable(), 1, "en") if self._group.stalls else Const(1)

    def tap(self, line, level):
        """``line`` at pipeline ``level`` of the member."""
        return self._input(Tap(line, level), self._line_shape(line), f"{line.label}_l{level}")

    def link_in(self, channel, shape):
        """The value the lockstep stream ``channel`` brings this iteration."""
        return self._input(LinkIn(self._channel[channel]), shape,
                           f"link_{safe_name(channel)}")

    def link_out(self, channel, shape):
        """The stream ``channel``'s first register, which the member writes."""
        return self._output(LinkOut(self._channel[channel]), shape,
                            f"link_{safe_name(channel)}", reset_less=True)

    def fifo(self, op, channel):
        """The member's ``op`` port on FIFO ``channel`` (``en``, ``rdy``, ``data``)."""
        role, outer = self._channel[channel], self._group.fifo_port(op, channel)

        def field(f):
            make = self._output if f in _DRIVEN[op] else self._input
            return make(FifoField(role, op, f), getattr(outer, f).shape(),
                        f"{op.value}_{safe_name(channel)}__{f}")
        return _Fields(field)

    def memory(self, port):
        """The fields of memory port ``port`` (a ``schedule.ports.MemoryPort``): a read
        port's ``data`` comes in, every other field goes out."""
        role, outer = self._port[port.name], getattr(self._group, port.name)

        def field(f):
            make = self._input if f == "data" and not port.write else self._output
            return make(MemoryField(role, f), getattr(outer, f).shape(), f"{port.name}__{f}")
        return _Fields(field)

    def stall_on(self, blocked):
        """The group stalls while ``blocked``."""
        self.stalls.append(blocked)

    def finish(self, m):
        """Drive the member's stall output from its blocked operations."""
        if self.stalls:
            stall = self._output(Stall(), 1, "stall")
            m.d.comb += stall.eq(Cat(*self.stalls).any())
