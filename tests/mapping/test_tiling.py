"""Tiling of problems larger than the block RAM budget: which parameters tile, the tiles
chosen, and the tiled design run tile by tile equal to the whole problem."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.flow.tiles import run_whole, whole
from hwgen.pipeline import describe_folds, load_design
from tests.conftest import example, program

GEMM = example("gemm_os")


def test_a_problem_that_fits_is_not_tiled():
    graph = load_design(GEMM, {"M": 20, "N": 30, "K": 8}, array=(4, 4))
    assert graph.tiles is None and graph.params == {"M": 20, "N": 30, "K": 8}


def test_over_the_budget_the_output_dimensions_are_tiled_and_the_reduction_is_not():
    graph = load_design(GEMM, {"M": 20, "N": 30, "K": 8}, array=(4, 4), brams=4)
    tiles = graph.tiles
    assert [loop["param"] for loop in tiles["loops"]] == ["M", "N"]      # never K
    assert tiles["tensors"]["A"]["dims"] == ["M", None]
    assert tiles["tensors"]["C"] == {"shape": [20, 30], "dims": ["M", "N"]}
    for loop in tiles["loops"]:     # multiples of the array, covering the problem
        assert loop["size"] % 4 == 0 and loop["size"] * loop["count"] >= tiles["params"][
            loop["param"]]
    assert graph.params == dict(tiles["params"], **{loop["param"]: loop["size"]
                                                    for loop in tiles["loops"]})
    assert describe_folds(graph)[0].startswith(
        "tiling the problem {'M': 20, 'N': 30, 'K': 8} into 4 tiles of N=8")


@pytest.mark.parametrize("params,array,brams", [
    ({"M": 20, "N": 30, "K": 8}, (4, 4), 1), ({"M": 64, "N": 64, "K": 64}, (4, 4), 12),
    ({"M": 30, "N": 7, "K": 1}, (3, 5), 1)])
def test_the_tiles_run_one_after_another_equal_the_whole_problem(params, array, brams):
    """(K=1 on 3 x 5: the best tiles' fold cannot run a loop of one iteration; the next
    tiling that can is taken.)"""
    graph = load_design(GEMM, params, array=array, brams=brams)
    assert graph.tiles is not None
    rng = np.random.default_rng(1)
    inputs = {t.name: rng.integers(-128, 128, t.shape) for t in whole(graph).inputs}
    assert inputs["A"].shape == (params["M"], params["K"])
    assert np.array_equal(run_whole(graph, inputs)["C"], inputs["A"] @ inputs["B"])


def test_tiles_that_cannot_fit_are_a_clear_error():
    with pytest.raises(HwgenError, match="the smallest tiles along M, N still need about 4 "
                                         "block RAMs, over the budget of 0"):
        load_design(GEMM, {"M": 8, "N": 8, "K": 256}, array=(2, 2), brams=0)


def test_a_single_padded_tile_says_it_pads():
    """8 x 30 does not bank evenly over 4 PEs; padded to 8 x 32 its buffers fit 4 blocks."""
    graph = load_design(GEMM, {"M": 8, "N": 30, "K": 8}, array=(4, 4), brams=4)
    assert [loop["count"] for loop in graph.tiles["loops"]] == [1, 1]
    assert describe_folds(graph)[0] == (
        "padding the problem {'M': 8, 'N': 30, 'K': 8} to {'M': 8, 'N': 32, 'K': 8}, a multiple "
        "of the array on its axes (design.json's tiles: one tile)")
    inputs = {"A": np.ones((8, 8), int), "B": np.ones((8, 30), int)}
    assert np.array_equal(run_whole(graph, inputs)["C"], np.full((8, 30), 8))


def test_tiles_that_fit_only_before_they_are_built_are_a_clear_error():
    """Ranked within 2 block RAMs by the per-bank count, no tile fits once its lanes and read
    ports are counted as built."""
    with pytest.raises(HwgenError, match="fits 2 block RAMs as the hardware builds it"):
        load_design(GEMM, {"M": 32, "N": 32, "K": 16}, array=(4, 4), brams=2)


def test_a_resident_tensor_that_does_not_fit_is_refused_not_tiled():
    """Tiles send their part of every input with every problem; a resident one is loaded
    once, so a design that would need tiles says so at the tensor's line."""
    path = program("resident_weights")
    with pytest.raises(HwgenError, match="tiles would send a part of resident tensor 'W' with "
                                         "every problem: drop resident") as e:
        load_design(path, {"B": 8, "N": 8, "K": 4096}, array=(4,), brams=2)
    assert e.value.loc[0] == path
