"""Folding a task's virtual grid onto a smaller physical one (Dato's ``bundle``).

A task written on a grid ``[32, 32]`` and folded onto ``[4, 4]`` becomes 16 instances; the one
at ``(p, q)`` runs the virtual instances ``(p + 4a, q + 4b)`` one after another, as loops over
``a`` and ``b`` around the task's body: its grid indices are loop variables, a branch on them
runs on the iterations where it holds (``lang.branches``), and a stream index computed from
them names a different *virtual* stream on each iteration. Every virtual stream connects two
virtual instances, hence two physical ones; the virtual streams between one pair of physical
instances share one physical stream, in the order the producer puts them. That order must be
the order the consumer gets them (checked here), and the physical stream is deep enough to
hold what the producer puts before the consumer gets it (the declared depth plus the elements
of one folded iteration ahead), so the folded program computes what the virtual one does.
"""
import itertools
import math
import re
from dataclasses import dataclass, field

from ..errors import HwgenError
from ..ir.graph import (BINARY, Channel, Const, Get, LoopIndex, Neg, Put, Select, stream_ops,
                        transform)
from ..ir.types import StreamType


@dataclass
class StreamUse:
    """One put or get statement of a folded program: the virtual stream it reaches on each
    iteration of its instance's fold loops (``targets``: fold indices -> virtual name)."""
    verb: str
    stream: str
    instance: str
    targets: dict
    loc: tuple


@dataclass
class FoldState:
    """What lowering a folded program collects: each stream statement's uses, each virtual
    stream's producer and consumer instances, the fold loops of each instance."""
    uses: dict = field(default_factory=dict)        # provisional channel name -> StreamUse
    ends: dict = field(default_factory=dict)        # virtual stream -> {"put": inst, "get": inst}
    depths: dict = field(default_factory=dict)      # instance -> number of fold loops
    folds: dict = field(default_factory=dict)       # task -> (virtual grid, physical grid)


def bundle(task, axis, factor):
    """In a region's body, after ``task``: its instances along grid ``axis``, ``factor`` at a
    time, share one PE, which runs them in turn (``docs/mapping.md``)."""
    raise HwgenError("hwgen.bundle() only has a meaning as a statement in a @hwgen.region "
                     "body, which hwgen compiles instead of running")


def iterations(trip):
    """The iterations of a loop: a count, or a ``range`` (cut by an enclosing predicate)."""
    return trip if isinstance(trip, range) else range(trip)


def evaluate(e, idx):
    """Integer expression ``e`` of constants and loop indices (selects among them too), at
    loop indices ``idx`` (by depth: a tuple, or a dict of the depths ``e`` uses)."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, LoopIndex):
        return idx[e.depth]
    if isinstance(e, Neg):
        return -evaluate(e.operand, idx)
    if isinstance(e, Select):
        return evaluate(e.a if evaluate(e.cond, idx) else e.b, idx)
    return BINARY[e.op](evaluate(e.lhs, idx), evaluate(e.rhs, idx))


def physical_grids(parser, tasks, tensors):
    """Task name -> the grid it is built on: its own, divided by the region's
    ``hwgen.bundle(task, axis=a, factor=f)`` statements, or the one a PE array folds it onto
    (``parser.folds``, from ``mapping.fold_onto``)."""
    written = {fn.name: parser.task_spec(fn, tensors)[0] for fn in tasks}
    grids = dict(written)
    for node in parser.bundles:
        call = node.value
        args = dict(zip(("task", "axis", "factor"), call.args))
        args.update({k.arg: k.value for k in call.keywords})
        task = getattr(args.get("task"), "id", None)
        if set(args) != {"task", "axis", "factor"} or len(call.args) > 3 or task not in grids:
            parser.error(f"write `hwgen.bundle(task, axis=0, factor=4)`, task a @hwgen.task of "
                         f"this region ({', '.join(grids)}): its instances along grid axis "
                         "`axis`, `factor` at a time, share one PE", node)
        grid = list(grids[task])
        axis = parser.eval_const(args["axis"], "the bundle axis")
        factor = parser.eval_const(args["factor"], "the bundle factor")
        if not isinstance(axis, int) or not 0 <= axis < len(grid):
            parser.error(f"task '{task}' has grid {grid}: bundle an axis from 0 to "
                         f"{len(grid) - 1}, not {axis!r}", node)
        if not isinstance(factor, int) or factor < 1 or grid[axis] % factor:
            parser.error(f"bundle factor {factor!r} must divide axis {axis} of task '{task}' "
                         f"(size {grid[axis]}), so that every PE runs as many instances", node)
        grid[axis] //= factor
        grids[task] = tuple(grid)
    for fn in tasks:
        phys, grid = tuple(parser.folds.get(fn.name, grids[fn.name])), written[fn.name]
        if len(phys) != len(grid) or any(not isinstance(p, int) or not 1 <= p <= g
                                          for p, g in zip(phys, grid)):
            parser.error(f"task '{fn.name}' on grid {list(grid)} cannot be folded onto "
                         f"{list(phys)}: give one size per axis, each from 1 to the task's", fn)
        grids[fn.name] = phys
    return grids


def link_streams(graph_parts, state, declared):
    """Replace the provisional channels of a folded program by physical streams: one per
    stream array and pair of physical instances, named after its virtual stream when it
    carries one, else ``name[producer>consumer]``; each checked for order and made deep
    enough (module docstring). ``graph_parts``: ``(instances, channels)``, changed in place;
    ``declared``: stream name -> (StreamType, loc)."""
    instances, channels = graph_parts
    links = {}                      # (stream, producer, consumer) -> provisional names
    for prov, use in state.uses.items():
        ends = {(state.ends[v].get("put"), state.ends[v].get("get"))
                for v in use.targets.values()}
        if len(ends) > 1:
            pes = sorted({e[1 if use.verb == "put" else 0] or "nobody" for e in ends})
            raise HwgenError(f"after folding, this {use.verb} on '{use.stream}' in {use.instance} "
                             f"reaches {len(pes)} instances on different iterations "
                             f"({', '.join(pes[:4])}); fold the grid so that each instance "
                             "streams to one neighbour per statement", use.loc)
        pair = ends.pop() if ends else (use.instance, None)
        links.setdefault((use.stream,) + pair, []).append(prov)
    rename = {}
    for (stream, producer, consumer), provs in links.items():
        carried = {v for p in provs for v in state.uses[p].targets.values()}
        stype, loc = declared[stream]
        name = next(iter(carried)) if len(carried) == 1 else \
            f"{stream}[{_pid(producer)}>{_pid(consumer)}]"
        depth = stype.depth
        if producer and consumer and (state.depths.get(producer) or state.depths.get(consumer)):
            depth += _check_order(name, instances, provs, state, producer, consumer, loc)
        channels[name] = Channel(name, StreamType(stype.dtype, depth, block=stype.block),
                                 producer, consumer, loc=loc,
                                 carries=tuple(sorted(carried, key=_natural)) * (len(carried) > 1))
        rename.update(dict.fromkeys(provs, name))
    for prov in state.uses:
        del channels[prov]
    _rename(instances, rename)


def _natural(name):
    """``h[10]`` after ``h[9]``: a virtual stream's name, ordered by its indices."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _pid(instance):
    return instance[instance.index("[") + 1:-1] if instance and "[" in instance else instance


def _rename(instances, rename):
    """Every stream statement on a provisional channel moved to its physical stream."""
    def move(e):
        return Get(rename[e.channel], e.loc) if isinstance(e, Get) and e.channel in rename else e
    for inst in instances.values():
        for seg in inst.segments:
            for s in seg.body:
                if isinstance(s, Put) and s.channel in rename:
                    s.channel = rename[s.channel]
                s.value = transform(s.value, move)
                if hasattr(s, "index"):
                    s.index = tuple(transform(i, move) for i in s.index)


def _check_order(name, instances, provs, state, producer, consumer, loc):
    """The elements the producer of physical stream ``name`` may hold ahead of its consumer,
    after checking that it puts the virtual streams in the order the consumer gets them."""
    mine = set(provs)
    puts = _windows(instances[producer], mine, state, "put")
    gets = _windows(instances[consumer], mine, state, "get")
    if _merged(puts) != _merged(gets):
        first = next(((a, b) for a, b in zip(_merged(puts), _merged(gets)) if a != b), None)
        said = f": {producer} puts {first[0][1]} of '{first[0][0]}' where {consumer} gets " \
               f"{first[1][1]} of '{first[1][0]}'" if first else ""
        raise HwgenError(f"folding sends the virtual streams of '{name}' in an order its "
                         f"consumer does not get them{said}; fold the grid so that producer "
                         "and consumer run their virtual instances in the same order", loc)
    ahead, done, g = 0, 0, 0
    put_total = 0
    for start, _, (v, count) in puts:
        put_total += count
        while g < len(gets) and gets[g][1] <= start:
            done += gets[g][2][1]
            g += 1
        ahead = max(ahead, put_total - done)
    return ahead


def _merged(windows):
    """``(virtual stream, elements)`` runs, adjacent runs of one stream joined."""
    out = []
    for _, _, (v, count) in windows:
        if out and out[-1][0] == v:
            out[-1] = (v, out[-1][1] + count)
        elif count:
            out.append((v, count))
    return out


def _windows(inst, provs, state, verb):
    """``(first iteration, end iteration, (virtual stream, elements))`` of ``inst``'s
    statements on ``provs``, per iteration of its fold loops (per iteration where statements
    on different virtual streams share one), in execution order."""
    out, start = [], 0
    nf = state.depths.get(inst.name, 0)
    for seg in inst.segments:
        trips = seg.trips
        inner = math.prod(trips[nf:])
        ops = [(s, chan) for s in seg.body for op, chan, _ in stream_ops(s)
               if chan in provs and op.value == verb]
        for k, n in enumerate(itertools.product(*(range(t) for t in trips[:nf]))):
            t0 = start + k * inner
            here = [(state.uses[c].targets[n], _inner_count(s.pred, trips, n, nf))
                    for s, c in ops if _allows(s.pred, trips, n)]
            if len({v for v, c in here if c}) <= 1:
                out += [(t0, t0 + inner, h) for h in here if h[1]]
                continue
            for m, rest in enumerate(itertools.product(*(range(t) for t in trips[nf:]))):
                idx = n + rest
                out += [(t0 + m, t0 + m + 1, (state.uses[c].targets[n], 1)) for s, c in ops
                        if all(p.allows(d, idx[d], trips[d]) for p in s.pred
                               for d in range(len(trips)))]
        start += seg.iterations
    return out


def _allows(pred, trips, n):
    return all(p.allows(d, n[d], trips[d]) for p in pred for d in range(len(n)))


def _inner_count(pred, trips, n, nf):
    """Iterations of the loops inside the fold loops (at fold iteration ``n``) that run a
    statement under ``pred``."""
    if not _allows(pred, trips, n):
        return 0
    count = 1
    for d in range(nf, len(trips)):
        count *= sum(1 for i in range(trips[d]) if all(p.allows(d, i, trips[d]) for p in pred))
    return count
