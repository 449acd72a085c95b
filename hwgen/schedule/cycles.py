"""The cycle model: when a group may start the next problem, and how many cycles a problem takes.

Because everything is static between stalls, the cycles of a problem follow from the schedule;
``compute_cycles`` runs the groups against FIFOs of the declared depths where occupancy makes
them depend on each other.
"""
import functools
import itertools

from ..errors import HwgenError
from ..ir.graph import StreamOp, Write, pred_holds, stream_ops


def finish_count(iterations, taps):
    """The controller count at which a problem's last iteration leaves the pipeline."""
    return iterations - 1 + taps


def problem_spacing(iterations, taps, first_write):
    """Enabled cycles between two problem starts of a group without FIFOs.

    A problem may start while the previous one's wavefront is still in the array, once the
    previous one has issued all its iterations, provided its own first tensor write (at count
    ``first_write``) comes after the previous problem's finish: output banks hold one
    problem's results until they are handed over.
    """
    return max(iterations, finish_count(iterations, taps) - first_write + 1)


def group_spacing(graph, sched, group):
    """``problem_spacing`` of ``group``; with FIFO streams, problems do not overlap."""
    finish = finish_count(group.iterations, group.taps)
    if sched.fifos:
        return finish + 1
    first_write = finish
    for name, site, stmt, its in statement_iterations(graph, group):
        if isinstance(stmt, Write):
            tap = group.skew[name] + sched.levels[name].writes[site]
            first_write = min(first_write, min(its) + tap)
    return problem_spacing(group.iterations, group.taps, first_write)


def statement_iterations(graph, group):
    """Every statement of the group's members, ``(member, ir.Site, statement, the base
    iterations that execute it)``."""
    for name in group.members:
        inst = graph.instances[name]
        starts = list(itertools.accumulate((seg.iterations for seg in inst.segments), initial=0))
        for site, seg, stmt in inst.sites():
            yield name, site, stmt, _iterations(seg.trips, stmt.pred, starts[site.segment])


@functools.lru_cache(maxsize=4096)
def _iterations(trips, pred, start):
    """The base iterations (from ``start``) of a loop nest of ``trips`` on which ``pred``
    holds; the members of an array share them, so each is computed once."""
    nest = itertools.product(*(range(t) for t in trips))
    return frozenset(start + n for n, idx in enumerate(nest) if pred_holds(pred, idx, trips))


def _fifo_ops(graph, sched, group):
    """Per FIFO op of the group: ``(channel, StreamOp, tap, set of base iterations)``."""
    ops = []
    for name, _, stmt, its in statement_iterations(graph, group):
        lv = sched.levels[name]
        for op, chan, _ in stream_ops(stmt):
            if chan in sched.fifos:
                level = lv.puts[chan] if op is StreamOp.PUT else lv.gets[chan]
                ops.append((chan, op, group.skew[name] + level, its))
    return ops


def compute_cycles(graph, sched, limit=10_000_000):
    """Cycles from the start pulse until every group is done, as the hardware runs them.

    Mirrors ``rtl.controller``: a group advances its counter on every cycle it is not stalled; it
    stalls when an op active at the current counter meets an empty (get) or full (put) FIFO
    (``amaranth.lib.fifo.SyncFIFO``: writable below ``depth``, readable above 0). A group's
    finish pulse comes in the cycle its counter reaches ``finish_count``.
    """
    if not sched.fifos:
        return max(g.iterations + g.taps for g in sched.groups)
    ops = {g.name: _fifo_ops(graph, sched, g) for g in sched.groups}
    level = {c: 0 for c in sched.fifos}
    count = {g.name: 0 for g in sched.groups}
    done = {g.name: None for g in sched.groups}
    for cycle in range(1, limit):
        before = dict(count)
        delta = {c: 0 for c in sched.fifos}
        for g in sched.groups:
            if done[g.name] is None and _advance(graph, g, ops[g.name], count, level, delta):
                if count[g.name] - 1 == finish_count(g.iterations, g.taps):
                    done[g.name] = cycle
        for c in delta:
            level[c] += delta[c]
        if all(d is not None for d in done.values()):
            return max(done.values())
        if count == before and not any(delta.values()):
            stuck = [f"'{c}' ({'full' if level[c] else 'empty'})" for c in sched.fifos]
            raise HwgenError("the hardware schedule deadlocks at the declared stream depths; "
                             "streams: " + ", ".join(stuck) + ". Deepen the streams.")
    raise HwgenError(f"the hardware schedule did not finish within {limit} cycles")


def _advance(graph, group, ops, count, level, delta):
    """One cycle of ``group``: unless an active op is blocked, count on and record the FIFO
    moves in ``delta``. Whether it advanced."""
    n = count[group.name]
    active = [(c, op) for c, op, tap, its in ops if (n - tap) in its]
    if any((op is StreamOp.GET and level[c] == 0) or
           (op is StreamOp.PUT and level[c] == graph.channels[c].depth) for c, op in active):
        return False
    for c, op in active:
        delta[c] += 1 if op is StreamOp.PUT else -1
    count[group.name] = n + 1
    return True
