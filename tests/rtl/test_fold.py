"""Folded programs as hardware in Amaranth's simulator: each physical PE runs its grid
positions in turn, outputs equal numpy with and without back-pressure, the first problem in
exactly ``expected_cycles``."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.pipeline import load_design, load_module
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import example, example_inputs, golden, program

CASES = [("gemm_os", {"M": 8, "N": 8, "K": 6}, (4, 4)), ("gemm_os", {"M": 6, "N": 4, "K": 9},
                                                          (4, 4)),
         ("gemm_ws", {}, (2, 2)), ("conv2d_systolic", {}, (2, 2)), ("systolic_1d", {}, (1, 1))]


@pytest.mark.parametrize("name,params,array", CASES)
def test_a_folded_design_equals_numpy_in_hardware(name, params, array):
    module = load_module(example(name))
    graph = load_design(example(name), params, module, array)
    assert graph.folds
    problems = [example_inputs(module, graph, s, extreme=s == 0) for s in range(3)]
    top = Top(plan(graph))
    outs, cycles, _ = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    slow, _, _ = run_top(top, problems, in_gap=0.3, out_gap=0.4, seed=5)
    for p, inputs in enumerate(problems):
        for t, want in golden(module, graph, inputs).items():
            assert np.array_equal(outs[p][t], want), (p, t)
            assert np.array_equal(slow[p][t], want), (p, t, "back-pressure")


def test_a_loop_too_short_for_the_folded_ring_is_an_error():
    """The stream leaving the last column is wanted back at the first one iteration later,
    before the array's pipeline can deliver it."""
    graph = load_design(example("gemm_os"), {"M": 8, "N": 8, "K": 2}, array=(4, 4))
    with pytest.raises(HwgenError, match="fold onto another number of PEs, or give the "
                       "loops more iterations"):
        plan(graph)


@pytest.mark.parametrize("params", [{"N": 6}, {"N": 13}])
def test_a_chained_program_equals_numpy_in_hardware(params):
    """``hwgen.chain(scale, accumulate)``: each PE runs both tasks in turn, the stream between
    them a buffer inside it."""
    path = program("chained")
    module = load_module(path)
    graph = load_design(path, params, module)
    assert sorted(graph.instances) == ["collect", "scale_accumulate[0]", "scale_accumulate[1]"]
    inner = graph.channels["pipe[0]"]
    assert inner.producer == inner.consumer == "scale_accumulate[0]"
    assert inner.depth == params["N"]
    problems = [example_inputs(module, graph, s, extreme=s == 0) for s in range(3)]
    top = Top(plan(graph))
    outs, cycles, _ = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    slow, _, _ = run_top(top, problems, in_gap=0.3, out_gap=0.4, seed=2)
    for p, inputs in enumerate(problems):
        for t, want in module.reference(**inputs).items():
            assert np.array_equal(outs[p][t], want), (p, t)
            assert np.array_equal(slow[p][t], want), (p, t, "back-pressure")
