"""The static schedule of a task graph: levels per instance, lockstep groups with their skews
and links, FIFO streams, and the cycles of a problem."""
from .cycles import compute_cycles, group_spacing
from .groups import Schedule, make_group, partition
from .levels import Levels
from .support import check_support


def schedule(graph):
    """The ``Schedule`` of a checked task graph (a ``HwgenError`` where hardware cannot run
    it: a value that cannot be updated every cycle, a cyclic stream graph, a deadlock at the
    declared depths)."""
    check_support(graph)
    levels = {name: Levels(inst) for name, inst in graph.instances.items()}
    members, lockstep, fifos = partition(graph)
    groups, group_of = [], {}
    for gi, (root, names) in enumerate(members.items()):
        inside = set(names)
        edges = [graph.channels[n] for n in lockstep if graph.channels[n].producer in inside]
        group = make_group(graph, levels, gi, names, edges)
        groups.append(group)
        group_of.update(dict.fromkeys(names, group.name))
    sched = Schedule(levels, groups, group_of, fifos)
    sched.compute_cycles = compute_cycles(graph, sched)
    for group in groups:
        group.spacing = group_spacing(graph, sched, group)
    return sched
