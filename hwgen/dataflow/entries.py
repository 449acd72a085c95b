"""Access entries: how a tensor's data enters and moves through the PE array (Rubick).

Under space-time map ``T`` an access ``n -> A n + b`` reads, at space-time point ``p``, element
``A T⁻¹ p + b``. The element stays the same along the null space of ``A T⁻¹`` restricted to the
``(x, y, t1)`` coordinates: those are the reuse directions. A direction ``(dx, dy | 1)`` means the
value at PE ``(x, y)`` is needed by PE ``(x+dx, y+dy)`` one step later (systolic, or stationary
when ``dx = dy = 0``); ``(dx, dy | 0)`` means PEs along ``(dx, dy)`` need it in the same step
(multicast). The null space is matched against the 14 entries of a 2-D array (4 of a 1-D array);
signs of the spatial components are free, so ``(-1, 0 | 1)`` is X-systolic flowing towards -x.
"""
import itertools
from dataclasses import dataclass
from functools import lru_cache

from ..errors import HwgenError
from . import linalg
from .linalg import null_space

__all__ = ["Direction", "Entry", "AccessEntry", "DIRECTIONS", "ENTRIES", "entries", "null_space",
           "reuse_space", "match", "classify", "entry_table", "UNICAST", "UNSUPPORTED"]

UNICAST = "unicast"
UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class Direction:
    """A basic reuse direction ``(x, y | t)`` (``(x | t)`` on a 1-D array)."""
    name: str
    vector: tuple


@dataclass(frozen=True)
class Entry:
    """An access entry: a named subspace of reuse directions."""
    name: str
    directions: tuple

    @property
    def vectors(self):
        return tuple(d.vector for d in self.directions)

    @property
    def rank(self):
        return len(self.directions)


def _directions():
    table = [("X-systolic", (1, 0, 1)), ("Y-systolic", (0, 1, 1)),
             ("diagonal-systolic", (1, 1, 1)), ("stationary", (0, 0, 1)),
             ("X-multicast", (1, 0, 0)), ("Y-multicast", (0, 1, 0)),
             ("diagonal-multicast", (1, 1, 0))]
    return tuple(Direction(n, v) for n, v in table)


DIRECTIONS = _directions()
"""The seven reuse directions of a 2-D array."""

_D = {d.name: d for d in DIRECTIONS}


def _entries():
    singles = [(d.name, (d.name,)) for d in DIRECTIONS]
    planes = [("XY-multicast", ("X-multicast", "Y-multicast")),
              ("X-systolic + Y-multicast", ("X-systolic", "Y-multicast")),
              ("Y-systolic + X-multicast", ("Y-systolic", "X-multicast")),
              ("X-multicast + stationary", ("X-multicast", "stationary")),
              ("Y-multicast + stationary", ("Y-multicast", "stationary")),
              ("diagonal-multicast + stationary", ("diagonal-multicast", "stationary")),
              ("XY-multicast + stationary", ("X-multicast", "Y-multicast", "stationary"))]
    return tuple(Entry(name, tuple(_D[d] for d in ds)) for name, ds in singles + planes)


ENTRIES = _entries()
"""The 14 access entries of a 2-D array."""


@lru_cache(maxsize=None)
def entries(space=2):
    """The access entries of a ``space``-D array.

    A 1-D array keeps the 2-D entries whose directions never move along y, with the y component
    dropped: X-systolic, stationary, X-multicast and X-multicast + stationary.
    """
    if space == 2:
        return ENTRIES
    if space != 1:
        raise HwgenError(f"a PE array is 1-D or 2-D, not {space}-D")
    return tuple(Entry(e.name, tuple(Direction(d.name, (d.vector[0], d.vector[2]))
                                     for d in e.directions))
                 for e in ENTRIES if all(d.vector[1] == 0 for d in e.directions))


@dataclass(frozen=True)
class AccessEntry:
    """How one tensor moves under one space-time map.

    Attributes
    ----------
    tensor : str
    name : str
        Entry name (e.g. ``"X-systolic"``), ``"unicast"`` (no reuse) or ``"unsupported"`` (a reuse
        space that is none of the entries, e.g. spanned by ``(2, 0 | 1)``).
    directions : tuple of str
        Names of the entry's directions, in the entry's order; empty if not an entry.
    vectors : tuple of tuple of int
        The entry's direction vectors ``(x, y, t)`` with the signs this map gives them (systolic
        ``t = 1``; multicast first nonzero component positive); empty if not an entry.
    basis : tuple of tuple of int
        Canonical integer basis of the reuse space (the restricted null space).
    rank : int
        Dimension of the reuse space.
    """
    tensor: str
    name: str
    directions: tuple
    vectors: tuple
    basis: tuple
    rank: int

    @property
    def is_entry(self):
        """Whether the reuse space is one of the access entries (not unicast/unsupported)."""
        return self.name not in (UNICAST, UNSUPPORTED)

    @property
    def supported(self):
        """Whether hardware can feed it: an entry, or unicast (each PE loads its own data)."""
        return self.name != UNSUPPORTED

    def __str__(self):
        def fmt(v):
            return f"({', '.join(map(str, v[:-1]))} | {v[-1]})"
        vs = self.vectors if self.is_entry else self.basis
        return f"{self.tensor}: {self.name}" + (f" {' '.join(map(fmt, vs))}" if vs else "")


def _orient(vector):
    """Sign convention of a direction: time positive, else first nonzero component positive."""
    lead = vector[-1] or next((v for v in vector if v), 1)
    return tuple(-v for v in vector) if lead < 0 else tuple(vector)


@lru_cache(maxsize=None)
def _lookup(space):
    """Canonical basis of every sign variant of every entry -> (entry, signed vectors)."""
    table = {}
    for signs in itertools.product((1, -1), repeat=space):
        flip = signs + (1,)
        for e in entries(space):
            signed = tuple(_orient(tuple(f * v for f, v in zip(flip, vec))) for vec in e.vectors)
            table.setdefault(linalg.span_key(signed), (e, signed))
    return table


def match(basis, space=2, tensor=""):
    """Classify a reuse space given by ``basis`` (vectors over ``x, [y,] t1``).

    Returns
    -------
    AccessEntry
    """
    basis = linalg.span_key(basis)
    if not basis:
        return AccessEntry(tensor, UNICAST, (), (), (), 0)
    hit = _lookup(space).get(basis)
    if hit is None:
        return AccessEntry(tensor, UNSUPPORTED, (), (), basis, len(basis))
    entry, signed = hit
    return AccessEntry(tensor, entry.name, tuple(d.name for d in entry.directions), signed,
                       basis, len(basis))


def reuse_space(access, spacetime):
    """Integer basis of the null space of ``A T⁻¹`` restricted to ``(x, [y,] t1)``.

    These are the space-time directions ``v`` (zero beyond ``t1``) along which ``access`` reads
    the same tensor element.
    """
    n = spacetime.n
    if any(len(row) != n for row in access.matrix):
        raise HwgenError(f"access {access.text} has {len(access.matrix[0])} loop columns but the "
                         f"space-time map has {n} loops ({', '.join(spacetime.loops)})")
    cols = spacetime.space + 1
    inv = [row[:cols] for row in spacetime.inverse()]
    return null_space(linalg.matmul(access.matrix, inv) if access.matrix else (), cols)


def classify(access, spacetime):
    """The access entry of ``access`` under ``spacetime``.

    Returns
    -------
    AccessEntry
    """
    return match(reuse_space(access, spacetime), spacetime.space, access.tensor)


def entry_table(expr, spacetime):
    """Access entry of every tensor of ``expr``, in the order written (output first).

    Returns
    -------
    dict of str to AccessEntry
    """
    if tuple(spacetime.loops) != tuple(expr.loops):
        raise HwgenError(f"space-time map is over loops {', '.join(spacetime.loops)} but "
                         f"{expr.text} has loops {', '.join(expr.loops)}")
    return {a.tensor: classify(a, spacetime) for a in expr.accesses}
