"""The plan of a whole accelerator, in plain data: the schedule, each tensor's banks, lanes per
host port, buffer slots, and the cycles the host sees. ``rtl.top.Top`` elaborates a plan;
tests and reports read it without building any hardware."""
from dataclasses import dataclass
from functools import cached_property

from ..ir.layout import banking, tensor_accesses
from ..ir.ranges import hardware_ranges
from . import host_timing
from .in_out import split_in_out
from .levels import Levels
from .masked import masked
from .kinds import member_kinds
from .recurrences import spaced
from .ports import FifoPort, plan_ports
from .shared_rows import shared_rows
from .static import schedule
from .support import check_support


@dataclass(frozen=True)
class Plan:
    """What ``plan`` decided for a task graph.

    Attributes
    ----------
    graph : ir.Graph
    schedule : groups.Schedule
    bankings : dict
        Tensor name -> ``ir.layout.Banking``, with rows padded as the host sends them
        (``host_timing.padded``).
    lanes : dict
        Tensor name -> elements per host beat.
    ports : dict
        Group name -> its ``ports.GroupPorts``.
    slots : int
        Problems each buffer holds at once.
    interval_cycles : int
        Steady-state cycles per problem when the host sends problems back to back.
    expected_cycles : int
        Cycles of one problem that finds the accelerator idle, first input beat (without
        inputs: the first clock edge out of reset) to last output beat, when the host never
        stalls: load, compute, commit, drain.
    shared_rows : frozenset
        Output tensors whose rows of banks share one memory (``shared_rows``).
    """
    graph: object
    schedule: object
    bankings: dict
    ports: dict
    lanes: dict
    slots: int
    interval_cycles: int
    expected_cycles: int
    shared_rows: frozenset = frozenset()

    @cached_property
    def ranges(self):
        """``ir.ranges.hardware_ranges`` of the graph: ``(locals per instance, output tensors)``;
        ``rtl.datapath`` sizes each local's register by its range."""
        return hardware_ranges(self.graph)

    @cached_property
    def kinds(self):
        """Group name -> its ``kinds.MemberKinds``: which members compile to one module."""
        return {g.name: member_kinds(self, g) for g in self.schedule.groups}

    @property
    def host_pins(self):
        """Pins the top's host ports take: each tensor's payload, ``valid`` and ``ready``, plus
        the clock and reset (what a package must have, ``--ports``)."""
        return 2 + sum(t.dtype.bits * self.lanes[t.name] + 2
                       for t in self.graph.tensors.values())

    def announces_finish(self, group):
        """Whether ``group`` (one of ``schedule.groups``) knows ``host_timing.FINISH_AHEAD``
        cycles ahead that it finishes: it never stalls (no FIFO ports), and its finish is that
        many taps or more down its delay line (``rtl.controller``'s ``finished_ahead``)."""
        return group.taps >= host_timing.FINISH_AHEAD and \
            not any(isinstance(p, FifoPort) for p in self.ports[group.name].ports)

    @property
    def chain_lead(self):
        """The cycles ahead an output chain decides its loads and shifts
        (``rtl.output_chain``): ``FINISH_AHEAD`` when a single group announces its finish that
        far ahead (``rtl.top`` registers the announcement once), else 1."""
        groups = self.schedule.groups
        return host_timing.FINISH_AHEAD if len(groups) == 1 and \
            self.announces_finish(groups[0]) else 1

    def skid_lead(self, tensor):
        """``(lead, valid_ahead)`` of the skid at output ``tensor``'s port (``rtl.skid``): the
        cycles ahead it learns that a beat comes (a chain's lead and the register after it,
        or 1 after banks), and whether it is told valid that far ahead (behind a chain that
        decides ``FINISH_AHEAD`` cycles ahead)."""
        if not host_timing.chained(self.bankings[tensor]):
            return 1, False
        return self.chain_lead + 1, self.chain_lead == host_timing.FINISH_AHEAD

    @property
    def group_spacing(self):
        """Enabled cycles between problem starts each group must keep: without FIFOs every
        group starts a problem exactly every ``interval_cycles``, so that loading, draining and
        the output chain never hold a start back in steady state; None with FIFOs."""
        return None if self.schedule.fifos else self.interval_cycles


def tensor_grids(graph):
    """Grid of the tasks accessing each tensor (for its banking); () when none is sharded."""
    grids = {}
    for name, inst, *_ in tensor_accesses(graph):
        grids.setdefault(name, inst.grid)
    return grids


def array_starts(sched):
    """Fewest cycles between two problem starts in the array (one problem at a time when FIFOs
    couple the groups)."""
    if sched.fifos:
        return sched.compute_cycles
    return max(g.spacing for g in sched.groups)


def plan(graph, lanes=None):
    """The ``Plan`` of a checked task graph.

    Parameters
    ----------
    lanes : int or dict or None
        Elements per host beat: one number for every port, a dict per tensor name, or None to
        choose per tensor the fewest lanes that let loading and draining keep up with compute.
    """
    graph = masked(graph)
    halves = split_in_out(graph)
    if halves is not graph:
        check_support(graph)        # the in-out rules see the tensor whole
    check_support(halves)
    levels = {name: Levels(inst) for name, inst in halves.instances.items()}
    graph = spaced(halves, levels)
    sched = schedule(graph, levels)
    grids = tensor_grids(graph)
    bankings = {t.name: banking(t, grids.get(t.name, ())) for t in graph.tensors.values()}
    tensors = list(graph.tensors.values())
    host = host_timing.host_side(tensors, bankings, sched.compute_cycles, array_starts(sched),
                                 lanes)
    ports = {g.name: plan_ports(graph, sched, g, host.bankings) for g in sched.groups}
    return Plan(graph, sched, host.bankings, ports, host.lanes, host.slots, host.interval,
                host.latency,
                shared_rows(graph, sched, ports, host.bankings) if graph.share_rows
                else frozenset())
