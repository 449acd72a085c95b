"""Variables and local arrays updated through operations that take several clocks
(``Levels.split``: ``p = p * x``, a float running sum, ``buf[j] = buf[j] * 2.0 + 1.0``),
spaced out where needed.

Such a value is read at one pipeline level and written ``d`` levels later. The program's
meaning holds when every read comes at least ``d + 1`` clocks after the write before it (a
memory's read port is transparent to its write port; registers are written at the clock's
end): decided exactly by walking every iteration once (``in_out.accesses``). Where a read
comes sooner, every iteration of the instance is followed by empty clocks, ``S`` in all, as
HLS tools raise a loop's initiation interval: an innermost loop of ``S`` iterations whose
first one runs the body. An array element read on the iteration that wrote it cannot be
spaced out and is refused at its line (a variable passes its new value on as it is computed).
"""
import dataclasses
import math
from functools import partial

import numpy as np

from ..errors import HwgenError
from ..ir.accumulate import accumulators, carried
from ..ir.graph import (ArrayRead, ArrayWrite, Assign, Const, Pred, Segment, VarRef,
                        stmt_exprs)
from .in_out import accesses
from .levels import Levels


def spaced(graph, known=None):
    """``graph`` with each instance whose split variables or arrays are read too soon after
    their writes spaced out (the module's docstring); ``graph`` itself when none is.
    ``known``: the ``Levels`` of instances already computed, by name."""
    changed = {}
    for name, inst in graph.instances.items():
        levels = known[name] if known and name in known else Levels(inst)
        stretch, loc, array = max([(1, None, None)] + [
            (*_stretch(inst, levels, a), a) for a in sorted(levels.split)],
            key=lambda found: found[0])
        if stretch > 1:
            if accumulators(inst):
                raise HwgenError(f"in task {inst.name}: '{array}' is read again before its "
                                 "update is written, and a task with float sums cannot be "
                                 "spaced out yet: give its updates a task of their own", loc)
            changed[name] = dataclasses.replace(
                inst, segments=[_stretched(seg, stretch) for seg in inst.segments])
    if not changed:
        return graph
    return dataclasses.replace(graph, instances={**graph.instances, **changed})


def shortest_gap(inst, name):
    """``(clocks, loc)``: the fewest clocks from a write of an element of array ``name`` (or
    of variable ``name``) to the next read of that element, and that read's line; ``None``
    when nothing is read after a write. A variable read after its assignment on one
    iteration gets the new value as it is computed, not from its register."""
    array = name in inst.arrays
    reads, writes = accesses(inst, inst.arrays[name].shape if array else (1,),
                             partial(_of_array if array else _of_variable, name),
                             f"'{name}'", "make its loops shorter")
    if not len(reads.times) or not len(writes.times):
        return None
    elements = np.concatenate([reads.elements, writes.elements])
    times = np.concatenate([reads.times, writes.times])
    clocks = np.concatenate([reads.clocks, writes.clocks])
    is_write = np.arange(len(times)) >= len(reads.times)
    order = np.lexsort((times, elements))
    span = int(clocks.max()) + 1
    # The latest write before each event, of the same element: a running maximum of
    # element * span + clock over the writes, in element, then program order.
    key = np.where(is_write[order], elements[order] * span + clocks[order], -1)
    latest = np.maximum.accumulate(key)
    read = ~is_write[order] & (latest >= 0) & (latest // span == elements[order])
    if not read.any():
        return None
    gaps = clocks[order][read] - latest[read] % span
    lines = reads.lines[order[read]]
    if not array:
        gaps, lines = gaps[gaps > 0], lines[gaps > 0]
        if not len(gaps):
            return None
    worst = int(np.argmin(gaps))
    return int(gaps[worst]), reads.locs[lines[worst]]


def _of_array(name, body, k):
    """``("r" or "w", index)`` of each access of statement ``body[k]`` to array ``name``."""
    stmt = body[k]
    found = [("r", e.index) for e in stmt_exprs(stmt) if isinstance(e, ArrayRead) and
             e.array == name]
    return found + ([("w", stmt.index)] if isinstance(stmt, ArrayWrite) and stmt.array == name
                    else [])


def _of_variable(name, body, k):
    """The reads of variable ``name`` from its register by statement ``body[k]`` (as an earlier
    iteration left it) and its assignment, as accesses of element 0."""
    stmt, at = body[k], (Const(0),)
    reads = carried(body, k, name) and any(isinstance(e, VarRef) and e.name == name
                                           for e in stmt_exprs(stmt))
    return [("r", at)] * reads + ([("w", at)] if isinstance(stmt, Assign) and stmt.var == name
                                  else [])


def _stretch(inst, levels, name):
    """``(clocks, loc)``: clocks per iteration that make every read of ``name`` after a write
    late enough, and the line of the read that needs them most."""
    found = shortest_gap(inst, name)
    if found is None:
        return 1, None
    gap, loc = found
    need = levels.arr_w[name] - levels.arr[name] + 1 if name in inst.arrays else \
        levels.var_w[name] - levels.var[name] + 1
    if gap == 0:
        raise HwgenError(f"in task {inst.name}: local array '{name}' is read on the "
                         f"iteration that writes it, but its new value takes "
                         f"{need - 1} clocks (it is computed from its old one): keep the new "
                         "value in a local and read that", loc)
    return math.ceil(need / gap), loc


def _stretched(seg, clocks):
    """``seg`` taking ``clocks`` clocks per iteration: an innermost loop of that many
    iterations, the body running on its first (a statement on the last iterations of loops
    runs on the first of the new one)."""
    n = len(seg.trips)

    def pred(p):
        out = []
        for q in p:
            out += [Pred("at", d, seg.trips[d] - 1) for d in range(q.depth, n)] \
                if q.kind == "last" else [q]
        return tuple(out) + (Pred("at", n, 0),)
    return Segment(tuple(seg.trips) + (clocks,),
                   [dataclasses.replace(s, pred=pred(s.pred)) for s in seg.body], seg.loc)
