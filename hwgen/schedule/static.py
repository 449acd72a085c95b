"""The static schedule of a task graph: levels per instance, lockstep groups with their skews
and links, FIFO streams, and the cycles of a problem."""
from ..errors import HwgenError
from .cycles import compute_cycles, group_spacing
from .groups import Schedule, make_group, partition
from .levels import Levels
from .support import check_support


def schedule(graph, known=None):
    """The ``Schedule`` of a checked task graph (a ``HwgenError`` where hardware cannot run
    it: a value that cannot be updated every cycle, a cyclic stream graph, a deadlock at the
    declared depths).

    A FIFO from a lockstep group back into itself (a folded array's stream from its last
    column to its first, a chained task's buffer) works when the group's own counter reaches
    the put before the get; when it does not (an element leaves the last column later than
    the first column wants it back: a short loop on a wide array), the group would wait on
    itself, so its instances run as groups of their own, every stream between them a FIFO.

    A group never waits on a FIFO back into itself that the schedule keeps (``looped``): only
    the group itself could end the wait, so one wait would be a deadlock, which the cycle model
    finds. The group does not stall on such FIFOs, and a folded array has no enable net at
    all; on FIFOs between groups it stalls.

    ``known``: ``Levels`` already computed, by instance name (used where of the same
    instance)."""
    check_support(graph)
    known = known or {}
    levels = {name: known[name] if name in known and known[name].inst is inst else Levels(inst)
              for name, inst in graph.instances.items()}
    sched = _schedule(graph, levels)
    looped = [c for c in sched.fifos if sched.group_of[graph.channels[c].producer] ==
              sched.group_of[graph.channels[c].consumer]]
    try:
        sched.compute_cycles = compute_cycles(graph, sched)
    except HwgenError:
        if not looped:
            raise
        groups = {sched.group_of[graph.channels[c].producer] for c in looped}
        sched = _schedule(graph, levels, {n for n, g in sched.group_of.items() if g in groups})
        try:
            sched.compute_cycles = compute_cycles(graph, sched)
        except HwgenError as e:
            stuck = e.message.replace(" Deepen the streams.", "").rstrip(".")
            raise HwgenError(stuck + ": a stream is wanted back sooner after its put than the "
                             "pipelines deliver it "
                             f"('{looped[0]}': a folded array's stream back to its first PEs, "
                             "or a chained task's buffer, over a short loop); fold onto another "
                             "number of PEs, or give the loops more iterations",
                             e.loc or graph.channels[looped[0]].loc) from None
    for group in sched.groups:
        group.spacing = group_spacing(graph, sched, group)
    sched.looped = frozenset(c for c in sched.fifos if sched.group_of[graph.channels[c].producer]
                             == sched.group_of[graph.channels[c].consumer])
    return sched


def _schedule(graph, levels, solo=frozenset()):
    """The groups, links and FIFOs (``groups.partition``), instances ``solo`` each a group."""
    members, lockstep, fifos = partition(graph, solo)
    groups, group_of = [], {}
    for gi, (root, names) in enumerate(members.items()):
        inside = set(names)
        edges = [graph.channels[n] for n in lockstep if graph.channels[n].producer in inside]
        group = make_group(graph, levels, gi, names, edges)
        groups.append(group)
        group_of.update(dict.fromkeys(names, group.name))
    return Schedule(levels, groups, group_of, fifos)
