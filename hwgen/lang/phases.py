"""Loops in sequence inside a loop body as *phases* of one loop nest (``body.TaskLowerer``):
which straight-line statements take clocks of their own, the nest around the phases, and the
clocks its padding costs; and the collection loop that runs on the first pass of the loop after
it instead (``collect_on_first_pass``), so that neither pads the other."""
import dataclasses
import math

from ..ir.graph import (ArrayRead, ArrayWrite, Assign, LoopIndex, Pred, Read, VarRef, Write,
                        coexist, stmt_exprs, stream_ops, transform)
from .loops import Loop

_LONG = 1 << 12        # a loop's trip count where it is not known yet (``_may_coexist``)
_REGISTERS = 256       # the most elements of a local array written and read on one iteration


def renumbered(item, dmap):
    """``item`` (a statement or a ``Loop``, not yet placed) with each loop index (and ``mod``
    predicate) at the depth ``dmap`` gives its loop; a loop is renumbered when its own nest is
    built."""
    if isinstance(item, Loop) or dmap == tuple(range(len(dmap))):
        return item
    item.pred = tuple(Pred(p.kind, dmap[p.depth], p.value) for p in item.pred)

    def move(e):
        return LoopIndex(dmap[e.depth]) if isinstance(e, LoopIndex) else e
    item.value = transform(item.value, move)
    if hasattr(item, "index"):
        item.index = tuple(transform(i, move) for i in item.index)
    return item


def collect_on_first_pass(items, depth, arrays):
    """``items`` of a loop body (children at source ``depth``) where a loop that only fills
    local arrays (``for i in range(N): x[i] = h.get()``) is followed by a loop whose inner loop
    has its trip count and reads those elements at the same index (``for o in range(M): ...
    for j in range(N): acc += W[o, j] * x[j]``): the first loop's statements move into the
    inner loop under ``o == 0``, as a user would write it by hand. Each element is written
    before it is first read, as before, and every stream operation keeps its order, so the
    program computes the same; the pair then takes ``M * N`` iterations instead of two phases,
    each as long as the longest. ``arrays``: name -> the local array's type."""
    out, k = [], 0
    while k < len(items):
        fused = (_collected(items[k], items[k + 1], depth, arrays)
                 if k + 1 < len(items) else None)
        if fused is None:
            out.append(items[k])
            k += 1
        else:
            out.append(fused)
            k += 2
    return out


def _collected(first, second, depth, arrays):
    """``second`` with ``first``'s statements on its first pass, or None where that could
    change what the program computes (``collect_on_first_pass``)."""
    if not (isinstance(first, Loop) and isinstance(second, Loop)):
        return None
    inner = [it for it in second.items if isinstance(it, Loop)]
    if len(inner) != 1 or inner[0].trip != first.trip or any(
            isinstance(it, Loop) for it in first.items + inner[0].items):
        return None
    fill, inner = first.items, inner[0]
    k = second.items.index(inner)
    before, after = second.items[:k], second.items[k + 1:]
    # Each iteration fills elements of its own (``x[i]``, ``x[c, i]``): the first read of an
    # element then finds its final value.
    if not fill or not all(isinstance(s, ArrayWrite) and LoopIndex(depth) in s.index
                           for s in fill):
        return None
    moved = [_deeper(s, depth) for s in fill]
    filled = {s.array: s.index for s in moved}
    if len(filled) != len(moved) or any(
            math.prod(arrays[a].shape) > _REGISTERS for a in filled if a in arrays):
        return None
    # What the fill reads, nothing after it writes; what it fills, read only element by element
    # as filled (and not before the inner loop, which would run ahead of it).
    later = before + inner.items + after
    written = {s.array for s in later if isinstance(s, ArrayWrite)}
    assigned = {s.var for s in later if isinstance(s, Assign)}
    stored = {s.tensor for s in later if isinstance(s, Write)}
    for s in fill:
        for e in stmt_exprs(s):
            if isinstance(e, ArrayRead) and e.array in written | set(filled) or \
                    isinstance(e, VarRef) and e.name in assigned or \
                    isinstance(e, Read) and e.tensor in stored:
                return None
    if written & set(filled) or any(_reads(s, filled) for s in before):
        return None
    if any(isinstance(e, ArrayRead) and e.array in filled and e.index != filled[e.array]
           for s in inner.items for e in stmt_exprs(s)):
        return None
    if any(stream_ops(s) for s in before + inner.items):
        return None     # the fill's gets and puts would interleave with the pass's
    on_first = Pred("at", depth, 0)
    body = [dataclasses.replace(s, pred=(on_first,) + s.pred) for s in moved] + inner.items
    return Loop(second.trip, before + [Loop(inner.trip, body, inner.node)] + after, second.node)


def _deeper(stmt, depth):
    """``stmt`` with its loop index at source ``depth`` one loop deeper."""
    def move(e):
        return LoopIndex(depth + 1) if e == LoopIndex(depth) else e
    return dataclasses.replace(
        stmt, value=transform(stmt.value, move),
        index=tuple(transform(i, move) for i in stmt.index),
        pred=tuple(Pred(p.kind, depth + 1, p.value) if p.depth == depth else p
                   for p in stmt.pred))


def _reads(stmt, arrays):
    return any(isinstance(e, ArrayRead) and e.array in arrays for e in stmt_exprs(stmt))


def share_arrays(run, body):
    """Whether statements ``run`` write a local array statements ``body`` use, or the other
    way round."""
    def arrays(stmts):
        written = {s.array for s in stmts if isinstance(s, ArrayWrite)}
        return written, written | {e.array for s in stmts for e in stmt_exprs(s)
                                   if isinstance(e, ArrayRead)}
    (w1, used1), (w2, used2) = arrays(run), arrays(body)
    return bool(w1 & used2 or w2 & used1)


def _share_streams(run, body):
    """Whether statements ``run`` put (get) on a stream that statements or loops ``body`` put
    (get) on: on one iteration they would take two elements of it (a daisy chain's
    ``s.put(own)`` before ``for _ in ...: s.put(t.get())``)."""
    def ops(items):
        return {op[:2] for s in _statements(items) for op in stream_ops(s)}
    return bool(ops(run) & ops(body))


def stream_runs(stmts):
    """Straight-line statements as runs one after another, a new run where a statement puts
    (gets) on a stream that a statement of the run puts (gets) on, unless their branches
    exclude each other (``if j % 2 == 0:`` / ``else:``); at least one run."""
    runs, seen = [[]], {}
    for s in stmts:
        ops = {op[:2] for op in stream_ops(s)}
        if any(_may_coexist(s, t) for op in ops for t in seen.get(op, ())):
            runs.append([])
            seen = {}
        runs[-1].append(s)
        for op in ops:
            seen.setdefault(op, []).append(s)
    return runs


def _may_coexist(a, b):
    """Whether statements ``a`` and ``b`` may run on one iteration (loops of unknown trip
    counts stand in as long ones: disjoint there, disjoint for any count)."""
    depth = 1 + max((p.depth for p in a.pred + b.pred), default=-1)
    return coexist(a.pred, b.pred, (_LONG,) * depth)


def alone(run, beside):
    """Whether straight-line statements ``run`` take clocks of their own (``stream_runs``)
    rather than the first (last) iteration of the loops ``beside``."""
    return len(stream_runs(run)) > 1 or _share_streams(run, beside)


def _statements(items):
    """The statements of ``items``, those of their loops included."""
    for it in items:
        if isinstance(it, Loop):
            yield from _statements(it.items)
        else:
            yield it


def _own_last(pred, trips, shape, top):
    """``pred`` of a statement in a phase whose loops (from depth ``top``) have ``trips`` of
    the nest's ``shape``: ``last`` of those loops means their own last iteration."""
    out = []
    for p in pred:
        cut = [top + i for i, (t, n) in enumerate(zip(trips, shape))
               if top + i >= p.depth and t < n]
        if p.kind != "last" or p.depth < top or not cut:
            out.append(p)
            continue
        out += [Pred("at", top + i, t - 1) for i, t in enumerate(trips) if top + i >= p.depth]
    return tuple(out)


def aligned(trips):
    """Phases' ``trips`` as one nest: each phase's trips padded with single iterations to the
    nest's depth, where each phase's loops start (their outermost's depth in the nest), and
    the nest's shape. The loops line up at the outermost loop or at the innermost, whichever
    pads less (a collection of ``H`` beside ``N x H`` output loops: at the innermost)."""
    width = max(len(t) for t in trips)
    best = None
    for inner in (False, True):
        starts = [width - len(t) if inner else 0 for t in trips]
        padded = [[1] * s + list(t) + [1] * (width - s - len(t)) for s, t in zip(starts, trips)]
        shape = [max(p[i] for p in padded) for i in range(width)]
        if best is None or math.prod(shape) < math.prod(best[2]):
            best = padded, starts, shape
    return best


def phase_nest(loop, phases, depth):
    """``loop`` around ``phases`` (``(trips, statements)`` each, run one after another):
    ``(trips, body)`` of the nest, a phase loop at ``depth + 1``."""
    padded, starts, shape = aligned([trips for trips, _ in phases])
    body, top = [], depth + 2
    for p, ((trips, stmts), full, start) in enumerate(zip(phases, padded, starts)):
        guard = (Pred("at", depth + 1, p),) + tuple(
            Pred("below", top + i, t) for i, (t, n) in enumerate(zip(full, shape)) if t < n)
        dmap = tuple(range(top)) + tuple(range(top + start, top + start + len(trips)))
        for stmt in stmts:
            stmt = renumbered(stmt, dmap)
            stmt.pred = guard + _own_last(stmt.pred, full, shape, top)
            body.append(stmt)
    return [loop.trip, len(phases)] + shape, body


def padding(loop, trips, lines):
    """What the padding of ``loop``'s phases (``trips`` each, from ``lines``) costs, as the
    text of a warning, or None below a quarter of the clocks they take on their own: every
    phase takes as many clocks as the longest of each loop depth (``phase_nest``)."""
    shape = aligned(trips)[2]
    padded, own = len(trips) * math.prod(shape), sum(math.prod(t) for t in trips)
    if 4 * (padded - own) < own:
        return None
    each = ", ".join(f"line {n}: {'x'.join(map(str, t))}" for n, t in zip(lines, trips))
    return (f"the {len(trips)} phases in this loop ({each} iterations) each run as long as the "
            f"longest, {'x'.join(map(str, shape))}: {padded:,} clocks per iteration where "
            f"their own trip counts take {own:,}, {loop.trip * (padded - own):,} clocks of "
            "padding per run of this loop; give loops in sequence equal trip counts (do a "
            "short loop's work on the first pass of a longer one, under `if o == 0:`), or "
            "write them at the top of the task body, where each runs at its own length")
