"""Exact linear algebra on small integer matrices.

Space-time maps and access matrices are tiny (a few rows and columns) and every answer must be
exact: a unimodular map has an integer inverse, and a reuse direction such as ``(1, 0 | 1)`` must
not come back as ``(0.99999, 0, 1)``. So everything here works on tuples of ints and
``fractions.Fraction`` -- no floats, no numpy.

Matrices are sequences of rows; results are tuples of tuples.
"""
from fractions import Fraction
from math import gcd

__all__ = ["det", "matmul", "rref", "rank", "inverse", "null_space", "primitive", "span_key"]


def det(matrix):
    """Determinant of a square integer matrix, computed fraction-free (Bareiss).

    Returns
    -------
    int
    """
    a = [list(row) for row in matrix]
    n = len(a)
    if any(len(row) != n for row in a):
        raise ValueError("det needs a square matrix")
    sign, prev = 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if a[r][k] != 0), None)
            if swap is None:
                return 0
            a[k], a[swap] = a[swap], a[k]
            sign = -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) // prev
        prev = a[k][k]
    return sign * a[n - 1][n - 1] if n else 1


def matmul(a, b):
    """Product of two matrices given as sequences of rows."""
    cols = list(zip(*b))
    return tuple(tuple(sum(x * y for x, y in zip(row, col)) for col in cols) for row in a)


def _div(x, d):
    """``x / d`` exactly; stays an int when the division is exact (fast path, same value)."""
    if type(x) is int and type(d) is int and x % d == 0:
        return x // d
    return Fraction(x) / d


def rref(matrix):
    """Reduced row echelon form over the rationals.

    Entries stay Python ints while every division is exact and become ``Fraction`` otherwise;
    both compare and hash by value.

    Returns
    -------
    rows : tuple of tuple of int or Fraction
        The nonzero rows, each with a leading 1 in its pivot column.
    pivots : tuple of int
        The pivot column of each row.
    """
    a = [list(row) for row in matrix]
    ncols = len(a[0]) if a else 0
    pivots, r = [], 0
    for c in range(ncols):
        p = next((i for i in range(r, len(a)) if a[i][c] != 0), None)
        if p is None:
            continue
        a[r], a[p] = a[p], a[r]
        lead = a[r][c]
        a[r] = [_div(x, lead) for x in a[r]]
        for i in range(len(a)):
            if i != r and a[i][c] != 0:
                f = a[i][c]
                a[i] = [x - f * y for x, y in zip(a[i], a[r])]
        pivots.append(c)
        r += 1
    return tuple(tuple(row) for row in a[:r]), tuple(pivots)


def rank(matrix):
    """Rank over the rationals."""
    return len(rref(matrix)[1])


def inverse(matrix):
    """Inverse of a square matrix by Gauss-Jordan elimination over the rationals.

    Returns
    -------
    tuple of tuple of int or Fraction

    Raises
    ------
    ValueError
        If the matrix is singular.
    """
    n = len(matrix)
    aug = [list(row) + [int(i == j) for j in range(n)] for i, row in enumerate(matrix)]
    rows, pivots = rref(aug)
    if pivots[:n] != tuple(range(n)):
        raise ValueError("matrix is singular")
    return tuple(tuple(row[n:]) for row in rows)


def primitive(vector):
    """Scale a rational vector to the integer vector with coprime entries, same direction."""
    fr = [Fraction(x) for x in vector]
    den = 1
    for x in fr:
        den = den * x.denominator // gcd(den, x.denominator)
    ints = [int(x * den) for x in fr]
    g = 0
    for x in ints:
        g = gcd(g, x)
    return tuple(x // g for x in ints) if g else tuple(ints)


def null_space(matrix, ncols=None):
    """Integer basis of the rational null space ``{v : matrix @ v = 0}``.

    The basis is canonical: the reduced row echelon form of the null space, each row scaled to
    coprime integers (pivot positive), so equal subspaces give equal bases.

    Parameters
    ----------
    matrix : sequence of rows
    ncols : int, optional
        Number of columns; needed only when ``matrix`` has no rows.

    Returns
    -------
    tuple of tuple of int
        One vector per dimension of the null space; empty when it is ``{0}``.
    """
    if ncols is None:
        ncols = len(matrix[0])
    rows, pivots = rref(matrix) if len(matrix) else ((), ())
    free = [c for c in range(ncols) if c not in pivots]
    basis = []
    for f in free:
        v = [Fraction(0)] * ncols
        v[f] = Fraction(1)
        for row, p in zip(rows, pivots):
            v[p] = -row[f]
        basis.append(v)
    return span_key(basis)


def span_key(vectors):
    """Canonical integer basis of the span of ``vectors`` (hashable; equal spans, equal keys)."""
    if not vectors:
        return ()
    rows, _ = rref(vectors)
    return tuple(primitive(row) for row in rows)
