import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.ir.interp import run
from hwgen.ir.types import int8, uint8, int16
from hwgen.pipeline import load_design, load_module
from tests.conftest import example, program, random_inputs


@pytest.mark.parametrize("M,N,K", [(2, 2, 1), (3, 5, 7), (4, 4, 16), (1, 3, 97)])
def test_gemm_os_equals_numpy(M, N, K):
    graph = load_design(example("gemm_os"), {"M": M, "N": N, "K": K})
    for seed, extreme in ((0, True), (1, False)):
        ins = random_inputs(graph, seed, extreme)
        assert np.array_equal(run(graph, ins)["C"], ins["A"] @ ins["B"])


def test_producer_consumer_equals_numpy():
    graph = load_design(example("producer_consumer"), {"N": 9})
    ins = random_inputs(graph, 3)
    assert np.array_equal(run(graph, ins)["B"], (ins["A"] * 3 + 1).cumsum())


def test_fifo_program_equals_numpy():
    graph = load_design(program("fifo_skew"), {"N": 5})
    ins = random_inputs(graph, 4)
    assert np.array_equal(run(graph, ins)["C"], ins["A"] * 2 + ins["B"].sum())


def test_int32_accumulator_wraps_like_hardware():
    assert int8.wrap(128) == -128 and uint8.wrap(-1) == 255 and int16.wrap(40000) == -25536


@pytest.mark.parametrize("bad,words", [
    ({"A": np.zeros((3, 3)), "B": np.zeros((3, 2))}, "shape"),
    ({"A": np.full((2, 3), 200), "B": np.zeros((3, 2), int)}, "outside int8"),
    ({"A": np.zeros((2, 3), int)}, "missing input"),
    ({"A": np.zeros((2, 3), int), "B": np.zeros((3, 2), int), "Z": 1}, "unknown input"),
    ({"A": np.zeros((2, 3)) + 0.5, "B": np.zeros((3, 2), int)}, "integers"),
])
def test_bad_inputs_are_rejected(bad, words):
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3})
    with pytest.raises(HwgenError, match=words):
        run(graph, bad)


def test_budget_stops_a_long_run():
    graph = load_design(example("producer_consumer"), {"N": 50})
    with pytest.raises(HwgenError, match="stopped after"):
        run(graph, random_inputs(graph), budget=3)


def test_indices_computed_at_run_time_are_checked_when_known():
    """``A[P[i] % LIMIT]``: in range, the interpreter equals numpy; with LIMIT past the
    tensor, an index outside is an error at the line that computed it."""
    path = program("runtime_index")
    graph = load_design(path, {"N": 5})
    inputs = random_inputs(graph, 3)
    B = load_module(path).reference(**inputs)["B"]
    assert np.array_equal(run(graph, inputs)["B"], B)
    graph = load_design(path, {"N": 5, "LIMIT": 7})
    inputs["P"] = np.full(5, 6)
    with pytest.raises(HwgenError, match=r"'A' is indexed at \[6\], outside its shape") as e:
        run(graph, inputs)
    with open(path) as f:
        assert "# LINE" in f.read().splitlines()[e.value.loc[1] - 1]


def test_two_puts_on_every_other_iteration_run():
    """``if j % 2 == 0:`` around two puts (Allo's double put): the counts are known at compile
    time, and ``A[i, j + 1]`` stays inside on the even iterations it runs on."""
    path = program("double_put")
    graph = load_design(path)
    inputs = random_inputs(graph, 1)
    for name, want in load_module(path).reference(**inputs).items():
        assert np.array_equal(run(graph, inputs)[name], want), name
