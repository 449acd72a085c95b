"""Stream linearity: every stream has one producer and one consumer, and per problem the number
of puts equals the number of gets (loop trip counts and first/last predicates included). A
closed stream's count depends on data: its producer closes it once per problem and puts no
more than its bound unconditionally; the interpreter checks the bound against the data as it
runs."""
from ..errors import HwgenError
from ..ir.graph import Put, StreamOp, stream_ops
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
        if graph.channels[name].bound is not None:
            _check_closed(graph, graph.channels[name])
            continue
        if puts != gets:
            pinst, ploc, _ = op[StreamOp.PUT][0]
            ginst, gloc, _ = op[StreamOp.GET][0]
            raise HwgenError(
                f"stream '{name}' is unbalanced: {pinst.name} puts {puts} element(s) per problem "
                f"(line {ploc[1]}) but {ginst.name} gets {gets} (line {gloc[1]}); make the loop "
                "trip counts around the put and the get agree", ploc)


def _check_closed(graph, chan):
    """A closed stream is closed by its producer, which puts on it unconditionally no more
    often than its bound per problem."""
    inst = graph.instances[chan.producer]
    puts = [(stmt, seg) for seg in inst.segments for stmt in seg.body
            if isinstance(stmt, Put) and stmt.channel == chan.name]
    if not any(stmt.close for stmt, _ in puts):
        raise HwgenError(f"stream '{chan.name}' is read with `for v in ...:` but {inst.name} "
                         "never closes it: close it (`s.close()`) after its last put, once per "
                         "problem", puts[0][0].loc)
    always = [(stmt, executions(stmt.pred, seg.trips)) for stmt, seg in puts
              if stmt.guard is None and not stmt.close]
    total = sum(n for _, n in always)
    if total > chan.bound:
        seen, past = 0, None            # the put that goes past the bound
        for stmt, n in always:
            seen += n
            past = past or (stmt if seen > chan.bound else None)
        raise HwgenError(f"stream '{chan.name}' takes at most {chan.bound} values per problem "
                         f"(its bound), but {inst.name} puts {total} unconditionally; declare "
                         f"a bound of at least {total}", past.loc)
