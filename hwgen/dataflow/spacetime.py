"""Space-time maps: which PE runs a loop iteration, and when.

A space-time map is a square unimodular integer matrix ``T``: loop vector ``n`` -> ``T @ n`` =
``(x, y, t1, t2, ...)`` on a 2-D array, or ``(x, t1, t2, ...)`` on a 1-D array. Unimodular
(``|det T| = 1``) means ``T`` is a bijection of integer points, so every PE and time step gets at
most one iteration and ``T⁻¹`` is an integer matrix. ``t1`` is the time step that reuse is measured
along; ``t2, t3, ...`` are outer time loops (passes), filled in automatically from the loops the
user's rows leave out.
"""
import ast
import itertools
import operator
import re
from dataclasses import dataclass
from functools import cached_property

from ..errors import HwgenError
from . import linalg
from .expr import affine

__all__ = ["SpaceTime", "row_names"]

EXAMPLE = "write it like x=j, y=i, t1=i+j+k"


def row_names(n, space):
    """Names of the rows of an ``n``-loop map on a ``space``-D array: x, [y,] t1, t2, ..."""
    return ("x", "y")[:space] + tuple(f"t{k}" for k in range(1, n - space + 1))


def _integer(v):
    if isinstance(v, bool):
        raise TypeError("bool")
    return operator.index(v)


def format_row(row, loops):
    text = ""
    for c, l in zip(row, loops):
        if c:
            sign = "-" if c < 0 else ("+" if text else "")
            text += sign + ("" if abs(c) == 1 else f"{abs(c)}*") + l
    return text or "0"


@dataclass(frozen=True)
class SpaceTime:
    """A unimodular space-time map.

    Parameters
    ----------
    matrix : sequence of sequence of int
        ``n x n``; row ``r`` gives coordinate ``rows[r]`` as a combination of the loops.
    loops : sequence of str, or an ``Expr``
        The loop names, one per column.
    space : int
        Number of spatial rows (1 or 2): rows are ``x, y, t1, ...`` or ``x, t1, ...``.

    Raises
    ------
    HwgenError
        If the matrix is not square over the loops, has fewer than ``space + 1`` rows (there
        must be a time row), or is not unimodular.
    """
    matrix: tuple
    loops: tuple
    space: int = 2

    def __post_init__(self):
        loops = tuple(getattr(self.loops, "loops", self.loops))
        try:
            matrix = tuple(tuple(_integer(v) for v in row) for row in self.matrix)
        except TypeError:
            raise HwgenError(f"a space-time map has integer entries only, got {self.matrix!r}"
                             ) from None
        object.__setattr__(self, "loops", loops)
        object.__setattr__(self, "matrix", matrix)
        n = len(loops)
        if self.space not in (1, 2):
            raise HwgenError(f"a PE array is 1-D or 2-D, not {self.space}-D")
        if len(matrix) != n or any(len(row) != n for row in matrix):
            raise HwgenError(f"a space-time map over loops {', '.join(loops)} must be "
                             f"{n}x{n}, got {len(matrix)} rows of lengths "
                             f"{[len(r) for r in matrix]}")
        if n < self.space + 1:
            raise HwgenError(f"{n} loop{'s' if n > 1 else ''} cannot fill a {self.space}-D "
                             "array and a time row; "
                             + ("use a 1-D array (rows x, t1)" if n == 2 else
                                "a space-time map needs at least two loops (x and t1)"))
        d = linalg.det(matrix)
        if abs(d) != 1:
            raise HwgenError(f"space-time map {self} is not unimodular (det = {d}): "
                             + ("its rows are not linearly independent" if d == 0 else
                                "it skips integer points, so its inverse is not integer")
                             + f"; {EXAMPLE}")

    @classmethod
    def parse(cls, text, loops):
        """Build a map from rows like ``"x=j, y=i, t1=i+j+k"``.

        A ``y`` row makes a 2-D array, otherwise it is 1-D. Rows must start at ``x`` and leave
        no gap (``x, y, t1, t2``...). Rows not given are filled with single loops, preferring
        loops no given row mentions, in loop order, so that the result is unimodular.
        """
        loops = tuple(getattr(loops, "loops", loops))
        try:
            call = ast.parse(f"f({text})", mode="eval").body
        except SyntaxError as e:
            raise HwgenError(f"cannot parse space-time map '{text}' ({e.msg}); {EXAMPLE}") from None
        if call.args or not call.keywords or any(k.arg is None for k in call.keywords):
            raise HwgenError(f"space-time map '{text}' must be rows name=expression; {EXAMPLE}")
        given = {}
        for k in call.keywords:
            if not re.fullmatch(r"x|y|t[1-9]\d*", k.arg):
                raise HwgenError(f"'{k.arg}' is not a space-time row; rows are x, y (space) and "
                                 f"t1, t2, ... (time); {EXAMPLE}")
            coeffs, const = affine(k.value, f"row {k.arg}")
            unknown = [n for n in coeffs if n not in loops]
            if unknown:
                raise HwgenError(f"row {k.arg} uses {', '.join(unknown)}, not a loop of the "
                                 f"expression (loops: {', '.join(loops)})")
            if const:
                raise HwgenError(f"row {k.arg} = {ast.unparse(k.value)} has a constant term; "
                                 "space-time rows are linear in the loops, drop the constant")
            given[k.arg] = tuple(coeffs.get(l, 0) for l in loops)
        space = 2 if "y" in given else 1
        n = len(loops)
        if "x" not in given:
            raise HwgenError(f"space-time map '{text}' has no x row; {EXAMPLE}")
        order = row_names(len(given), space)
        if set(order) != set(given):
            missing = [r for r in order if r not in given]
            raise HwgenError(f"space-time map '{text}' skips row {', '.join(missing)}; give rows "
                             f"in sequence {', '.join(row_names(max(n, space + 1), space))} "
                             "(later time rows may be left out and are filled in)")
        if len(given) > n:
            raise HwgenError(f"space-time map '{text}' has {len(given)} rows but {n} loops give "
                             f"only {', '.join(row_names(n, space))}")
        rows = [given[r] for r in order]
        if linalg.rank(rows) < len(rows):
            raise HwgenError(f"rows {', '.join(order)} of '{text}' are not linearly independent, "
                             "so two loop iterations would share a PE and time step; "
                             + EXAMPLE)
        return cls(_complete(rows, loops, text), loops, space)

    @property
    def n(self):
        return len(self.loops)

    @property
    def rows(self):
        """Row names: ``x, y, t1, t2, ...`` (2-D) or ``x, t1, ...`` (1-D)."""
        return row_names(self.n, self.space)

    @cached_property
    def _inverse(self):
        inv = linalg.inverse(self.matrix)
        assert all(v == int(v) for row in inv for v in row), "unimodular, so integer"
        return tuple(tuple(int(v) for v in row) for row in inv)

    def inverse(self):
        """``T⁻¹`` as an exact integer matrix: loop vector ``n = T⁻¹ @ (x, y, t1, ...)``."""
        return self._inverse

    def apply(self, point):
        """Space-time coordinates ``T @ point`` of loop iteration ``point`` (sequence or dict)."""
        if isinstance(point, dict):
            point = [point[l] for l in self.loops]
        return tuple(sum(a * v for a, v in zip(row, point)) for row in self.matrix)

    def __str__(self):
        return ", ".join(f"{r}={format_row(row, self.loops)}"
                         for r, row in zip(self.rows, self.matrix))


def _complete(rows, loops, text):
    n = len(loops)
    if len(rows) == n:
        return rows
    used = {l for row in rows for l, c in enumerate(row) if c}
    candidates = [l for l in range(n) if l not in used] + [l for l in range(n) if l in used]
    for pick in itertools.combinations(candidates, n - len(rows)):
        full = rows + [tuple(int(c == l) for c in range(n)) for l in pick]
        if abs(linalg.det(full)) == 1:
            return full
    raise HwgenError(f"rows of '{text}' cannot be completed to a unimodular map with single "
                     f"loops; give all {n} rows so that |det| = 1")
