import itertools

import numpy as np
import pytest

from hwgen.dataflow.entries import entry_table
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.search import enumerate_dataflows, simplicity
from hwgen.dataflow.spacetime import SpaceTime
from hwgen.errors import HwgenError

GEMM = parse_expr("C[i,j] += A[i,k] * B[k,j]")
GEMV = parse_expr("y[i] += A[i,j] * x[j]")


@pytest.fixture(scope="module")
def gemm():
    return enumerate_dataflows(GEMM)


def unimodular_count(n):
    m = np.array(list(itertools.product((-1, 0, 1), repeat=n * n))).reshape(-1, n, n)
    return int((np.abs(np.rint(np.linalg.det(m))) == 1).sum())


def test_gemm_counts(gemm):
    assert gemm.space == 2 and gemm.candidates == 3 ** 9
    assert gemm.unimodular == unimodular_count(3)
    assert sum(d.count for d in gemm.dataflows) == gemm.unimodular
    assert len({d.names for d in gemm.dataflows}) == len(gemm.dataflows)


@pytest.mark.parametrize("text", ["x=j, y=i, t1=i+j+k", "x=j, y=k, t1=i+j+k", "x=i, y=k, t1=i+j+k",
                                  "x=j, y=i, t1=k", "x=j, y=k, t1=i", "x=i, y=k, t1=j"])
def test_gemm_finds_the_classic_dataflows(gemm, text):
    st = SpaceTime.parse(text, GEMM)
    names = tuple(r.name for r in entry_table(GEMM, st).values())
    assert names in {d.names for d in gemm.dataflows}


def test_canonical_map_is_simplest_and_reproduces_its_tuple(gemm):
    for d in gemm.dataflows:
        assert tuple(r.name for r in entry_table(GEMM, d.spacetime).values()) == d.names
    # among all maps giving the multicast tuple, the canonical one is the simplest
    d, = gemm.find(A="X-multicast", B="Y-multicast", C="stationary")
    assert str(d.spacetime) == "x=j, y=i, t1=k"
    assert d.count == 8      # 2 signs of x, y and t1 each
    for flat in itertools.product((-1, 0, 1), repeat=9):
        m = [flat[0:3], flat[3:6], flat[6:9]]
        if abs(round(np.linalg.det(np.array(m)))) == 1 and simplicity(m) < simplicity(
                d.spacetime.matrix):
            st = SpaceTime(m, GEMM)
            assert tuple(r.name for r in entry_table(GEMM, st).values()) != d.names


def test_mixed_dataflow_follows_from_the_null_space(gemm):
    d = gemm.find(A="X-systolic", B="Y-multicast")[0]
    st = d.spacetime
    T = np.array(st.matrix)
    Tinv = np.rint(np.linalg.inv(T)).astype(int)
    for t, direction in (("A", (1, 0, 1)), ("B", (0, 1, 0))):
        M = np.array(GEMM.access(t).matrix) @ Tinv        # access in space-time coordinates
        v, = d.table[t].vectors
        assert not (M @ np.array(v)).any()              # element constant along v
        assert np.linalg.matrix_rank(M) == 2            # and only along v (null space is a line)
        assert tuple(map(abs, v[:2])) == direction[:2] and v[2] == direction[2]
    assert d.table["C"].name in {"stationary", "X-systolic", "Y-systolic", "diagonal-systolic",
                                 "X-multicast", "Y-multicast", "diagonal-multicast"}


def test_gemv_on_a_1d_array():
    r = enumerate_dataflows(GEMV)
    assert r.space == 1 and r.candidates == 81 and r.unimodular == unimodular_count(2)
    assert all(d.table["A"].name == "unicast" for d in r.dataflows)
    pairs = {(d.table["y"].name, d.table["x"].name) for d in r.dataflows}
    assert ("stationary", "X-systolic") in pairs and ("X-systolic", "stationary") in pairs
    assert ("stationary", "X-multicast") in pairs and ("X-multicast", "stationary") in pairs
    assert all(d.supported for d in r.dataflows)


def test_too_many_loops():
    conv = parse_expr("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]")
    with pytest.raises(HwgenError, match="at most 3 loops"):
        enumerate_dataflows(conv)
