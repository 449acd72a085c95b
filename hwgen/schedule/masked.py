"""Closed streams and ``while`` loops in hardware, at counts fixed at compile time.

A closed stream (``Stream[T, depth, bound]``) carries, per problem, as many values as the data
decide. Hardware carries it as a stream of slots, one per put its producer may make, and one
for the close: a slot holds the value, a bit that says whether the put was made (its guard
held) and a bit that marks the close. The producer puts every slot unconditionally; the
consumer's ``for v in s:`` loop runs once per slot, its statements taking effect on the slots
that hold a value (each assignment a select on that bit, as under a run-time ``if``; ``v`` is 0
on the others, and an array written there is written at element 0 with its own value). The
graph that results has static counts only, so the schedule stays exact: a problem takes the
same cycles whatever the data. ``masked(graph)`` is the identity for a graph without closed
streams and loops whose count depends on data. A ``while`` runs its most iterations, its
statements taking effect until its condition first fails. What hardware does not build yet of
the dynamic subset (``s.get()``, ``s.more()`` on a closed stream, ``break`` in ``for v in s:``,
a tensor write inside such a loop) is refused here at its line.
"""
import dataclasses

from ..errors import HwgenError
from ..ir.graph import (ArrayRead, ArrayWrite, Assign, BinOp, Const, Get, More, Pred, Put,
                        Select, Slice, VarRef, Write, stmt_exprs, subexprs)
from ..ir.ranges import executions
from ..ir.types import IntType, StreamType, UInt, uint1


def masked(graph):
    """``graph`` with each closed stream carried as slots (the module docstring); ``graph``
    itself when it has none."""
    closed = {name: c for name, c in graph.channels.items() if c.bound is not None}
    loops = [(inst, seg) for inst in graph.instances.values() for seg in inst.segments
             if seg.cond is not None]
    for inst, seg in loops:
        if not isinstance(seg.cond, More) and any(isinstance(e, More) for e in subexprs(seg.cond)):
            raise HwgenError(f"in task {inst.name}: hardware builds a loop over a closed stream "
                             "as `for v in s:` without `break` or `continue` yet (the "
                             "interpreter runs them)", seg.loc)
    if not closed and not loops:
        return graph
    for inst in graph.instances.values():
        for seg in inst.segments:
            for k, stmt in enumerate(seg.body):
                read = [e for e in stmt_exprs(stmt) if isinstance(e, More) or
                        isinstance(e, Get) and e.channel in closed]
                if read and (not isinstance(seg.cond, More) or k > 0):  # not its own get
                    raise HwgenError(f"in task {inst.name}: hardware reads a closed stream with "
                                     "`for v in s:` only yet (`s.get()` and `s.more()` on it: "
                                     "the interpreter runs them)", read[0].loc or stmt.loc)
    for name, c in closed.items():
        if not isinstance(c.dtype, IntType) or c.type.block is not None:
            raise HwgenError(f"hardware builds closed streams of integers yet, not of "
                             f"{c.dtype!r}", c.loc)
    slots = _slot_counts(graph, closed)
    channels = {name: dataclasses.replace(c, type=StreamType(UInt(c.dtype.bits + 2), c.depth))
                if name in closed else c for name, c in graph.channels.items()}
    instances = {name: _instance(inst, closed, slots) for name, inst in graph.instances.items()}
    return graph.with_(channels=channels, instances=instances)


def _slot_counts(graph, closed):
    """Closed stream -> its slots per problem: each put its producer may make, and the close,
    its ``for v in s:`` loops running once per slot of theirs (a stream after another, first)."""
    counts, pending = {}, dict(closed)
    while pending:
        ready = [name for name, c in pending.items() if all(
            seg.cond.channel in counts for seg in graph.instances[c.producer].segments
            if isinstance(seg.cond, More))]
        if not ready:
            c = next(iter(pending.values()))
            raise HwgenError(f"closed stream '{c.name}' is put in a loop over a closed stream "
                             "that it feeds itself: hardware does not build closed streams in "
                             "a cycle", c.loc)
        for name in ready:
            producer = graph.instances[pending.pop(name).producer]
            counts[name] = sum(
                executions(s.pred, _trips(seg, counts)) for seg in producer.segments
                for s in seg.body if isinstance(s, Put) and s.channel == name)
    return counts


def _trips(seg, counts):
    """A segment's trips, a ``for v in s:`` loop's at the slots of ``s``."""
    if not isinstance(seg.cond, More):
        return seg.trips
    return (counts[seg.cond.channel],) + tuple(seg.trips[1:])


def _instance(inst, closed, slots):
    """``inst`` with its puts on closed streams made slots, its ``for v in s:`` loops run
    once per slot and its ``while`` loops their most iterations."""
    segments, known, variables = [], set(), dict(inst.vars)
    for gi, seg in enumerate(inst.segments):
        body = seg.body
        if isinstance(seg.cond, More):
            seg, body = _slot_loop(inst, gi, seg, closed[seg.cond.channel], known, variables,
                                   slots[seg.cond.channel])
        elif seg.cond is not None:
            alive = f"alive@{gi}"                   # '@': never a user's name
            variables[alive] = uint1
            seg, body = _while_loop(inst, seg, alive, known)
        body = [_slot_put(s, closed[s.channel]) if isinstance(s, Put) and s.channel in closed
                else s for s in body]
        segments.append(dataclasses.replace(seg, body=body))
        known |= {s.var for s in body if isinstance(s, Assign)}
    return dataclasses.replace(inst, segments=segments, vars=variables)


def _slot_put(put, chan):
    """A put on a closed stream as an unconditional put of its slot: the value's bits, a bit
    for whether the put is made, and for the close a bit above them."""
    bits = chan.dtype.bits
    if put.close:
        value = Const(1 << (bits + 1))
    else:
        made = Const(1) if put.guard is None else BinOp("!=", put.guard, Const(0))
        value = BinOp("|", BinOp("&", put.value, Const((1 << bits) - 1)),
                      BinOp("<<", made, Const(bits)))
    return dataclasses.replace(put, value=value, guard=None, close=False)


def _slot_loop(inst, gi, seg, chan, known, variables, count):
    """``for v in s:`` as a loop over the slots of ``s``: its first statement takes the slot,
    the others take effect where the slot holds a value; ``known``: locals assigned before."""
    head, rest = seg.body[0], seg.body[1:]
    if not (isinstance(head, Assign) and isinstance(head.value, Get) and
            head.value.channel == chan.name):
        raise HwgenError(f"in task {inst.name}: hardware builds a loop over a closed stream "
                         "as `for v in s:` (each value taken first), not this one yet (the "
                         "interpreter runs it)", seg.loc)
    slot, valid = f"slot@{gi}", f"valid@{gi}"       # '@': never a user's name
    bits = chan.dtype.bits
    variables[slot], variables[valid] = UInt(bits + 2), uint1
    pred = head.pred
    body = [Assign(slot, Get(chan.name, loc=head.value.loc), pred, head.loc),
            Assign(valid, Slice(VarRef(slot), bits, bits + 1), pred, head.loc),
            Assign(head.var, Select(VarRef(valid), Slice(VarRef(slot), 0, bits), Const(0)),
                   pred, head.loc)]
    on = VarRef(valid)
    body += [_on_values(_no_write(inst, s), on, known | {head.var}) for s in rest]
    return dataclasses.replace(seg, trips=_trips(seg, {chan.name: count}), cond=None), body


def _while_loop(inst, seg, alive, known):
    """``while hwgen.bounded(cond, max_iterations=N):`` as a loop of N iterations: ``alive``
    falls at the first whose ``cond`` fails (tested before it, on the loop's first inner
    iteration), and the statements take effect while it holds."""
    first = tuple(Pred("first", d) for d in range(1, len(seg.trips)))
    start = Assign(alive, Const(1), (Pred("first", 0),) + first, seg.loc)
    test = Assign(alive, BinOp("&", VarRef(alive), BinOp("!=", seg.cond, Const(0))), first,
                  seg.loc)
    body = [start, test] + [_on_values(_no_write(inst, s), VarRef(alive), known)
                            for s in seg.body]
    return dataclasses.replace(seg, cond=None), body


def _no_write(inst, s):
    """``s``, which is not a tensor write: hardware does not write tensors in these loops."""
    if isinstance(s, Write):
        raise HwgenError(f"in task {inst.name}: hardware writes tensors after a loop whose "
                         "count depends on data, not inside it yet: keep the value in a local "
                         "and write it after the loop", s.loc)
    return s


def _on_values(s, on, known):
    """Statement ``s`` taking effect where ``on`` (the slot holds a value) is 1."""
    if isinstance(s, Put):
        guard = on if s.guard is None else BinOp("&", on, BinOp("!=", s.guard, Const(0)))
        return dataclasses.replace(s, guard=guard)
    if isinstance(s, ArrayWrite):       # at element 0 (unchanged) where no value came
        index = tuple(Select(on, i, Const(0)) if any(
            isinstance(x, (VarRef, ArrayRead, Get)) for x in subexprs(i)) else i
            for i in s.index)
        return dataclasses.replace(s, index=index,
                                   value=Select(on, s.value, ArrayRead(s.array, index)))
    keep = VarRef(s.var) if s.var in known else Const(0)    # first assigned in the loop
    return dataclasses.replace(s, value=Select(on, s.value, keep))
