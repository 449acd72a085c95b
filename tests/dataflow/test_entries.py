import itertools

import numpy as np
import pytest

from hwgen.dataflow.entries import (DIRECTIONS, ENTRIES, classify, entries, entry_table, match,
                                    null_space, reuse_space)
from hwgen.dataflow.expr import Access, parse_expr
from hwgen.dataflow.linalg import span_key
from hwgen.dataflow.spacetime import SpaceTime

GEMM = parse_expr("C[i,j] += A[i,k] * B[k,j]")
# GEMM where the second input has one index: its reuse space is a plane.
VEC = parse_expr("C[i,j] += A[i,k] * v[k]")
SCALAR = parse_expr("C[i,j] += A[i,k] * s[0]")


def brute_reuse(access, st, box=2):
    """Space-time vectors in a box (zero beyond t1) along which the access reads the same
    element: walk from an iteration n to T⁻¹(T n + v) and compare indices."""
    n = len(st.loops)
    T = np.array(st.matrix)
    Tinv = np.rint(np.linalg.inv(T)).astype(int)
    assert (T @ Tinv == np.eye(n, dtype=int)).all()
    point = np.arange(3, 3 + n)
    found = set()
    for v in itertools.product(range(-box, box + 1), repeat=st.space + 1):
        moved = Tinv @ (T @ point + np.array(v + (0,) * (n - len(v))))
        if access.index(tuple(moved)) == access.index(tuple(point)):
            found.add(v)
    return found


def in_span(vectors, dim, box=2):
    base = np.array(vectors, dtype=float).reshape(-1, dim)
    r = np.linalg.matrix_rank(base) if len(vectors) else 0
    return {v for v in itertools.product(range(-box, box + 1), repeat=dim)
            if np.linalg.matrix_rank(np.vstack([base, v])) == r}


def check_first_principles(result, access, st):
    """The reported vectors span exactly the brute-force reuse space, and each reported vector
    is its entry's direction with spatial signs flipped at most."""
    dim = st.space + 1
    assert brute_reuse(access, st) == in_span(result.vectors or result.basis, dim)
    assert result.rank == np.linalg.matrix_rank(np.array(result.basis).reshape(-1, dim))
    named = {e.name: e for e in entries(st.space)}
    if result.is_entry:
        for d, v in zip(named[result.name].directions, result.vectors):
            assert v[-1] == d.vector[-1]
            assert tuple(map(abs, v[:-1])) == d.vector[:-1]


def complement_access(vectors, dim):
    """A synthetic access whose rows are all small integer vectors orthogonal to ``vectors``:
    its null space is exactly their span."""
    rows = [w for w in itertools.product((-1, 0, 1), repeat=dim)
            if all(np.dot(w, v) == 0 for v in vectors)]
    return Access("S", tuple(rows), (0,) * len(rows), "S[...]")


def test_fourteen_entries_and_seven_directions_are_distinct_up_to_spatial_signs():
    assert len(DIRECTIONS) == 7 and len(ENTRIES) == 14
    spans = []
    for e in ENTRIES:
        m = np.array(e.vectors)
        assert np.linalg.matrix_rank(m) == len(e.vectors)
        spans.append(m)
    for a, b in itertools.combinations(spans, 2):
        for flip in itertools.product((1, -1), repeat=2):
            fb = b * np.array(flip + (1,))
            same = (len(a) == len(b) and
                    np.linalg.matrix_rank(np.vstack([a, fb])) == len(a))
            assert not same


def test_one_dimensional_entries():
    names = [e.name for e in entries(1)]
    assert names == ["X-systolic", "stationary", "X-multicast", "X-multicast + stationary"]
    assert [e.vectors for e in entries(1)] == [((1, 1),), ((0, 1),), ((1, 0),),
                                               ((1, 0), (0, 1))]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_each_entry_from_a_synthetic_access(entry):
    loops = ("i", "j", "k")
    access = complement_access(entry.vectors, 3)
    st = SpaceTime(((1, 0, 0), (0, 1, 0), (0, 0, 1)), loops)
    r = classify(access, st)
    assert r.name == entry.name
    assert r.vectors == entry.vectors
    check_first_principles(r, access, st)
    # the same access seen through another map: access A T under T has space-time access A
    T = ((1, 1, 0), (0, 1, 0), (1, 1, 1))
    moved = Access("S", tuple(tuple(int(x) for x in row) for row in
                              np.array(access.matrix) @ np.array(T)), access.offset, "S")
    r2 = classify(moved, SpaceTime(T, loops))
    assert (r2.name, r2.vectors) == (r.name, r.vectors)


@pytest.mark.parametrize("entry", entries(1), ids=lambda e: e.name)
def test_each_1d_entry_from_a_synthetic_access(entry):
    access = complement_access(entry.vectors, 2)
    st = SpaceTime(((1, 0), (0, 1)), ("i", "j"), space=1)
    r = classify(access, st)
    assert r.name == entry.name and r.vectors == entry.vectors
    check_first_principles(r, access, st)


@pytest.mark.parametrize("expr, text, tensor, name", [
    (VEC, "x=i, y=j, t1=k", "v", "XY-multicast"),
    (VEC, "x=i, y=j, t1=i+k", "v", "X-systolic + Y-multicast"),
    (VEC, "x=j, y=i, t1=i+k", "v", "Y-systolic + X-multicast"),
    (VEC, "x=i, y=k, t1=j", "v", "X-multicast + stationary"),
    (VEC, "x=k, y=i, t1=j", "v", "Y-multicast + stationary"),
    (VEC, "x=i+k, y=i, t1=j", "v", "diagonal-multicast + stationary"),
    (SCALAR, "x=i, y=j, t1=k", "s", "XY-multicast + stationary"),
    (GEMM, "x=j, y=i, t1=i+j+k", "A", "X-systolic"),
    (GEMM, "x=j, y=i, t1=i+j+k", "B", "Y-systolic"),
    (GEMM, "x=j+k, y=i+k, t1=i+j+k", "C", "diagonal-systolic"),
    (GEMM, "x=j, y=i, t1=i+j+k", "C", "stationary"),
    (GEMM, "x=j, y=i, t1=k", "A", "X-multicast"),
    (GEMM, "x=j, y=i, t1=k", "B", "Y-multicast"),
    (GEMM, "x=i+j, y=j, t1=k", "A", "diagonal-multicast"),
])
def test_each_entry_from_a_real_expression(expr, text, tensor, name):
    st = SpaceTime.parse(text, expr)
    r = entry_table(expr, st)[tensor]
    assert r.name == name
    check_first_principles(r, expr.access(tensor), st)


@pytest.mark.parametrize("text, table", [
    ("x=j, y=i, t1=i+j+k", {"A": "X-systolic", "B": "Y-systolic", "C": "stationary"}),  # OS
    ("x=j, y=k, t1=i+j+k", {"A": "X-systolic", "B": "stationary", "C": "Y-systolic"}),  # WS
    ("x=i, y=k, t1=i+j+k", {"A": "stationary", "B": "X-systolic", "C": "Y-systolic"}),  # IS
    ("x=j, y=i, t1=k", {"A": "X-multicast", "B": "Y-multicast", "C": "stationary"}),
    ("x=j, y=k, t1=i", {"A": "X-multicast", "B": "stationary", "C": "Y-multicast"}),
    ("x=i, y=k, t1=j", {"A": "stationary", "B": "X-multicast", "C": "Y-multicast"}),
])
def test_gemm_table(text, table):
    st = SpaceTime.parse(text, GEMM)
    got = entry_table(GEMM, st)
    assert {t: r.name for t, r in got.items()} == table
    for t, r in got.items():
        check_first_principles(r, GEMM.access(t), st)


def test_signs_are_recorded():
    st = SpaceTime.parse("x=-j, y=i, t1=i+j+k", GEMM)
    a = classify(GEMM.access("A"), st)
    assert a.name == "X-systolic" and a.vectors == ((-1, 0, 1),)      # flows towards -x
    st = SpaceTime.parse("x=j-k, y=i+k, t1=i+j+k", GEMM)
    c = classify(GEMM.access("C"), st)
    assert c.name == "diagonal-systolic" and c.vectors == ((-1, 1, 1),)  # anti-diagonal
    st = SpaceTime.parse("x=i+j, y=-j, t1=k", GEMM)
    a = classify(GEMM.access("A"), st)
    assert a.name == "diagonal-multicast" and a.vectors == ((1, -1, 0),)
    for r, t in ((a, "A"),):
        check_first_principles(r, GEMM.access(t), st)
    st = SpaceTime.parse("x=i, y=j, t1=-i+k", VEC)
    v = classify(VEC.access("v"), st)
    assert v.name == "X-systolic + Y-multicast" and v.vectors == ((-1, 0, 1), (0, 1, 0))
    check_first_principles(v, VEC.access("v"), st)


@pytest.mark.parametrize("expr, text, tensor, basis", [
    (GEMM, "x=2*j+k, y=i, t1=i+j+k", "A", ((2, 0, 1),)),
    (GEMM, "x=j, y=i, t1=i+2*j+k", "A", ((1, 0, 2),)),
    (VEC, "x=j, y=i, t1=i+j+k", "v", ((1, 0, 1), (0, 1, 1))),
])
def test_unsupported_reuse(expr, text, tensor, basis):
    st = SpaceTime.parse(text, expr)
    r = classify(expr.access(tensor), st)
    assert r.name == "unsupported" and not r.supported and not r.is_entry
    assert r.vectors == () and r.basis == span_key(basis) and r.rank == len(basis)
    check_first_principles(r, expr.access(tensor), st)


def test_unicast():
    gemv = parse_expr("y[i] += A[i,j] * x[j]")
    st = SpaceTime.parse("x=i, t1=i+j", gemv)
    table = entry_table(gemv, st)
    assert table["A"].name == "unicast" and table["A"].rank == 0 and table["A"].supported
    assert (table["y"].name, table["y"].vectors) == ("stationary", ((0, 1),))
    assert (table["x"].name, table["x"].vectors) == ("X-systolic", ((1, 1),))
    for t, r in table.items():
        check_first_principles(r, gemv.access(t), st)


def test_conv_restricts_to_x_y_t1():
    conv = parse_expr("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]")
    st = SpaceTime.parse("x=k, y=p, t1=q+c+r+s", conv)
    assert reuse_space(conv.access("W"), st) == ((0, 1, 0),)
    table = entry_table(conv, st)
    assert {t: r.name for t, r in table.items()} == {"O": "stationary", "I": "X-multicast",
                                                      "W": "Y-multicast"}
    for t, r in table.items():
        check_first_principles(r, conv.access(t), st)


def test_null_space_is_exact_and_canonical():
    assert null_space(((1, 2, 3), (2, 4, 6))) == null_space(((3, 6, 9),))
    assert null_space(((2, 0, 1),)) == ((1, 0, -2), (0, 1, 0))
    assert null_space((), 2) == ((1, 0), (0, 1))
    assert match(((2, 2, 0),)).name == "diagonal-multicast"
