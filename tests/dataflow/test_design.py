"""Design points: the realisable family, entries from first principles vs as built, reasons."""
import pytest

from hwgen import HwgenError
from hwgen.dataflow.design import Design
from hwgen.dataflow.expr import parse_expr

GEMM = parse_expr("C[i,j] += A[i,k] * B[k,j]")
GEMV = parse_expr("y[i] += A[i,j] * x[j]")
CONV = parse_expr("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]")


def design(expr, sizes, array, space, inner, skew):
    return Design(expr, expr.check_sizes(sizes), array, space, inner, skew)


def names(d, which="entries"):
    return {t: e.name for t, e in getattr(d, which).items()}


@pytest.mark.parametrize("space,inner,skew,want", [
    (("j", "i"), "k", (1, 1), {"C": "stationary", "A": "X-systolic", "B": "Y-systolic"}),
    (("j", "i"), "k", (0, 0), {"C": "stationary", "A": "X-multicast", "B": "Y-multicast"}),
    (("j", "i"), "k", (1, 0), {"C": "stationary", "A": "X-systolic", "B": "Y-multicast"}),
    (("j", "k"), "i", (1, 1), {"C": "Y-systolic", "A": "X-systolic", "B": "stationary"}),
    (("i", "k"), "j", (1, 1), {"C": "Y-systolic", "A": "stationary", "B": "X-systolic"}),
])
def test_gemm_entries_from_the_null_space_equal_what_is_built(space, inner, skew, want):
    d = design(GEMM, "i=8 j=8 k=4", (4, 4), space, inner, skew)
    assert names(d) == want == names(d, "built")
    assert d.unrealisable is None and not d.missed


def test_the_tiled_nest_and_map():
    d = design(GEMM, "i=8 j=8 k=32", (4, 4), ("j", "i"), "k", (1, 1))
    assert [(p.name, p.trip) for p in d.nest] == [("i.t", 2), ("j.t", 2), ("k", 32)]
    assert d.spacetime_text() == "x=j, y=i, t1=i+j+k" and d.iterations == 128
    _, st = d.tiled
    assert st.rows[:3] == ("x", "y", "t1")


@pytest.mark.parametrize("sizes,space,inner,skew,words", [
    ("i=8 j=8 k=8", ("j", "k"), "i", (1, 1), "needs an accumulator buffer"),
    ("i=8 j=8 k=4", ("j", "k"), "i", (1, 0), "needs an adder tree"),
    ("i=8 j=8 k=8", ("k", "i"), "j", (1, 1), "needs an accumulator buffer"),
])
def test_unrealisable_points_say_why(sizes, space, inner, skew, words):
    assert words in design(GEMM, sizes, (4, 4), space, inner, skew).unrealisable


def test_output_reduced_along_both_axes_is_unrealisable():
    d = design(CONV, "k=4 p=4 q=4 c=2 r=3 s=3", (2, 3), ("c", "r"), "s", (1, 1))
    assert "both axes" in d.unrealisable


def test_missed_reuse_is_reported_not_hidden():
    # GEMV on a 2-D array: t1 runs j's tiles, so A at PE y+1 one step earlier is A at PE y.
    d = design(GEMV, "i=8 j=8", (4, 4), ("i", "j"), "j", (1, 1))
    assert d.unrealisable is None
    assert d.built["A"].name == "unicast" and d.missed["A"].name == "Y-systolic"


def test_sliding_window_reuse_of_conv():
    d = design(CONV, "k=4 p=4 q=4 c=2 r=3 s=3", (3, 4), ("r", "p"), "c", (1, 0))
    assert "I" in d.missed and d.built["W"].name == "Y-multicast"


@pytest.mark.parametrize("args,words", [
    (((4, 4), ("j", "z"), "k", (1, 1)), "'z' is not a loop"),
    (((4, 4), ("j", "j"), "k", (1, 1)), "its own loop"),
    (((4, 1), ("j", "i"), "k", (1, 1)), "at least 2"),
    (((4, 4), ("j", "i"), "k", (1,)), "one skew per array axis"),
    (((4, 4, 4), ("j", "i", "k"), "k", (1, 1, 1)), "1 or 2 axes"),
    (((8, 8), ("j", "i"), "j", (1, 1)), "no time part"),
])
def test_bad_points_are_clear_errors(args, words):
    with pytest.raises(HwgenError, match=words):
        design(GEMM, "i=8 j=8 k=4", *args)
