"""Chaining a producer task and its consumer into one PE (Dato's ``chain``, vertical fusion).

``hwgen.chain(producer, consumer)``, a statement in the region after both tasks, merges the
instance of ``producer`` at each grid position with the instance of ``consumer`` at the same
position: one instance that runs the producer's body, then the consumer's. The streams between
the two become a buffer inside the PE (a stream from the instance to itself) deep enough for
everything the producer puts before the consumer starts; every other stream keeps its ends.
"""
import ast

from ..errors import HwgenError
from ..ir.graph import (ArrayRead, ArrayWrite, Assign, Instance, VarRef, stream_ops,
                        transform)
from ..ir.ranges import executions
from ..ir.types import StreamType


def chain(producer, consumer):
    """In a region's body, after both tasks: each instance of ``producer`` and the instance
    of ``consumer`` at the same grid position become one PE that runs them in turn
    (``docs/mapping.md``)."""
    raise HwgenError("hwgen.chain() only has a meaning as a statement in a @hwgen.region "
                     "body, which hwgen compiles instead of running")


def chain_tasks(parser, nodes, instances, channels):
    """Apply the region's ``hwgen.chain(producer, consumer)`` statements ``nodes`` to the
    lowered ``instances`` and ``channels`` (in place)."""
    for node in nodes:
        call = node.value
        names = [a.id for a in call.args if isinstance(a, ast.Name)]
        tasks = {inst.task for inst in instances.values()}
        if len(names) != 2 or len(call.args) != 2 or call.keywords or \
                not set(names) <= tasks or names[0] == names[1]:
            parser.error(f"write `hwgen.chain(producer, consumer)`, two @hwgen.task of this "
                         f"region ({', '.join(sorted(tasks))})", node)
        producer, consumer = names
        pairs = _pairs(parser, node, instances, producer, consumer)
        joined = {(channels[c].producer, channels[c].consumer) for c in channels}
        back = any((c.name, p.name) in joined for p, c in pairs)
        if back and not any((p.name, c.name) in joined for p, c in pairs):
            parser.error(f"'{consumer}' produces what '{producer}' consumes: write "
                         f"`hwgen.chain({consumer}, {producer})`, the producer first", node)
        if back:
            parser.error(f"task '{consumer}' streams back to '{producer}': in one PE the "
                         "producer runs first and would wait for it", node)
        if not any((p.name, c.name) in joined for p, c in pairs):
            parser.error(f"task '{producer}' streams nothing to '{consumer}' at the same grid "
                         "position: chain joins a producer and its consumer", node)
        for p, c in pairs:
            _merge(instances, channels, p, c)


def _pairs(parser, node, instances, producer, consumer):
    """The instances of the two tasks, paired by grid position."""
    ps = [i for i in instances.values() if i.task == producer]
    cs = {i.pid: i for i in instances.values() if i.task == consumer}
    if {p.pid for p in ps} != set(cs) or any(p.grid != cs[p.pid].grid for p in ps):
        parser.error(f"chain joins instance by instance: tasks '{producer}' and '{consumer}' "
                     f"must have one grid, not {list(ps[0].grid)} and "
                     f"{list(next(iter(cs.values())).grid)}", node)
    return [(p, cs[p.pid]) for p in ps]


def _merge(instances, channels, p, c):
    """``p`` then ``c`` as one instance named ``<p's task>_<c's task>[pid]``, in ``p``'s place;
    ``c``'s locals renamed where ``p`` has the name."""
    task = f"{p.task}_{c.task}"
    name = task + p.name[len(p.task):]
    taken = set(p.vars) | set(p.arrays)
    new = {v: f"{c.task}@{v}" for v in list(c.vars) + list(c.arrays) if v in taken}

    def rename(e):
        if isinstance(e, VarRef) and e.name in new:
            return VarRef(new[e.name])
        if isinstance(e, ArrayRead) and e.array in new:
            return ArrayRead(new[e.array], e.index, e.loc)
        return e
    for seg in c.segments:
        for s in seg.body:
            s.value = transform(s.value, rename)
            if hasattr(s, "index"):
                s.index = tuple(transform(i, rename) for i in s.index)
            if isinstance(s, Assign) and s.var in new:
                s.var = new[s.var]
            if isinstance(s, ArrayWrite) and s.array in new:
                s.array = new[s.array]
    merged = Instance(name, task, p.pid, p.grid, p.segments + c.segments,
                      {**p.vars, **{new.get(v, v): t for v, t in c.vars.items()}}, p.loc,
                      {**p.arrays, **{new.get(a, a): t for a, t in c.arrays.items()}},
                      {**p.contents, **{new.get(a, a): v for a, v in c.contents.items()}})
    for ch in channels.values():
        inner = ch.producer == p.name and ch.consumer == c.name
        ch.producer = name if ch.producer in (p.name, c.name) else ch.producer
        ch.consumer = name if ch.consumer in (p.name, c.name) else ch.consumer
        if inner:
            puts = sum(executions(s.pred, seg.trips) for seg in p.segments for s in seg.body
                       for op, chan, _ in stream_ops(s) if chan == ch.name and op.value == "put")
            ch.type = StreamType(ch.dtype, max(ch.depth, puts), block=ch.type.block)
    order = list(instances.items())
    instances.clear()
    for key, inst in order:
        if key == p.name:
            instances[name] = merged
        elif key != c.name:
            instances[key] = inst
