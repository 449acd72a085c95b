import pytest

from hwgen.dataflow.expr import Access, parse_expr, parse_sizes
from hwgen.errors import HwgenError

GEMM = "C[i,j] += A[i,k] * B[k,j]"
CONV = "O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]"
GEMV = "y[i] += A[i,j] * x[j]"
DEPTHWISE = "O[c,p,q] += I[c,p+r,q+s] * W[c,r,s]"


def test_gemm_loops_and_matrices():
    e = parse_expr(GEMM)
    assert e.loops == ("i", "j", "k")
    assert e.output == Access("C", ((1, 0, 0), (0, 1, 0)), (0, 0), "C[i,j]")
    assert [a.tensor for a in e.inputs] == ["A", "B"]
    assert e.access("A").matrix == ((1, 0, 0), (0, 0, 1))
    assert e.access("B").matrix == ((0, 0, 1), (0, 1, 0))
    assert e.tensors == ("C", "A", "B") and str(e) == GEMM


def test_conv_affine_indices_and_shapes():
    e = parse_expr(CONV)
    assert e.loops == ("k", "p", "q", "c", "r", "s")
    assert e.access("I").matrix == ((0, 0, 0, 1, 0, 0), (0, 1, 0, 0, 1, 0), (0, 0, 1, 0, 0, 1))
    assert e.shapes("k=8 p=6 q=5 c=4 r=3 s=2") == {"O": (8, 6, 5), "I": (4, 8, 6),
                                                   "W": (8, 4, 3, 2)}


def test_gemv_and_depthwise():
    v = parse_expr(GEMV)
    assert v.loops == ("i", "j")
    assert v.shapes({"i": 3, "j": 5}) == {"y": (3,), "A": (3, 5), "x": (5,)}
    d = parse_expr(DEPTHWISE)
    assert d.loops == ("c", "p", "q", "r", "s")
    assert d.shapes("c=4 p=6 q=6 r=3 s=3") == {"O": (4, 6, 6), "I": (4, 8, 8), "W": (4, 3, 3)}


def test_strides_offsets_and_constants():
    e = parse_expr("O[p] += I[2*p+r-1] * W[3 - r, 0]")
    assert e.access("I").matrix == ((2, 1),) and e.access("I").offset == (-1,)
    assert e.access("W").matrix == ((0, -1), (0, 0)) and e.access("W").offset == (3, 0)
    assert e.access("I").index((4, 2)) == (9,)
    assert e.shapes("p=5 r=3")["I"] == (2 * 4 + 2 + 1,)
    assert e.shapes("p=5 r=3")["W"] == (3, 1)


def test_parse_sizes():
    assert parse_sizes("i=64 j=32, k=8") == {"i": 64, "j": 32, "k": 8}
    assert parse_sizes("") == {}


@pytest.mark.parametrize("text, words", [
    ("C[i,j] += A[i,k] *", ["cannot parse", "write it like C[i,j] += A[i,k] * B[k,j]"]),
    ("C[i,j] = A[i,k] * B[k,j]", ["'='", "+="]),
    ("C[i,j] -= A[i,k] * B[k,j]", ["'+='", "write it like"]),
    ("C[i,j] += A[i,k] + B[k,j]", ["exactly two", "1 factor"]),
    ("C[i,j] += A[i,k] * B[k,j] * D[j]", ["exactly two", "3 factors"]),
    ("C[i,j] += A[i*k] * B[k,j]", ["'i * k' is not affine", "2*p+r"]),
    ("C[i,j] += A[i//2,k] * B[k,j]", ["not affine"]),
    ("C[i,j] += A[i,1:3] * B[k,j]", ["slice"]),
    ("C[i,j] += A.T[i,k] * B[k,j]", ["not a tensor access", "write it like"]),
    ("c += a * b", ["output 'c' is not a tensor access"]),
    ("C[i,j] += C[i,k] * B[k,j]", ["appears twice"]),
    ("C[i,j] += A[i,k] * B[k,j]; D[i] += A[i,k] * B[k,i]", ["not one statement"]),
])
def test_bad_expressions(text, words):
    with pytest.raises(HwgenError) as e:
        parse_expr(text)
    for w in words:
        assert w in str(e.value), str(e.value)


@pytest.mark.parametrize("sizes, words", [
    ("i=64 j=64", ["loop k has no size", "add k=..."]),
    ("i=64 j=0 k=64", ["'j' must be a positive integer", "j=64"]),
    ("i=64 j=-4 k=64", ["positive integer"]),
    ("i=64 j=x k=64", ["positive integer, not 'x'"]),
    ("i=64 j 64 k=64", ["cannot read size 'j'", "i=64 j=64 k=64"]),
    ("i=64 i=32 j=1 k=1", ["given twice"]),
    ("i=64 j=64 k=64 z=3", ["'z', which is not a loop"]),
    ({"i": 64, "j": 2.5, "k": 64}, ["positive integer, not 2.5"]),
    ({"i": True, "j": 2, "k": 64}, ["positive integer, not True"]),
])
def test_bad_sizes(sizes, words):
    with pytest.raises(HwgenError) as e:
        parse_expr(GEMM).shapes(sizes)
    for w in words:
        assert w in str(e.value), str(e.value)
