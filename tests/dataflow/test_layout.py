"""Rubick's decomposition A·T⁻¹ = L·E: entry coordinates and data layouts."""
from hwgen.cli import main
from hwgen.dataflow import linalg
from hwgen.dataflow.entries import classify
from hwgen.dataflow.explore import explore
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.layout import decompose, describe
from hwgen.dataflow.spacetime import SpaceTime

GEMM = parse_expr("C[i,j] += A[i,k] * B[k,j]")


def test_output_stationary_gemm_layouts():
    st = SpaceTime.parse("x=j, y=i, t1=i+j+k", GEMM)
    lines = {a.tensor: describe(a, st, classify(a, st))[0] for a in GEMM.accesses}
    assert "E = (x, y)" in lines["C"] and "C[y, x]" in lines["C"]
    # A enters along x: one bank per row y, the address walks k = t1 - x - y (skewed start).
    assert "E = (x-t1, y)" in lines["A"] and "A[y, -(x-t1)-y]" in lines["A"]


def test_a_t_inverse_equals_l_e_for_every_explored_point():
    for text, sizes in [("C[i,j] += A[i,k] * B[k,j]", "i=4 j=4 k=4"),
                        ("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]", "k=2 p=2 q=2 c=2 r=2 s=2")]:
        result = explore(parse_expr(text), sizes, (2, 2))
        for point in result.points:
            expr, st = point.design.tiled
            for a in expr.accesses:
                entry = point.design.entries[a.tensor]
                l, e = decompose(a, st, entry)
                assert linalg.matmul(l, e) == linalg.matmul(a.matrix, st.inverse())
                assert len(e) == st.n - entry.rank


def test_cli_explains_a_point(capsys):
    assert main(["dse", "--point", "x=j, y=i, t1=k", "--sizes", "i=8 j=8 k=8"]) == 0
    out = capsys.readouterr().out
    assert "A: X-multicast" in out and "layout L" in out and "read ports" in out
