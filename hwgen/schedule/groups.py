"""Lockstep groups and skews: which instances share a controller, and how far apart they run.

Instances with the same loop structure whose put and get on a stream happen on the same
iterations (one statement each) run in *lockstep*: one controller, one stall, the consumer
``skew`` cycles behind the producer, and the stream lowered to a chain of registers. Other
streams are FIFOs between groups.
Instances that touch no FIFO never stall, so all of them with the same structure share a group.
"""
from dataclasses import dataclass, field

from ..errors import HwgenError
from ..ir.graph import Get, Put, stmt_exprs


def consumer_skew(producer_skew, put_level, get_level):
    """The fewest cycles a lockstep consumer runs behind its group's base: a value put at
    ``put_level`` by a producer ``producer_skew`` behind the base is got one cycle later (the
    link register) at the consumer's ``get_level``."""
    return producer_skew + put_level + 1 - get_level


def link_delay(producer_skew, put_level, consumer_skew_, get_level):
    """Registers on a lockstep stream: the cycles from the put to the get."""
    return consumer_skew_ + get_level - producer_skew - put_level


def taps(skews, depths):
    """The deepest delay-line tap a group needs: its largest ``skew + depth - 1`` over members
    (the cycles from an iteration's issue to its last pipeline stage)."""
    return max(s + d - 1 for s, d in zip(skews, depths))


def loop_structure(inst):
    """Trip counts per segment: instances in lockstep share it."""
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
    compute_cycles: int = 0             # from the start pulse to the last group's finish pulse
    looped: frozenset = frozenset()     # FIFOs from a group back into itself: never wait


def _op_pattern(inst, channel, op):
    """Where in the iteration space the puts (``Put``) or gets (``Get``) on ``channel``
    happen: ``(segment, predicates)`` of each statement making one."""
    found = []
    for g, seg in enumerate(inst.segments):
        for s in seg.body:
            if op is Put and isinstance(s, Put) and s.channel == channel or \
                    op is Get and any(isinstance(e, Get) and e.channel == channel
                                      for e in stmt_exprs(s)):
                found.append((g, s.pred))
    return found


class _Sets:
    """Union-find over instance names."""

    def __init__(self, names):
        self.parent = {n: n for n in names}

    def find(self, x):
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)


def partition(graph, solo=frozenset()):
    """``(members, lockstep, fifos)``: group root -> instance names (graph order), the channels
    lowered to registers, and those lowered to FIFOs; instances ``solo`` are each a group."""
    sets = _Sets(graph.instances)
    lockstep = []
    for name, ch in graph.channels.items():
        p, c = graph.instances[ch.producer], graph.instances[ch.consumer]
        puts = _op_pattern(p, name, Put)
        if p is not c and loop_structure(p) == loop_structure(c) and len(puts) == 1 and \
                puts == _op_pattern(c, name, Get) and not {p.name, c.name} & solo:
            lockstep.append(name)
            sets.union(p.name, c.name)
    fifos = [n for n in graph.channels if n not in lockstep]
    # Instances that never touch a FIFO never stall: those with the same loop structure share
    # one controller (and can share identical memory reads: multicast).
    on_fifo = {sets.find(x) for n in fifos for x in (graph.channels[n].producer,
                                                      graph.channels[n].consumer)}
    free = {}
    for name, inst in graph.instances.items():
        if sets.find(name) not in on_fifo and name not in solo:
            sets.union(name, free.setdefault(loop_structure(inst), name))
    members = {}
    for name in graph.instances:
        members.setdefault(sets.find(name), []).append(name)
    return members, lockstep, fifos


# The smallest skew: every member runs at least two cycles behind its controller, so that
# what it taps of the controller's lines, the addresses it sends a cycle early (``ports.ahead``)
# included, is a line register, never the controller's own counters: a PE reading its banks
# straight from the loop counters lets the placer pull the counters to the block RAMs of a
# bank, away from the start handshake that resets them.
BASE_SKEW = 2


def solve_skews(names, edges, levels):
    """Each member's skew behind the group's base (the smallest is ``BASE_SKEW``): the longest
    path over the lockstep ``edges`` (channels) by ``consumer_skew``."""
    skew = {n: 0 for n in names}
    for _ in range(len(names) + 1):
        changed = False
        for ch in edges:
            need = consumer_skew(skew[ch.producer], levels[ch.producer].puts[ch.name],
                                 levels[ch.consumer].gets[ch.name])
            if skew[ch.consumer] < need:
                skew[ch.consumer] = need
                changed = True
        if not changed:
            base = min(skew.values()) - BASE_SKEW
            return {n: s - base for n, s in skew.items()}
    raise HwgenError(f"streams between {', '.join(names[:4])}... form a cycle; cyclic "
                     "stream graphs are not supported yet", edges[0].loc)


def make_group(graph, levels, gi, names, edges):
    """The ``Group`` of instances ``names`` joined by lockstep ``edges``."""
    skew = solve_skews(names, edges, levels)
    inst0 = graph.instances[names[0]]
    group = Group(f"g{gi}", names, skew, loop_structure(inst0),
                  sum(seg.iterations for seg in inst0.segments),
                  taps([skew[n] for n in names], [levels[n].depth for n in names]))
    for ch in edges:
        group.links[ch.name] = link_delay(skew[ch.producer], levels[ch.producer].puts[ch.name],
                                          skew[ch.consumer], levels[ch.consumer].gets[ch.name])
    return group
