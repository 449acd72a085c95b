"""Cutting a task graph into stages at streams that go through the host: the stages run one
after another equal the graph, in the interpreter and in hardware."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.flow.simulate import simulate
from hwgen.ir.interp import run
from hwgen.mapping.materialise import materialise, run_stages
from hwgen.pipeline import load_design
from tests.conftest import example, program


def _random_inputs(graph, seed):
    rng = np.random.default_rng(seed)
    return {t.name: rng.integers(t.dtype.min, t.dtype.max, t.shape, endpoint=True)
            for t in graph.inputs}


@pytest.mark.parametrize("name,params,cut", [
    ("mlp_pipeline", {"N0": 5, "N1": 17, "N2": 3, "N3": 2}, ["h1"]),
    ("mlp_pipeline", {"N0": 5, "N1": 17, "N2": 3, "N3": 2}, ["h1", "h2"]),
    ("gemm_relu_gemm", {"M": 3, "K": 5, "N": 2, "P": 3}, ["h", "r", "q"]),
    ("gemm_relu_gemm", {"M": 3, "K": 5, "N": 2, "P": 3}, ["q"]),
])
def test_stages_run_one_after_another_equal_the_graph(name, params, cut):
    graph = load_design(example(name), params)
    stages = materialise(graph, cut)
    assert len(stages) == len(cut) + 1
    for seed in range(3):
        inputs = _random_inputs(graph, seed)
        got = run_stages(stages, inputs)
        for out, want in run(graph, inputs).items():
            assert np.array_equal(got[out], want), (seed, out)


def test_a_cut_stream_is_an_output_of_one_stage_and_an_input_of_the_next():
    graph = load_design(example("mlp_pipeline"), {"N0": 4, "N1": 6, "N2": 3, "N3": 2})
    first, second = materialise(graph, ["h1"])
    assert [t.name for t in first.inputs] == ["X", "W1"]
    assert [t.name for t in first.outputs] == ["h1"]
    assert [t.name for t in second.inputs] == ["W2", "W3", "h1"]
    assert first.tensors["h1"].shape == (6,)
    assert set(first.instances) == {"layer1"} and set(second.channels) == {"h2"}


def test_each_stage_passes_cocotb_on_icarus(tmp_path):
    graph = load_design(example("gemm_relu_gemm"), {"M": 3, "K": 5, "N": 2, "P": 3})
    for stage in materialise(graph, ["h", "q"]):
        result = simulate(stage, str(tmp_path / stage.name), sim="icarus", problems=3)
        assert not result["failed"] and result["tests"], stage.name
        assert all(r["pass"] for r in result["tests"].values()), stage.name


@pytest.mark.parametrize("path,cut,words", [
    (example("mlp_pipeline"), ["nope"], "no stream 'nope' to materialise; the streams are h1"),
    (program("periodic_branches"), ["pipe"], "periodic_branches.py:19: cannot materialise the "
     "put on stream 'pipe': it runs on scattered iterations"),
])
def test_what_cannot_be_materialised_is_a_clear_error(path, cut, words):
    with pytest.raises(HwgenError, match=words.replace("'", ".")):
        materialise(load_design(path), cut)


def test_a_stream_whose_ends_other_streams_join_cannot_be_cut_alone():
    graph = load_design(program("stream_diamond"))
    with pytest.raises(HwgenError, match="cannot materialise stream 'ab': other streams join"):
        materialise(graph, ["ab"])
    first, second = materialise(graph, ["ab", "cb"])
    assert set(first.instances) == {"a", "c"} and set(second.instances) == {"b"}
    inputs = {"A": np.arange(-2, 2)}
    assert np.array_equal(run_stages([first, second], inputs)["B"], 2 * inputs["A"])
