"""Loops in sequence inside a loop body as *phases* of one loop nest (``body.TaskLowerer``):
which straight-line statements take clocks of their own, the nest around the phases, and the
clocks its padding costs."""
import math

from ..ir.graph import ArrayRead, ArrayWrite, Pred, coexist, stmt_exprs, stream_ops
from .loops import Loop

_LONG = 1 << 12        # a loop's trip count where it is not known yet (``_may_coexist``)


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


def phase_nest(loop, phases, depth):
    """``loop`` around ``phases`` (``(trips, statements)`` each, run one after another):
    ``(trips, body)`` of the nest, a phase loop at ``depth + 1``."""
    width = max(len(trips) for trips, _ in phases)
    shape = [max(trips[i] if i < len(trips) else 1 for trips, _ in phases)
             for i in range(width)]
    body = []
    for p, (trips, stmts) in enumerate(phases):
        trips = list(trips) + [1] * (width - len(trips))
        guard = (Pred("at", depth + 1, p),) + tuple(
            Pred("below", depth + 2 + i, t) for i, (t, n) in enumerate(zip(trips, shape))
            if t < n)
        for stmt in stmts:
            stmt.pred = guard + _own_last(stmt.pred, trips, shape, depth + 2)
            body.append(stmt)
    return [loop.trip, len(phases)] + shape, body


def padding(loop, trips, lines):
    """What the padding of ``loop``'s phases (``trips`` each, from ``lines``) costs, as the
    text of a warning, or None below a quarter of the clocks they take on their own: every
    phase takes as many clocks as the longest of each loop depth (``phase_nest``)."""
    width = max(len(t) for t in trips)
    shape = [max(t[i] if i < len(t) else 1 for t in trips) for i in range(width)]
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
