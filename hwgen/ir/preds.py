"""Statement predicates: on which iterations of its loop nest a statement runs (``Pred``), and
what follows from them for a statement or a pair (counts, spans, overlap)."""
from dataclasses import dataclass

SETS = ("mod", "in")        # the kinds that allow a set of iterations, not one span


@dataclass(frozen=True)
class Pred:
    """Run only on some iterations of a loop nest. ``first`` / ``last``: the loops at
    ``depth`` and deeper are at their first (last) iteration; ``at``: the loop at ``depth`` is
    at iteration ``value``; ``below``: it is below iteration ``value``. (Loops in sequence in a
    loop body share one loop, a phase loop picking which runs: ``at`` the phase, ``below`` the
    trips of a loop shorter than the longest.) ``mod``: the loop at ``depth`` is at an
    iteration ``i`` with ``i % m`` in ``residues``, ``value = (m, residues)`` (``if j % 2 == 0``
    around stream operations)."""
    kind: str
    depth: int
    value: object = None

    def span(self, d, trip):
        """The iterations ``(lo, hi)`` of the loop at depth ``d`` (``trip`` iterations) that
        may run (for ``mod``, the first and last of them)."""
        if self.kind in ("first", "last") and d >= self.depth:
            i = 0 if self.kind == "first" else trip - 1
            return i, i
        if d != self.depth or self.kind in ("first", "last"):
            return 0, trip - 1
        if self.kind in SETS:
            runs = allowed((self,), d, trip)
            return (runs[0], runs[-1]) if runs else (1, 0)
        return (self.value, self.value) if self.kind == "at" else (0, self.value - 1)

    def runs(self, d, trip):
        """The iterations of the loop at depth ``d`` that may run, as ``(first, last)`` runs
        of consecutive ones."""
        if self.kind not in SETS or d != self.depth:
            return [self.span(d, trip)]
        out = []
        for i in allowed((self,), d, trip):
            if out and i == out[-1][1] + 1:
                out[-1] = (out[-1][0], i)
            else:
                out.append((i, i))
        return out

    def allows(self, d, i, trip):
        """Whether iteration ``i`` of the loop at depth ``d`` (``trip`` iterations) may run."""
        if self.kind == "mod":
            return d != self.depth or i % self.value[0] in self.value[1]
        if self.kind == "in":
            return d != self.depth or i in self.value
        lo, hi = self.span(d, trip)
        return lo <= i <= hi


def allowed(pred, d, trip):
    """The iterations of the loop at depth ``d`` (``trip`` iterations) that all of ``pred``
    allow."""
    return [i for i in range(trip) if all(p.allows(d, i, trip) for p in pred)]


def pred_holds(pred, idx, trips):
    """Whether loop indices ``idx`` of a nest with ``trips`` satisfy the predicates ``pred``."""
    return all(p.allows(d, idx[d], trips[d]) for p in pred for d in range(len(trips)))


def span_of(pred, d, trip):
    """The iterations ``(lo, hi)`` of the loop at depth ``d`` (``trip`` iterations) on which
    all of ``pred`` may hold (``lo > hi``: none)."""
    spans = [p.span(d, trip) for p in pred] + [(0, trip - 1)]
    return max(lo for lo, _ in spans), min(hi for _, hi in spans)


def coexist(a, b, trips):
    """Whether statements with predicates ``a`` and ``b`` run on some common iteration."""
    both = a + b
    if any(p.kind in SETS for p in both):
        return all(allowed(both, d, t) for d, t in enumerate(trips))
    return all(lo <= hi for lo, hi in (span_of(both, d, t) for d, t in enumerate(trips)))


def trips_under(pred, trips):
    """``trips`` cut to the iterations that ``below`` (and ``mod``, ``in``: up to their last)
    predicates let run: the trips a statement's loop indices range over."""
    cut = list(trips)
    for p in pred:
        if p.kind == "below":
            cut[p.depth] = min(cut[p.depth], p.value)
        elif p.kind in SETS:
            cut[p.depth] = min(cut[p.depth], max(1, p.span(p.depth, trips[p.depth])[1] + 1))
    return tuple(cut)
