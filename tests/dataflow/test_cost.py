"""The cost model's cycles and read ports are the hardware's: equal to the plan the hardware is
built from (``schedule.plan``, ``schedule.ports``) for every generated point, and to simulation
for the simulated ones."""
import math
from collections import Counter

import numpy as np
import pytest

from hwgen.dataflow.cost import cost, distinct
from hwgen.dataflow.design import Design
from hwgen.dataflow.explore import explore
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.generate import generate
from hwgen.pipeline import load_point
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import random_inputs

SPACES = [("C[i,j] += A[i,k] * B[k,j]", "i=8 j=8 k=8", (4, 4)),
          ("C[i,j] += A[i,k] * B[k,j]", "i=4 j=6 k=5", (4, 3)),
          ("y[i] += A[i,j] * x[j]", "i=8 j=12", (4, 4)),
          ("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]", "k=4 p=4 q=2 c=2 r=3 s=2", (4, 4))]


@pytest.fixture(scope="module", params=SPACES, ids=lambda s: f"{s[0]} {s[1]}")
def planned(request):
    """``(point, plan)`` for every explored point of a space."""
    text, sizes, array = request.param
    return [(point, plan(load_point(point.design)))
            for point in explore(parse_expr(text), sizes, array).points]


def test_cycles_latency_and_lanes_equal_the_plan_for_every_point(planned):
    for point, p in planned:
        c = point.cost
        assert (c.cycles, c.latency, c.lanes) == \
            (p.interval_cycles, p.expected_cycles, p.lanes), str(point.design)


def test_shared_output_rows_equal_the_plan_for_every_point(planned):
    assert any(point.cost.shared_rows for point, _ in planned)      # some do, in every space
    for point, p in planned:
        assert point.cost.shared_rows == bool(p.shared_rows), str(point.design)


def test_read_ports_equal_the_plan_for_every_point(planned):
    for point, p in planned:
        built = Counter(port.tensor for g in p.schedule.groups for port in p.ports[g.name].reads)
        assert point.cost.read_ports == dict(built), str(point.design)
        assert point.cost.ports == sum(built.values())


def test_cycles_equal_simulation():
    expr = parse_expr("C[i,j] += A[i,k] * B[k,j]")
    d = Design(expr, expr.check_sizes("i=4 j=4 k=6"), (2, 2), ("j", "i"), "k", (1, 0))
    graph = generate(d)
    problems = [random_inputs(graph, s) for s in range(3)]
    _, cycles, done = run_top(Top(plan(graph)), problems)
    assert cycles[0] == cost(d).latency
    assert list(np.diff(done)) == [cost(d).cycles] * 2


def test_utilization_and_macs():
    expr = parse_expr("C[i,j] += A[i,k] * B[k,j]")
    d = Design(expr, expr.check_sizes("i=8 j=8 k=64"), (4, 4), ("j", "i"), "k", (1, 1))
    c = cost(d)
    assert c.macs == 8 * 8 * 64 and c.pes == 16 and c.resources["DSP"] == 16
    assert c.utilization == c.macs / (16 * c.cycles) and c.cycles == 256


def test_distinct_elements_are_exact():
    conv = parse_expr("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]")
    ranges = {"k": 2, "p": 4, "q": 3, "c": 2, "r": 3, "s": 2}
    assert distinct(conv.access("I"), ranges) == 2 * (4 + 3 - 1) * (3 + 2 - 1)
    assert distinct(conv.access("W"), ranges) == math.prod([2, 2, 3, 2])
    diag = parse_expr("y[i] += A[i,i+j] * x[j]")
    brute = {(i, i + j) for i in range(3) for j in range(4)}
    assert distinct(diag.access("A"), {"i": 3, "j": 4}) == len(brute)
