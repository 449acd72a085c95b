"""Odd and degenerate sizes for every example (grids of one, K=1, K=97, 3x5), with random
gaps and back-pressure in Amaranth's simulator, cycle counts equal to the schedule."""
import numpy as np
import pytest

from hwgen.check.reference import differences
from hwgen.pipeline import load_design, load_module
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import example, example_inputs, golden

CASES = [
    ("systolic_1d", {"T": 1, "N": 5}), ("systolic_1d", {"T": 5, "N": 3}),
    ("systolic_1d", {"T": 2, "N": 97}),
    ("gemm_ws", {"M": 1, "N": 3, "K": 5}), ("gemm_ws", {"M": 9, "N": 1, "K": 1}),
    ("gemm_ws", {"M": 3, "N": 5, "K": 3}),
    ("gemm_os", {"M": 3, "N": 5, "K": 97}), ("gemm_os", {"M": 1, "N": 1, "K": 1}),
    ("gemm_tiled", {"P": 1, "Q": 3, "TM": 3, "TN": 1, "K": 1}),
    ("gemm_tiled", {"P": 3, "Q": 5, "TM": 1, "TN": 2, "K": 7}),
    ("gemm_daisy_chain", {"M": 1, "N": 1, "K": 1}), ("gemm_daisy_chain", {"M": 3, "N": 5, "K": 97}),
    ("conv2d_systolic", {"F": 1, "C": 3, "H": 3, "W": 5, "KH": 1, "KW": 3}),
    ("conv2d_systolic", {"F": 3, "C": 1, "H": 5, "W": 3, "KH": 3, "KW": 1}),
    ("gemv_cooperative", {"P": 1, "M": 1, "K": 7}), ("gemv_cooperative", {"P": 5, "M": 3, "K": 15}),
    ("smith_waterman", {"P": 1, "L": 9}), ("smith_waterman", {"P": 7, "L": 1}),
    ("mlp_pipeline", {"N0": 1, "N1": 1, "N2": 1, "N3": 1}),
    ("mlp_pipeline", {"N0": 3, "N1": 33, "N2": 5, "N3": 7}),
    ("gemm_ws_float", {"M": 1, "N": 3, "K": 5, "BITS": 32}),
    ("gemm_ws_float", {"M": 9, "N": 1, "K": 1, "BITS": 16}),
    ("gemv_float", {"M": 1, "K": 1, "BITS": 32}), ("gemv_float", {"M": 3, "K": 97, "BITS": 16}),
    ("gemv_float", {"M": 5, "K": 6, "BITS": 32}),
    ("attention", {"L": 1, "D": 1, "BITS": 32}), ("attention", {"L": 9, "D": 3, "BITS": 16}),
]


@pytest.mark.parametrize("name,sizes", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_odd_sizes_with_back_pressure(name, sizes):
    path = example(name)
    module, graph = load_module(path), load_design(path, sizes)
    top = Top(plan(graph))
    problems = [example_inputs(module, graph, s, extreme=(s == 0)) for s in range(3)]
    outs, cycles, done = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    assert list(np.diff(done)) == [top.interval_cycles] * 2
    for gaps in ((0.5, 0.2), (0.2, 0.6)):
        outs, _, _ = run_top(top, problems, *gaps, seed=len(sizes))
        for p, inputs in enumerate(problems):
            for out, want in golden(module, graph, inputs).items():
                assert differences(out, np.asarray(outs[p][out]), want,
                                   dtype=graph.tensors[out].dtype) is None, (p, out, gaps)
