"""``pipeline.load_point``: a dataflow-exploration point as hardware, padded where its array
does not divide a loop and tiled where its buffers exceed the block RAM budget."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.dataflow.design import Design
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.generate import generate, reference
from hwgen.flow.tiles import run_whole, whole
from hwgen.pipeline import describe_folds, load_design, load_point

GEMM = parse_expr("C[i,j] += A[i,k] * B[k,j]")


def _equals_the_expression(graph, expr, sizes):
    rng = np.random.default_rng(3)
    inputs = {t.name: rng.integers(-128, 128, t.shape) for t in whole(graph).inputs}
    out = expr.output.tensor
    assert np.array_equal(run_whole(graph, inputs)[out], reference(expr, sizes, inputs)[out])


def test_a_point_that_fits_is_generated_as_it_is():
    d = Design(GEMM, {"i": 8, "j": 8, "k": 16}, (4, 4), ("j", "i"), "k", (1, 1))
    graph = load_point(d)
    assert graph.tiles is None and graph.params == generate(d).params


def test_a_point_over_the_block_ram_budget_is_tiled():
    sizes = {"i": 30, "j": 18, "k": 16}
    graph = load_point(Design(GEMM, sizes, (4, 4), ("j", "i"), "k", (1, 1)), brams=4)
    assert [(loop["param"], loop["count"], loop["size"]) for loop in graph.tiles["loops"]] == \
        [("i", 8, 4), ("j", 1, 20)]
    assert describe_folds(graph)[0].startswith("tiling the problem {'i': 30, 'j': 18, 'k': 16}")
    _equals_the_expression(graph, GEMM, sizes)


def test_a_reduction_the_array_does_not_divide_is_padded_with_zeros():
    """k = 5 on 4 PEs: the host sends A and B padded to k = 8 (zeros add nothing)."""
    sizes = {"i": 10, "j": 14, "k": 5}
    graph = load_point(Design(GEMM, sizes, (4, 2), ("k", "j"), "k", (1, 1)))
    assert graph.params["k"] == 8 and graph.tiles["params"] == sizes
    _equals_the_expression(graph, GEMM, sizes)


def test_a_point_that_cannot_be_tiled_is_a_clear_error():
    conv = parse_expr("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]")
    sizes = {"k": 4, "p": 4, "q": 4, "c": 2, "r": 3, "s": 3}
    with pytest.raises(HwgenError, match="over the budget of 0"):
        load_point(Design(conv, sizes, (4, 4), ("k", "p"), "c", (1, 1)), brams=0)


@pytest.mark.parametrize("brams", [-1, "8", 2.5])
def test_a_block_ram_budget_that_is_not_a_whole_number_is_a_clear_error(brams):
    d = Design(GEMM, {"i": 8, "j": 8, "k": 16}, (4, 4), ("j", "i"), "k", (1, 1))
    with pytest.raises(HwgenError, match="block RAM budget must be a whole number"):
        load_point(d, brams=brams)
    with pytest.raises(HwgenError, match="block RAM budget must be a whole number"):
        load_design("hwgen/examples/gemm_os.py", {"M": 8, "N": 8, "K": 8}, array=(4, 4),
                    brams=brams)
