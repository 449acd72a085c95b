"""Stream linearity: every stream has one producer and one consumer, and per problem the number
of puts equals the number of gets (loop trip counts and first/last predicates included)."""
from ..errors import HwgenError
from ..ir.graph import StreamOp, stream_ops
from ..ir.ranges import executions


def channel_ops(graph):
    """channel -> {StreamOp.PUT: [(instance, loc, count)], StreamOp.GET: [...]}, in graph
    order: every put and get of the channel with how often it runs per problem."""
    ops = {name: {StreamOp.PUT: [], StreamOp.GET: []} for name in graph.channels}
    for inst in graph.instances.values():
        for seg in inst.segments:
            for stmt in seg.body:
                n = executions(stmt.pred, seg.trips)
                for op, chan, loc in stream_ops(stmt):
                    ops[chan][op].append((inst, loc, n))
    return ops


def check_streams(graph):
    """Raise ``HwgenError`` at the user's line for the first unbalanced or dangling stream."""
    for name, op in channel_ops(graph).items():
        puts = sum(n for _, _, n in op[StreamOp.PUT])
        gets = sum(n for _, _, n in op[StreamOp.GET])
        if not op[StreamOp.GET]:
            inst, loc, _ = op[StreamOp.PUT][0]
            raise HwgenError(f"stream '{name}' is put by {inst.name} but no task gets from it; "
                             "add the matching get or remove the put", loc)
        if not op[StreamOp.PUT]:
            inst, loc, _ = op[StreamOp.GET][0]
            raise HwgenError(f"stream '{name}' is read by {inst.name} but no task puts to it; "
                             "the get would wait forever", loc)
        if puts != gets:
            pinst, ploc, _ = op[StreamOp.PUT][0]
            ginst, gloc, _ = op[StreamOp.GET][0]
            raise HwgenError(
                f"stream '{name}' is unbalanced: {pinst.name} puts {puts} element(s) per problem "
                f"(line {ploc[1]}) but {ginst.name} gets {gets} (line {gloc[1]}); make the loop "
                "trip counts around the put and the get agree", ploc)
