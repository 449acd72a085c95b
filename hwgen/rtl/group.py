"""A lockstep group: task instances compiled to one controller, one stall and their datapaths.

The controller (``controller``) walks the group's iteration space one iteration per enabled
cycle; a member ``skew`` cycles behind the base, at pipeline level ``l``, sees its control
values through the shared delay lines (``delay``) tapped at ``skew + l`` — the control wavefront
of a systolic array. Each member's statements become a module of its own (``members``, built
once per kind for Verilog); lockstep streams become link registers.

Every register moves only when the group is enabled (``en``: no FIFO op active this cycle is
blocked). Datapath registers are reset-less; control registers reset.
"""
from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..ir.graph import StreamOp
from ..schedule.host_timing import slot_bits
from ..schedule.ports import FifoPort, safe_name
from . import signatures
from .controller import Controller
from .delay import DelayLines
from .members import Members
from .target import check_target
from .signatures import shape_of


class Group(wiring.Component):
    """The hardware of one ``schedule.Group`` of a plan.

    Parameters
    ----------
    plan : schedule.Plan
    scheduled : schedule.Group
        One of ``plan.schedule.groups``.
    target : str
        What multiplies lower to (``rtl.target.TARGETS``): ``"ecp5"`` DSP blocks with their
        own registers, ``"generic"`` the same registers in logic (Amaranth's simulator).
    kinds : rtl.kinds.Kinds or None
        For Verilog: members of one kind instantiate one module kept there (``members``).

    Attributes
    ----------
    start : In(1)
        Pulse: start a problem (only when ``accept``).
    accept : Out(1)
        A problem may start this cycle: the group is idle, or the previous problem has issued
        its iterations and is far enough ahead (``spacing``).
    finished : Out(1)
        Pulse: the oldest problem in the array has made its last side effect.
    finished_ahead : Out(1)
        Only for a group that `announces_finish`: ``finished`` ``FINISH_AHEAD`` cycles later
        (``output_chain.OutputChain`` decides its load that far ahead).
    accept_next : Out(1)
        Only for a group that `announces_finish` (``accept`` is then a register): the value
        ``accept`` takes at the next clock edge (``rtl.top`` copies it beside the buffers).
    plan, scheduled, target, ports : read-only
        The parameters, and ``plan.ports`` of this group (``schedule.ports.GroupPorts``).
    parents : dict
        Member -> the member whose copy of the control lines it takes (``delay``).
    layouts : dict
        After elaboration: member -> what its module is built from; members of one layout
        build the same module (``members``).
    spacing : int
        Enabled cycles between problem starts: the group's own spacing, or the plan's
        ``group_spacing`` when larger.
    rd<k>, wr<k> : Out(signatures.read_port / signatures.write_port)
        Memory ports into one bank each.
    put_<channel>, get_<channel> : Out(signatures.fifo_put / signatures.fifo_get)
        FIFO ports.
    """

    def __init__(self, plan, scheduled, target="generic", kinds=None):
        if scheduled not in plan.schedule.groups:
            raise ValueError(f"group {scheduled.name!r} is not one of the plan's groups")
        self._plan, self._scheduled, self._target = plan, scheduled, check_target(target)
        self._kinds = kinds
        self._ports = plan.ports[scheduled.name]
        self._stalls = any(isinstance(p, FifoPort) and p.channel not in plan.schedule.looped
                           for p in self._ports.ports)
        self._spacing = max(scheduled.spacing, plan.group_spacing or 0)
        members = {"start": In(1), "accept": Out(1), "finished": Out(1)}
        if self.announces_finish:
            members.update(finished_ahead=Out(1), accept_next=Out(1))
        for port in self._ports.ports:
            members[port.name] = Out(self._signature(port))
        super().__init__(members)

    plan = property(lambda self: self._plan)
    scheduled = property(lambda self: self._scheduled)
    target = property(lambda self: self._target)
    ports = property(lambda self: self._ports)
    spacing = property(lambda self: self._spacing)

    @property
    def announces_finish(self):
        """The group has ``finished_ahead`` (``schedule.Plan.announces_finish``)."""
        return self._plan.announces_finish(self._scheduled)

    def _signature(self, port):
        graph = self.plan.graph
        if isinstance(port, FifoPort):
            make = signatures.fifo_put if port.op is StreamOp.PUT else signatures.fifo_get
            return make(shape_of(graph.channels[port.channel].dtype))
        make = signatures.write_port if port.write else signatures.read_port
        return make(self.plan.bankings[port.tensor].depth,
                    shape_of(graph.tensors[port.tensor].dtype), slot_bits(self.plan.slots))

    def fifo_port(self, op, channel):
        """The interface of the FIFO port for ``op`` on ``channel``."""
        return getattr(self, next(p.name for p in self.ports.fifo(op) if p.channel == channel))

    @property
    def stalls(self):
        """Whether the group ever stalls: it has a port on a FIFO to another group (on a FIFO
        back into itself it never waits, ``schedule.static.schedule``). A group that never
        stalls is always enabled: its enable is the constant 1."""
        return self._stalls

    def elaborate(self, platform):
        m = Module()
        en = Signal() if self.stalls else Const(1)
        lines = DelayLines(m, en)
        controller = Controller(m, self, lines, en)
        members = Members(self, m, en, lines, controller, self._links(m, en), self._kinds)
        stalls = members.build()
        self.layouts = members.layouts
        if self.stalls:
            stall = Signal()
            m.d.comb += [stall.eq(Cat(*stalls).any()), en.eq(~stall)]
        lines.emit()
        return m

    @property
    def parents(self):
        """Member -> the member it receives its first link register from, earlier in the
        wavefront (``rtl.delay``: control travels beside the data)."""
        g, channels = self.scheduled, self.plan.graph.channels
        parents = {}
        for ch in sorted(g.links):
            src, dst = channels[ch].producer, channels[ch].consumer
            if src in g.skew and dst in g.skew and g.skew[src] < g.skew[dst]:
                parents.setdefault(dst, src)
        return parents

    def _links(self, m, en):
        """Channel -> the chain of registers a lockstep stream becomes."""
        graph = self.plan.graph
        links = {ch: [Signal(shape_of(graph.channels[ch].dtype), reset_less=True,
                             name=f"link_{safe_name(ch)}_{k}") for k in range(delay)]
                 for ch, delay in sorted(self.scheduled.links.items())}
        for ch, regs in links.items():
            with m.If(en):
                for a, b in zip(regs[1:], regs[:-1]):
                    m.d.sync += a.eq(b)
        return links

