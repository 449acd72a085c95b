"""Generated task graphs compute the expression (interpreter and RTL against numpy)."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.dataflow.design import Design
from hwgen.dataflow.explore import explore
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.generate import generate, reference
from hwgen.flow.tiles import run_whole, whole
from hwgen.ir.interp import run
from hwgen.pipeline import load_point
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from hwgen.schedule.ports import plan_ports
from tests.conftest import random_inputs

SPACES = [("C[i,j] += A[i,k] * B[k,j]", "i=4 j=6 k=4", (2, 3)),
          ("y[i] += A[i,j] * x[j]", "i=6 j=4", (3, 2)),
          ("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]", "k=2 p=3 q=2 c=2 r=2 s=3", (2, 3))]


@pytest.mark.parametrize("text,sizes,array", SPACES)
def test_every_explored_point_computes_the_expression(text, sizes, array):
    expr = parse_expr(text)
    result = explore(expr, sizes, array)
    assert len(result.points) > 5
    for point in result.points:     # an array side that does not divide a loop: padded
        graph = load_point(point.design)
        inputs = random_inputs(whole(graph), point.id)
        want = reference(expr, result.sizes, inputs)
        assert np.array_equal(run_whole(graph, inputs)[expr.output.tensor],
                              want[expr.output.tensor]), str(point.design)


@pytest.mark.parametrize("space,inner,skew", [(("j", "i"), "k", (1, 1)),
                                              (("j", "i"), "k", (0, 0)),
                                              (("j", "k"), "i", (1, 1))])
def test_rtl_with_back_pressure(space, inner, skew):
    expr = parse_expr("C[i,j] += A[i,k] * B[k,j]")
    sizes = expr.check_sizes("i=6 j=4 k=3")
    graph = generate(Design(expr, sizes, (2, 3), space, inner, skew))
    problems = [random_inputs(graph, s, extreme=(s == 0)) for s in range(3)]
    outs, _, _ = run_top(Top(plan(graph)), problems, in_gap=0.4, out_gap=0.4, seed=5)
    for p, inputs in enumerate(problems):
        assert np.array_equal(outs[p]["C"], reference(expr, sizes, inputs)["C"])


def test_multicast_reads_share_one_port_per_row_and_column():
    expr = parse_expr("C[i,j] += A[i,k] * B[k,j]")
    graph = generate(Design(expr, expr.check_sizes("i=8 j=8 k=8"), (4, 4), ("j", "i"), "k",
                            (0, 0)))
    p = plan(graph)
    assert len(p.schedule.groups) == 1
    ports = plan_ports(graph, p.schedule, p.schedule.groups[0], p.bankings)
    assert sorted(port.tensor for port in ports.reads) == ["A"] * 4 + ["B"] * 4


def test_points_that_cannot_be_generated_say_why():
    expr = parse_expr("C[i,j] += A[i,k] * B[k,j]")
    with pytest.raises(HwgenError, match="accumulator buffer"):
        generate(Design(expr, expr.check_sizes("i=8 j=8 k=8"), (4, 4), ("j", "k"), "i", (1, 1)))
    with pytest.raises(HwgenError, match="must divide"):
        generate(Design(expr, expr.check_sizes("i=6 j=8 k=8"), (4, 4), ("j", "i"), "k", (1, 1)))
