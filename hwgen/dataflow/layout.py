"""The data layout half of Rubick's decomposition: ``A·T⁻¹ = L·E``.

``A·T⁻¹`` maps a space-time point ``(x, y, t1, t2, ...)`` to the tensor element it touches.
``E`` keeps only the coordinates along which the element changes: its rows span the
annihilator of the entry's reuse directions (the *entry coordinates*, e.g. ``y`` and ``t1 - x``
for an X-systolic tensor). ``L`` maps entry coordinates to tensor indices: the data layout. Its
spatial columns say which bank holds an element (one bank per distinct spatial entry coordinate)
and its time columns the strides of the address generator that walks the bank; a time column
that also involves ``x`` or ``y`` is a skew, a start offset per PE.
"""
from fractions import Fraction

from ..errors import HwgenError
from . import linalg
from .spacetime import format_row


def decompose(access, spacetime, entry):
    """``(L, E)`` with ``A·T⁻¹ = L·E`` for ``access`` under ``spacetime`` and its ``entry``
    (an ``AccessEntry``; the reuse directions are its basis over ``x, [y,] t1``)."""
    n, cols = spacetime.n, spacetime.space + 1
    m = linalg.matmul(access.matrix, spacetime.inverse())
    reuse = [tuple(v) + (0,) * (n - cols) for v in entry.basis]
    e = linalg.null_space(reuse, n) if reuse else tuple(
        tuple(int(i == j) for j in range(n)) for i in range(n))
    # Solve L·E = M row by row: E has full row rank, so L = M Eᵀ (E Eᵀ)⁻¹.
    et = list(zip(*e))
    gram = linalg.inverse(linalg.matmul(e, et))
    l = linalg.matmul(linalg.matmul(m, et), gram)
    if linalg.matmul(l, e) != tuple(tuple(Fraction(v) for v in row) for row in m) and \
            linalg.matmul(l, e) != m:
        raise HwgenError(f"{access.text}: A·T⁻¹ is not L·E for entry {entry.name}")
    l = tuple(tuple(int(v) if Fraction(v).denominator == 1 else Fraction(v) for v in row)
              for row in l)
    return l, tuple(tuple(row) for row in e)


def describe(access, spacetime, entry):
    """Human-readable lines: the entry coordinates and each tensor index as a function of them."""
    l, e = decompose(access, spacetime, entry)
    coords = [format_row(row, spacetime.rows) for row in e]
    index = [format_row(row, [f"({c})" if len(c) > 2 else c for c in coords]) for row in l]
    return [f"{access.tensor}: {entry.name}; entry coordinates E = ({', '.join(coords)}); "
            f"layout L: {access.tensor}[{', '.join(index)}]"]
