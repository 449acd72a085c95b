"""Folding a task's virtual grid onto a smaller physical one: the folded program computes what
the written one does, and a fold that cannot is an error naming the user's line."""
import numpy as np
import pytest

import hwgen
from hwgen import HwgenError
from hwgen.check import check
from hwgen.ir.interp import run
from hwgen.pipeline import describe_folds, load_design, load_module
from tests.conftest import example, example_inputs, program

FOLDS = [("gemm_os", {"M": 8, "N": 8, "K": 6}, (4, 4)),
         ("gemm_os", {"M": 6, "N": 6, "K": 5}, (4, 4)),
         ("gemm_os", {"M": 3, "N": 5, "K": 1}, (2, 2)),
         ("gemm_ws", {}, (2, 2)), ("gemm_ws_float", {}, (1, 1)), ("gemm_tiled", {}, (2, 2)),
         ("conv2d_systolic", {}, (2, 2)), ("systolic_1d", {}, (1, 1)),
         ("smith_waterman", {}, (2, 2)), ("gemv_float", {}, (2, 2))]


@pytest.mark.parametrize("name,params,array", FOLDS)
def test_the_folded_program_equals_the_written_one(name, params, array):
    path = example(name)
    module = load_module(path)
    written = load_design(path, params, module)
    folded = load_design(path, params, module, array)
    assert folded.folds and all(g == folded.folds[t][1] for t, g in (
        (inst.task, inst.grid) for inst in folded.instances.values()) if t in folded.folds)
    for seed in range(2):
        inputs = example_inputs(module, written, seed, extreme=seed == 0)
        want, got = run(written, inputs), run(folded, inputs)
        for t in want:
            assert np.array_equal(want[t], got[t]), (t, seed)


def test_a_folded_gemm_runs_its_grid_positions_in_turn():
    """32 x 32 onto 4 x 4: 16 PEs, each 64 grid positions; the streams leaving the last
    column (row) come back into the first, one per row (column), deep enough for a row."""
    graph = load_design(example("gemm_os"), {"M": 32, "N": 32, "K": 32}, array=(4, 4))
    assert len(graph.instances) == 16
    assert graph.instances["pe[0,0]"].segments[0].trips[:2] == (8, 8)
    wrap = graph.channels["a_in[2,3>2,0]"]
    assert (wrap.producer, wrap.consumer) == ("pe[2,3]", "pe[2,0]")
    assert 32 <= wrap.depth <= 2 + 2 * 32
    assert describe_folds(graph) == ["folding task pe from grid [32, 32] onto [4, 4]: each "
                                     "PE runs up to 64 grid positions in turn"]
    rng = np.random.default_rng(0)
    A, B = rng.integers(-128, 128, (32, 32)), rng.integers(-128, 128, (32, 32))
    assert np.array_equal(run(graph, {"A": A, "B": B})["C"], A @ B)


def test_without_an_array_the_grid_is_built_as_written():
    graph = load_design(example("gemm_os"), {"M": 8, "N": 8, "K": 4})
    assert len(graph.instances) == 64 and graph.folds == {}


def _fold_error(name, fold):
    path = program(name)        # a right program, which this fold would make wrong
    region = load_module(path).build()
    with pytest.raises(HwgenError) as e:
        check(region.graph({}, fold=fold))
    line = next(n for n, text in enumerate(open(path), 1) if "# LINE" in text)
    assert e.value.loc == (path, line), str(e.value)
    return str(e.value)


def test_streams_got_in_another_order_than_put_are_an_error():
    assert "in an order its consumer does not get them" in \
        _fold_error("fold_order", {"prod": (1, 1), "cons": (1, 1)})


def test_a_put_that_reaches_several_instances_is_an_error():
    assert "reaches 2 instances on different iterations" in \
        _fold_error("fold_scatter", {"prod": (2,)})


def test_a_grid_index_used_at_compile_time_says_the_task_is_folded():
    with pytest.raises(HwgenError, match=r"folded from grid \[4, 4\] onto \[2, 2\]: its grid "
                       "indices are loop variables"):
        load_design(example("gemm_daisy_chain"), {"M": 4, "N": 4}, array=(2, 2))


@pytest.mark.parametrize("fold", [{"pe": (2,)}, {"pe": (8, 4)}, {"pe": (0, 4)}])
def test_folding_onto_a_grid_that_does_not_fit_is_an_error(fold):
    region = load_module(example("gemm_os")).build(M=4, N=4, K=2)
    with pytest.raises(HwgenError, match="cannot be folded onto"):
        region.graph({}, fold=fold)


@pytest.mark.parametrize("call", [lambda: hwgen.bundle(None, 0, 2),
                                  lambda: hwgen.chain(None, None)])
def test_bundle_and_chain_mean_something_only_in_a_region(call):
    with pytest.raises(HwgenError, match="only has a meaning as a statement in a @hwgen.region"):
        call()
