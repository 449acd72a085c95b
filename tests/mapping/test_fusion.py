"""Fusion decided by the cost model: every producer-consumer pair fused while its live tile,
doubled, fits the block RAM budget and fusing is no slower; the decision flips when the budget
is lowered."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.ir.interp import run
from hwgen.mapping.fusion import fused_stages, fusion_decisions, report
from hwgen.mapping.materialise import run_stages
from hwgen.pipeline import load_design
from tests.conftest import example, program

GEMM_CHAIN = {"M": 32, "K": 32, "N": 64, "P": 16}


def _decide(name, params, brams=None):
    graph = load_design(example(name), params)
    decisions = fusion_decisions(graph, brams)
    return graph, decisions, fused_stages(graph, decisions)


def test_with_the_device_s_block_ram_every_pair_is_fused():
    for name, params in [("mlp_pipeline", {}), ("gemm_relu_gemm", GEMM_CHAIN)]:
        graph, decisions, stages = _decide(name, params)
        assert [d.fuse for d in decisions] == [True] * len(decisions), name
        assert stages == [graph]
        assert all(d.fused <= sum(d.stages) and d.budget == 208 for d in decisions)


def test_a_lower_budget_materialises_the_pair_whose_tile_does_not_fit():
    """The GEMM chain's last pair keeps a 32x64 int8 tile (2 block RAMs doubled); within 7
    block RAMs only that pair goes through the host, the rest stays fused."""
    graph, decisions, stages = _decide("gemm_relu_gemm", GEMM_CHAIN, brams=7)
    assert [(d.producer, d.consumer, d.fuse) for d in decisions] == [
        ("gemm1", "relu", True), ("relu", "requantize", True), ("requantize", "gemm2", False)]
    last = decisions[-1]
    assert (last.tile_bits, last.blocks, last.elements) == (32 * 64 * 8, 2, 32 * 64)
    assert last.used + last.blocks > 7 and "over the budget of 7" in last.why
    assert [sorted({i.task for i in s.instances.values()}) for s in stages] == [
        ["gemm1", "relu", "requantize"], ["gemm2"]]
    inputs = {t.name: np.random.default_rng(1).integers(-128, 127, t.shape) for t in graph.inputs}
    assert np.array_equal(run_stages(stages, inputs)["Y"], run(graph, inputs)["Y"])


def test_mlp_pipeline_flips_when_its_buffers_do_not_fit():
    _, fused, _ = _decide("mlp_pipeline", {})
    _, cut, stages = _decide("mlp_pipeline", {}, brams=fused[0].used - 1)
    assert all(d.fuse for d in fused) and not any(d.fuse for d in cut)
    assert len(stages) == 3


def test_the_report_prints_every_pair_with_its_numbers():
    graph, decisions, stages = _decide("gemm_relu_gemm", GEMM_CHAIN, brams=7)
    text = "\n".join(report(graph, decisions, stages))
    for words in ["requantize -> gemm2 (stream q: 2048 elements per problem)",
                  "live tile 16384 bits, x2 ping-pong: 2 block RAMs",
                  f"fused: {decisions[0].fused} cycles per problem",
                  "-> materialise: fused, the design would need 8 block RAMs",
                  "runs as 2 designs", "gemm_relu_gemm_stage1: tasks gemm2; in W2, q; out Y"]:
        assert words in text


def test_a_pair_that_cannot_be_materialised_stays_fused_and_says_why():
    graph = load_design(program("periodic_branches"))
    (d,) = fusion_decisions(graph, brams=0)
    assert d.fuse and "scattered iterations" in d.why


@pytest.mark.parametrize("kwargs,words", [
    ({"brams": -1}, "0 or more"), ({"device": "xc7"}, "unknown device 'xc7'"),
])
def test_a_bad_budget_is_a_clear_error(kwargs, words):
    with pytest.raises(HwgenError, match=words):
        fusion_decisions(load_design(example("mlp_pipeline")), **kwargs)


def test_a_pair_is_materialised_when_its_stages_run_problems_faster():
    """Fused, the MLP's layers share one problem at a time; at these sizes layers 1-2 alone
    and layer 3 alone, overlapping problems, take fewer cycles together even with the host
    traffic: the cycle rule, not the budget, cuts there."""
    _, decisions, stages = _decide("mlp_pipeline", {"N0": 5, "N1": 17, "N2": 3, "N3": 2})
    first, second = decisions
    assert first.fuse and first.fused <= sum(first.stages)
    assert not second.fuse and second.used + second.blocks <= second.budget
    assert second.fused > sum(second.stages) and "cycles per problem" in second.why
    assert len(stages) == 2
