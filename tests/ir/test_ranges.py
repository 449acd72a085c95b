"""Value ranges for hardware: accumulators and output tensors sized from their terms per
problem, never narrower than a value can be, and left at their type where it may wrap."""
import warnings

from amaranth.hdl import signed, unsigned

from hwgen.ir.ranges import hardware_ranges
from hwgen.ir.types import IntType
from hwgen.pipeline import load_design
from hwgen.rtl.signatures import stored_shape
from tests.conftest import example, program


def test_gemm_accumulators_and_output_hold_k_products():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 64})
    variables, tensors = hardware_ranges(graph)
    bound = (64 * -128 * 127, 64 * 128 * 128)
    assert variables["pe[1,2]"]["c"] == bound and tensors["C"] == bound
    assert stored_shape(graph.tensors["C"].dtype, bound) == signed(22)


def test_a_sum_that_may_wrap_keeps_its_type():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = load_design(program("narrow_acc"), {"K": 64})
    variables, tensors = hardware_ranges(graph)
    assert "acc" not in variables.get("dot", {}) and "C" not in tensors


def test_stored_shapes_keep_the_signedness_of_the_type():
    assert stored_shape(IntType(32, True), (0, 1)) == signed(2)
    assert stored_shape(IntType(32, True), (-1, 0)) == signed(1)
    assert stored_shape(IntType(16, False), (0, 300)) == unsigned(9)
    assert stored_shape(IntType(16, False), None) == unsigned(16)
