"""Interval arithmetic against brute force."""
import itertools

import pytest

from hwgen.ir.interval import arith, negate, union


@pytest.mark.parametrize("op", ["+", "-", "*"])
@pytest.mark.parametrize("a,b", [((-3, 2), (1, 4)), ((-5, -1), (-2, 3)), ((0, 0), (-7, 7))])
def test_arith_is_exact(op, a, b):
    values = [eval(f"x {op} y") for x, y in itertools.product(range(a[0], a[1] + 1),
                                                              range(b[0], b[1] + 1))]
    assert arith(op, a, b) == (min(values), max(values))


def test_unknown_and_other_operators():
    assert arith("+", None, (1, 2)) is None and arith("<<", (1, 2), (1, 1)) is None
    assert negate((-2, 5)) == (-5, 2) and negate(None) is None
    assert union((1, 2), (-1, 0)) == (-1, 2) and union(None, (1, 1)) is None
