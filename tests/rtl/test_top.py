"""The whole generated top in Amaranth's simulator, against the functional interpreter."""
import numpy as np
import pytest

from hwgen.ir.interp import run
from hwgen.pipeline import load_design
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from tests.conftest import example, program, random_inputs

DESIGNS = [
    (example("gemm_os"), {"M": 3, "N": 5, "K": 7}),
    (example("gemm_os"), {"M": 2, "N": 2, "K": 1}),
    (example("gemm_os"), {"M": 1, "N": 2, "K": 97}),
    (example("producer_consumer"), {"N": 7}),
    (program("fifo_skew"), {"N": 6, "D": 2}),
    (program("fifo_skew"), {"N": 5, "D": 1}),
]


def problems(graph, n=3):
    return [random_inputs(graph, seed, extreme=(seed == 0)) for seed in range(n)]


@pytest.mark.parametrize("path,params", DESIGNS)
def test_no_stall_cycles_equal_expected(path, params):
    graph = load_design(path, params)
    top = Top(graph)
    probs = problems(graph, 2)
    outs, cycles = run_top(top, probs)
    assert cycles == [top.expected_cycles] * 2
    for p, ins in enumerate(probs):
        for name, want in run(graph, ins).items():
            assert np.array_equal(outs[p][name], want)


@pytest.mark.parametrize("path,params", DESIGNS)
def test_random_gaps_and_backpressure(path, params):
    graph = load_design(path, params)
    probs = problems(graph, 3)
    outs, cycles = run_top(Top(graph), probs, in_gap=0.4, out_gap=0.5, seed=11)
    for p, ins in enumerate(probs):
        for name, want in run(graph, ins).items():
            assert np.array_equal(outs[p][name], want), (p, name)


def test_systolic_streams_become_registers_and_mismatched_loops_fifos():
    gemm = Top(load_design(example("gemm_os"), {"M": 3, "N": 3, "K": 4})).schedule
    assert len(gemm.groups) == 1 and not gemm.fifos
    assert sum(len(g.links) for g in gemm.groups) == 12
    skew = Top(load_design(program("fifo_skew"), {"N": 4})).schedule
    assert skew.fifos == ["s"] and len(skew.groups) == 2


def test_only_lanes_1_for_now():
    from hwgen import HwgenError
    with pytest.raises(HwgenError, match="lanes"):
        Top(load_design(example("producer_consumer"), {"N": 2}), lanes=4)
