"""A lockstep group: task instances compiled to one controller, one stall and their datapaths.

The controller (``controller``) walks the group's iteration space one iteration per enabled
cycle; a member ``skew`` cycles behind the base, at pipeline level ``l``, sees its control
values through the shared delay lines (``delay``) tapped at ``skew + l`` — the control wavefront
of a systolic array. Each member's statements become a datapath (``datapath``); lockstep
streams become link registers.

Every register moves only when the group is enabled (``en``: no FIFO op active this cycle is
blocked). Datapath registers are reset-less; control registers reset.
"""
from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..ir.graph import StreamOp
from ..schedule.host import slot_bits
from ..schedule.ports import FifoPort, plan_ports, safe_name
from . import ports
from .controller import Controller
from .datapath import Member
from .delay import DelayLines
from .ports import shape_of


class Group(wiring.Component):
    """The hardware of one ``schedule.Group``.

    Parameters
    ----------
    graph : ir.Graph
    sched : schedule.Schedule
    group : schedule.Group
    bankings : dict
        Tensor name -> ``ir.layout.Banking``.
    slots : int
        Buffer slots (problems in flight).
    spacing : int or None
        Enabled cycles between problem starts, when more than ``group.spacing``.

    Attributes
    ----------
    start : In(1)
        Pulse: start a problem (only when ``accept``).
    accept : Out(1)
        A problem may start this cycle: the group is idle, or the previous problem has issued
        its iterations and is far enough ahead (``schedule.Group.spacing``).
    finished : Out(1)
        Pulse: the oldest problem in the array has made its last side effect.
    ports : schedule.ports.GroupPorts
        The memory and FIFO ports below, with what each connects to.
    rd<k>, wr<k> : Out(ports.read_port / ports.write_port)
        Memory ports into one bank each.
    put_<channel>, get_<channel> : Out(ports.fifo_put / ports.fifo_get)
        FIFO ports.
    """

    def __init__(self, graph, sched, group, bankings, slots=2, spacing=None):
        self.graph, self.sched, self.group, self.bankings = graph, sched, group, bankings
        self.slots = slots
        self.spacing = max(group.spacing, spacing or 0)
        self.ports = plan_ports(graph, sched, group, bankings)
        self._fifos = {(p.op, p.channel): p.name for p in self.ports.ports
                       if isinstance(p, FifoPort)}
        members = {"start": In(1), "accept": Out(1), "finished": Out(1)}
        for port in self.ports.ports:
            members[port.name] = Out(self._signature(port))
        super().__init__(members)

    def _signature(self, port):
        if isinstance(port, FifoPort):
            signature = ports.fifo_put if port.op is StreamOp.PUT else ports.fifo_get
            return signature(shape_of(self.graph.channels[port.channel].dtype))
        signature = ports.write_port if port.write else ports.read_port
        return signature(self.bankings[port.tensor].depth,
                         shape_of(self.graph.tensors[port.tensor].dtype),
                         slot_bits(self.slots))

    def fifo_port(self, op, channel):
        """The interface of the FIFO port for ``op`` on ``channel``."""
        return getattr(self, self._fifos[op, channel])

    def elaborate(self, platform):
        m = Module()
        self.m = m
        self.en = Signal()
        self.stall_terms = []
        self.driven = set()     # shared read ports already driven
        self.lines = DelayLines(m, self.en)
        self.controller = Controller(m, self.group, self.slots, self.spacing, self.lines, self)
        self.links = {ch: [Signal(shape_of(self.graph.channels[ch].dtype), reset_less=True,
                                  name=f"link_{safe_name(ch)}_{k}") for k in range(delay)]
                      for ch, delay in sorted(self.group.links.items())}
        for ch, regs in self.links.items():
            with m.If(self.en):
                for a, b in zip(regs[1:], regs[:-1]):
                    m.d.sync += a.eq(b)
        for name in self.group.members:
            Member(self, name).build()
        stall = Signal()
        if self.stall_terms:
            m.d.comb += stall.eq(Cat(*self.stall_terms).any())
        m.d.comb += self.en.eq(~stall)
        self.lines.emit()
        return m
