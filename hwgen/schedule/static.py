"""The static schedule of a task graph: levels per instance, lockstep groups with their skews
and links, FIFO streams, and the cycles of a problem."""
from ..errors import HwgenError
from ..ir.graph import Convert, FloatOp, stmt_exprs
from .cycles import compute_cycles, group_spacing
from .groups import Schedule, make_group, partition
from .levels import Levels


def schedule(graph):
    """The ``Schedule`` of a checked task graph (a ``HwgenError`` where hardware cannot run
    it: a value that cannot be updated every cycle, a cyclic stream graph, a deadlock at the
    declared depths)."""
    _no_float_arithmetic(graph)
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


def _no_float_arithmetic(graph):
    """Float arithmetic runs in the interpreter only, so far: hardware moves float bit patterns
    (streams, tensors, copies) but has no float operator yet."""
    for inst in graph.instances.values():
        for seg in inst.segments:
            for stmt in seg.body:
                for e in stmt_exprs(stmt):
                    if isinstance(e, (FloatOp, Convert)):
                        what = e.fmt.name if isinstance(e, FloatOp) else \
                            f"{getattr(e.src, 'name', 'integer')} -> {e.dst.name}"
                        raise HwgenError(
                            f"in task {inst.name}: float arithmetic ({what}) is not built in "
                            "hardware yet; the interpreter runs it (`hwgen run`, Allo's "
                            "target='simulator'), or keep hardware values integer (fixed "
                            "point)", stmt.loc)
