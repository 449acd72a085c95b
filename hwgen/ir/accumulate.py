"""Float accumulation with interleaved partial sums: what ``c += x`` means on a float.

A float add takes ``LANES`` clocks in hardware, so a task that starts one loop iteration per
clock cannot add each term to the sum of all the terms before it. A float variable updated as
``c = c + x`` (``c += x``; ``c -= x`` adds ``-x``) is therefore an *accumulator* of ``LANES``
partial sums. Any other assignment (``c = 0`` before the loop) sets partial sum 0 to its value
and the others to -0.0, which an add leaves as it is; the n-th update since adds ``x`` to partial
sum ``n % LANES``; reading ``c`` gives the partial sums that received a term (sum 0 always)
added pairwise in order: ``((s0 + s1) + (s2 + s3)) + (s4 + s5)``. The interpreter and the
hardware compute exactly this, bit for bit; numpy adds in other orders, so compare float sums
with a tolerance.
"""
import math
from dataclasses import dataclass, field

from .floats import operate
from .graph import Assign, FloatOp, VarRef, coexist, span_of, stmt_exprs, subexprs, trips_under
from .preds import SETS
from .types import FloatType

# One partial sum per stage of the float adder (``schedule.levels.FLOAT_STAGES``): each sum
# comes out of the adder just as its next term arrives.
LANES = 6


@dataclass(frozen=True)
class Update:
    """The statement ``stmt``, ``c = c + term`` (``term`` negated for ``c = c - x``)."""
    var: str
    term: object
    fmt: FloatType
    stmt: object = field(default=None, compare=False)


def update_of(stmt, types):
    """The ``Update`` that ``stmt`` is, or None. ``types``: the instance's local types."""
    if not isinstance(stmt, Assign) or not isinstance(types.get(stmt.var), FloatType) or \
            any(p.kind in ("first", "last") + SETS for p in stmt.pred):
        return None
    e, own = stmt.value, VarRef(stmt.var)
    if not isinstance(e, FloatOp) or e.op not in ("+", "-"):
        return None
    if e.lhs == own:
        term = e.rhs if e.op == "+" else FloatOp("neg", e.rhs, None, e.fmt)
    elif e.rhs == own and e.op == "+":
        term = e.lhs
    else:
        return None
    if own in subexprs(term):
        return None
    return Update(stmt.var, term, e.fmt, stmt)


def carried(body, k, var):
    """Whether statement ``body[k]`` reads ``var`` as an earlier iteration left it: no
    statement before it in the loop body assigns ``var`` whenever it runs."""
    pred = set(body[k].pred)
    return not any(isinstance(s, Assign) and s.var == var and set(s.pred) <= pred
                   for s in body[:k])


def accumulators(inst):
    """The float variables of ``inst`` that are accumulators: var -> its ``Update``, the
    first update of the form ``c = c + x`` that adds to the value of an earlier iteration
    (after ``x: float32 = ...; x = x + y`` in one iteration, ``x`` is a plain value), unless
    the sum is read while it runs (``C[i] = acc`` on every iteration: a running sum, added
    one term at a time)."""
    found, homes = {}, {}
    for seg in inst.segments:
        for k, s in enumerate(seg.body):
            u = update_of(s, inst.vars)
            if u is not None and carried(seg.body, k, u.var) and u.var not in found:
                found[u.var], homes[u.var] = u, seg
    return {v: u for v, u in found.items() if not read_while_running(homes[v], v, u)}


def read_while_running(seg, var, update):
    """Whether a statement of loop nest ``seg`` reads ``var`` while its sums run (``run``;
    where they have no run, over the whole nest): before the update in the loop body, or
    after it on an iteration that is neither the last of its run nor in a later loop in
    sequence."""
    begin, depth, _ = run(seg, var, update) or (None, 0, None)
    at = next(i for i, s in enumerate(seg.body) if s is update.stmt)
    last = [t - 1 for t in trips_under(update.stmt.pred, seg.trips)]
    for i, s in enumerate(seg.body):
        if s is begin or i == at or not any(isinstance(e, VarRef) and e.name == var
                                            for e in stmt_exprs(s)):
            continue
        ends = all(span_of(s.pred, e, seg.trips[e]) == (last[e], last[e])
                   for e in range(depth, len(seg.trips)))
        if i < at or not (ends or not coexist(s.pred, update.stmt.pred, seg.trips)):
            return True
    return False


def start(value, fmt):
    """The partial sums after ``c = value``: ``value``, then -0.0 in each other lane."""
    return [value] + [1 << (fmt.bits - 1)] * (LANES - 1)


def add(sums, count, term, fmt):
    """Partial sums ``sums`` after the ``count``-th update since they started adds ``term``."""
    lane = count % LANES
    sums[lane] = operate("+", sums[lane], term, fmt)


def used(count):
    """How many partial sums have received a term after ``count`` updates (at least sum 0)."""
    return max(1, min(count, LANES))


def total(sums, fmt):
    """The value of the accumulator: its partial sums added pairwise in order."""
    while len(sums) > 1:
        pairs = [operate("+", sums[i], sums[i + 1], fmt) for i in range(0, len(sums) - 1, 2)]
        sums = pairs + sums[len(pairs) * 2:]
    return sums[0]


def tree_depth(n):
    """Rounds of pairwise adds that ``total`` takes for ``n`` partial sums."""
    depth = 0
    while n > 1:
        n, depth = (n + 1) // 2, depth + 1
    return depth


def run(seg, var, update):
    """``(begin, depth, count)`` of the sums of ``var`` (its ``Update`` ``update``) in loop nest
    ``seg``: the assignment that starts them, on the first iteration of the loops at ``depth``
    and deeper (or on every iteration: ``depth`` is the nest's), and the updates from one start
    to the end of those loops, on consecutive iterations; None where they are not of this
    form."""
    begin = None
    for s in seg.body:
        if s is update.stmt:
            break
        if isinstance(s, Assign) and s.var == var:
            begin = s
    else:
        return None
    if begin is None:
        return None
    own = [p for p in begin.pred if p not in update.stmt.pred]  # beyond the phase guards
    if len(own) > 1 or own and own[0].kind != "first":
        return None
    depth = own[0].depth if own else len(seg.trips)
    trips = trips_under(update.stmt.pred, seg.trips)
    if any(p.kind == "at" and p.depth >= depth for p in update.stmt.pred) or \
            trips[depth + 1:] != tuple(seg.trips[depth + 1:]):
        return None             # not consecutive: the update skips iterations within a run
    return begin, depth, math.prod(trips[depth:])


def run_length(seg, var, update):
    """How many updates one run of ``var``'s sums in ``seg`` has (``run``), or None."""
    found = run(seg, var, update)
    return found and found[2]
