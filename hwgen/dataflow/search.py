"""Brute-force enumeration of space-time maps with entries in {-1, 0, 1}.

For a small loop nest (up to 3 loops) every ``n x n`` matrix with entries in ``{-1, 0, 1}`` is
tried; the unimodular ones are classified (one access entry per tensor) and grouped by the tuple of
entry names. Each distinct tuple is one dataflow, represented by its simplest map. This is the
design-space skeleton that a cost model ranks; it is exhaustive, so it also shows which entry
combinations a tensor expression can have at all.
"""
import itertools
import time
from dataclasses import dataclass

from ..errors import HwgenError
from . import linalg
from .entries import classify, match, null_space
from .spacetime import SpaceTime

__all__ = ["Dataflow", "Enumeration", "enumerate_dataflows", "simplicity"]

MAX_LOOPS = 3


@dataclass(frozen=True)
class Dataflow:
    """One distinct entry tuple.

    Attributes
    ----------
    entries : tuple of AccessEntry
        One per tensor, in the expression's order (output first), as classified under
        ``spacetime``.
    spacetime : SpaceTime
        The canonical map producing this tuple (see ``simplicity``).
    count : int
        How many enumerated maps produce this tuple.
    """
    entries: tuple
    spacetime: SpaceTime
    count: int

    @property
    def names(self):
        """Entry names, one per tensor."""
        return tuple(e.name for e in self.entries)

    @property
    def table(self):
        """``{tensor: AccessEntry}``."""
        return {e.tensor: e for e in self.entries}

    @property
    def supported(self):
        """Whether hardware can feed every tensor (entries or unicast, nothing unsupported)."""
        return all(e.supported for e in self.entries)


@dataclass(frozen=True)
class Enumeration:
    """Result of ``enumerate_dataflows``.

    Attributes
    ----------
    expr : Expr
    space : int
        Array dimensions (1 or 2).
    candidates : int
        Matrices tried (``len(values) ** (n * n)``).
    unimodular : int
        Matrices with ``|det| = 1``.
    dataflows : tuple of Dataflow
        Distinct entry tuples, most frequent first (ties by names).
    seconds : float
        Wall time of the enumeration.
    """
    expr: object
    space: int
    candidates: int
    unimodular: int
    dataflows: tuple
    seconds: float

    def find(self, **names):
        """Dataflows whose entry for each given tensor has the given name, e.g.
        ``find(A="X-systolic", C="stationary")``."""
        for t in names:
            self.expr.access(t)         # raises HwgenError on a name that is not a tensor
        return tuple(d for d in self.dataflows
                     if all(d.table[t].name == n for t, n in names.items()))


def simplicity(matrix):
    """Sort key of a map: fewest nonzeros, then fewest negative entries, then lexicographic
    with ``1 < 0 < -1`` (so ``x=i`` comes before ``x=j`` and positive coefficients first)."""
    flat = [v for row in matrix for v in row]
    return (sum(v != 0 for v in flat), sum(v < 0 for v in flat), tuple(-v for v in flat))


def enumerate_dataflows(expr, space=None, values=(-1, 0, 1)):
    """Enumerate all unimodular maps with entries in ``values`` and group them by entry tuple.

    Parameters
    ----------
    expr : Expr
        At most 3 loops (the search is ``len(values) ** (n * n)`` matrices).
    space : int, optional
        Array dimensions; default 2 for 3 or more loops, 1 for 2 loops.
    values : sequence of int

    Returns
    -------
    Enumeration
    """
    n = len(expr.loops)
    if n > MAX_LOOPS:
        raise HwgenError(f"brute-force enumeration takes at most {MAX_LOOPS} loops "
                         f"({expr.text} has {n}); give a space-time map instead")
    if space is None:
        space = 2 if n >= 3 else 1
    if n < space + 1:
        raise HwgenError(f"{n} loops cannot fill a {space}-D array and a time row")
    start = time.perf_counter()
    cols = space + 1
    cache = {}
    groups = {}
    candidates = unimodular = 0
    for flat in itertools.product(values, repeat=n * n):
        candidates += 1
        matrix = tuple(flat[r * n:(r + 1) * n] for r in range(n))
        if abs(linalg.det(matrix)) != 1:
            continue
        unimodular += 1
        inv = tuple(tuple(int(v) for v in row[:cols]) for row in linalg.inverse(matrix))
        names = []
        for a in expr.accesses:
            key = linalg.matmul(a.matrix, inv) if a.matrix else ()
            if key not in cache:
                cache[key] = match(null_space(key, cols), space).name
            names.append(cache[key])
        names = tuple(names)
        best, count = groups.get(names, (matrix, 0))
        groups[names] = (min(best, matrix, key=simplicity), count + 1)
    dataflows = []
    for names, (matrix, count) in groups.items():
        st = SpaceTime(matrix, expr.loops, space)
        dataflows.append(Dataflow(tuple(classify(a, st) for a in expr.accesses), st, count))
    dataflows.sort(key=lambda d: (-d.count, d.names))
    return Enumeration(expr, space, candidates, unimodular, tuple(dataflows),
                       time.perf_counter() - start)
