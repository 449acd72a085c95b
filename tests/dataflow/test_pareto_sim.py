"""Every Pareto point of GEMM, GEMV and conv2d on a 4x4 array is generated and simulated in
cocotb (Icarus) against numpy under random back-pressure; the first problem takes exactly the
cost model's latency and problems back to back its cycles."""
import numpy as np
import pytest

from hwgen.dataflow.explore import explore
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.generate import generate, reference
from hwgen.flow.simulate import make_vectors, simulate

SPACES = {"gemm": ("C[i,j] += A[i,k] * B[k,j]", "i=8 j=8 k=32"),
          "gemv": ("y[i] += A[i,j] * x[j]", "i=16 j=32"),
          "conv2d": ("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]", "k=4 p=4 q=4 c=2 r=3 s=3")}
FRONTS = {name: explore(parse_expr(text), sizes, (4, 4)) for name, (text, sizes) in
          SPACES.items()}
CASES = [(name, p.id) for name, result in FRONTS.items() for p in result.front]


@pytest.mark.parametrize("name,point", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_pareto_point_in_cocotb(tmp_path, name, point):
    result = FRONTS[name]
    p = result.find(point)
    graph = generate(p.design)
    # The golden model the testbench uses (the interpreter) equals numpy on these inputs.
    vectors = make_vectors(graph, problems=3, seed=0)
    inputs = {a.tensor: vectors[f"in_{a.tensor}_1"] for a in result.expr.inputs}
    out = result.expr.output.tensor
    assert np.array_equal(vectors[f"out_{out}_1"], reference(result.expr, result.sizes,
                                                             inputs)[out])
    sim = simulate(graph, tmp_path, sim="icarus", problems=3)
    tests = sim["tests"]
    assert sim["failed"] == 0 and all(t["pass"] for t in tests.values()), sim
    assert tests["no_stall"]["cycles"][0] == p.cost.latency
    assert tests["no_stall"]["intervals"] == [p.cost.cycles] * 2
