import itertools

import numpy as np
import pytest

from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.spacetime import SpaceTime
from hwgen.errors import HwgenError

GEMM = parse_expr("C[i,j] += A[i,k] * B[k,j]")
CONV = parse_expr("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]")


def test_output_stationary_rows_and_inverse():
    st = SpaceTime.parse("x=j, y=i, t1=i+j+k", GEMM)
    assert st.rows == ("x", "y", "t1") and st.space == 2
    assert st.matrix == ((0, 1, 0), (1, 0, 0), (1, 1, 1))
    inv = np.array(st.inverse())
    assert inv.dtype.kind == "i"
    assert (np.array(st.matrix) @ inv == np.eye(3, dtype=int)).all()
    assert st.apply((2, 3, 4)) == (3, 2, 9)
    assert st.apply({"i": 2, "j": 3, "k": 4}) == (3, 2, 9)
    assert str(st) == "x=j, y=i, t1=i+j+k"
    assert SpaceTime.parse(str(st), GEMM) == st


def test_rows_in_any_order_and_time_filled_in():
    assert SpaceTime.parse("y=i, t1=i+j+k, x=j", GEMM) == SpaceTime.parse("x=j, y=i, t1=i+j+k",
                                                                          GEMM)
    st = SpaceTime.parse("x=j, y=i", GEMM)
    assert str(st) == "x=j, y=i, t1=k"


def test_conv_fills_outer_time_rows_unimodular():
    st = SpaceTime.parse("x=k, y=p, t1=q+c+r+s", CONV)
    assert st.rows == ("x", "y", "t1", "t2", "t3", "t4")
    assert abs(round(np.linalg.det(np.array(st.matrix)))) == 1
    inv = np.array(st.inverse())
    assert (np.array(st.matrix) @ inv == np.eye(6, dtype=int)).all()
    st = SpaceTime.parse("x=k, y=p, t1=c", CONV)
    assert str(st) == "x=k, y=p, t1=c, t2=q, t3=r, t4=s"      # uncovered loops, in order


def test_one_dimensional_array():
    gemv = parse_expr("y[i] += A[i,j] * x[j]")
    st = SpaceTime.parse("x=i, t1=i+j", gemv)
    assert st.space == 1 and st.rows == ("x", "t1")
    assert st.inverse() == ((1, 0), (-1, 1))


def test_exact_inverse_of_all_small_unimodular_maps():
    for flat in itertools.islice(itertools.product((-1, 0, 1, 2), repeat=9), 0, None, 97):
        m = np.array(flat).reshape(3, 3)
        if abs(round(np.linalg.det(m))) != 1:
            continue
        inv = np.array(SpaceTime(m.tolist(), GEMM).inverse())
        assert (m @ inv == np.eye(3, dtype=int)).all()


@pytest.mark.parametrize("text, words", [
    ("x=j, y=j, t1=k", ["not linearly independent"]),
    ("x=j, y=i, t1=2*k", ["not unimodular (det = -2)"]),
    ("x=i+j, y=i-j", ["cannot be completed", "give all 3 rows"]),
    ("x=z, y=i, t1=k", ["uses z, not a loop", "i, j, k"]),
    ("x=j+1, y=i, t1=k", ["constant term"]),
    ("x=j, y=i, z=k", ["'z' is not a space-time row"]),
    ("x=j, y=i, t2=k", ["skips row t1"]),
    ("y=i, t1=k", ["no x row"]),
    ("x=j y=i", ["cannot parse", "x=j, y=i, t1=i+j+k"]),
    ("x=i, y=j, t1=k, t2=i", ["has 4 rows but 3 loops give only x, y, t1"]),
    ("x=i*j, y=i, t1=k", ["not affine"]),
])
def test_bad_maps(text, words):
    with pytest.raises(HwgenError) as e:
        SpaceTime.parse(text, GEMM)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_two_loops_do_not_fill_a_2d_array():
    with pytest.raises(HwgenError, match="use a 1-D array"):
        SpaceTime.parse("x=i, y=j", parse_expr("y[i] += A[i,j] * x[j]"))


def test_matrix_constructor_checks_shape():
    with pytest.raises(HwgenError, match="must be 3x3"):
        SpaceTime(((1, 0), (0, 1)), GEMM)


def test_matrix_constructor_takes_numpy_integers_only():
    st = SpaceTime(np.eye(3, dtype=np.int64), GEMM)
    assert st.matrix == ((1, 0, 0), (0, 1, 0), (0, 0, 1)) and type(st.matrix[0][0]) is int
    with pytest.raises(HwgenError, match="integer entries only"):
        SpaceTime(np.eye(3), GEMM)
