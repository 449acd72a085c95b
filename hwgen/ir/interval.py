"""Interval arithmetic on integer ranges ``(lo, hi)``, with ``None`` for unknown: the bounds of
tensor indices (``ir.layout``) and of values against their types (``check.widths``)."""


def union(a, b):
    """The smallest range holding both ``a`` and ``b``."""
    return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))


def negate(r):
    """The range of ``-x`` for ``x`` in ``r``."""
    return None if r is None else (-r[1], -r[0])


def arith(op, a, b):
    """The range of ``x op y`` for ``x`` in ``a``, ``y`` in ``b`` and ``op`` one of ``+ - *``,
    or ``// %`` by a positive constant; None when either is unknown or for another operator."""
    if a is None or b is None:
        return None
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "*":
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    if op in ("//", "%") and b[0] == b[1] > 0:
        if op == "//":
            return a[0] // b[0], a[1] // b[0]
        return (a[0] % b[0], a[1] % b[0]) if a[1] - a[0] < b[0] and \
            a[0] % b[0] <= a[1] % b[0] else (0, b[0] - 1)
    return None
