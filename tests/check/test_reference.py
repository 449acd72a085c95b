"""The program against its author's numpy reference()."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.check.reference import (call_reference, check_reference, differences,
                                   reference_cases)
from hwgen.pipeline import load_design, load_module
from tests.conftest import example

GEMM = example("gemm_os")


def _gemm():
    return load_design(GEMM, {"M": 2, "N": 3, "K": 4})


def test_cases_cover_both_extremes_and_random_inputs():
    cases = reference_cases(_gemm(), random=2, seed=7)
    assert [label for label, _ in cases] == ["all-minimum inputs", "all-maximum inputs",
                                             "random inputs 1 (seed 7)", "random inputs 2 (seed 7)"]
    assert (cases[0][1]["A"] == -128).all() and (cases[1][1]["B"] == 127).all()
    assert cases[2][1]["A"].shape == (2, 4) and not np.array_equal(cases[2][1]["A"],
                                                                    cases[3][1]["A"])


def test_a_correct_reference_passes_and_a_wrong_one_names_indices_and_values():
    graph = _gemm()
    reference = load_module(GEMM).reference
    cases = reference_cases(graph)
    assert check_reference(graph, reference, cases).ok
    report = check_reference(graph, lambda A, B: {"C": reference(A, B)["C"] + (A[0, 0] > 0)},
                             cases)
    assert not report.ok
    # All-maximum inputs: A[0, 0] = 127 > 0, so every element is off by one.
    assert "all-maximum inputs: output 'C' differs in 6 of 6 elements; first " \
           "C[0, 0]: program 64516, reference 64517" in report.failures[0]
    assert not any(f.startswith("all-minimum") for f in report.failures)


def test_differences():
    assert differences("y", np.array([1, 2]), np.array([1, 2])) is None
    assert differences("y", np.array([1, 2, 3]), np.array([1, 5, 6])) == \
        "output 'y' differs in 2 of 3 elements; first y[1]: program 2, reference 5, " \
        "y[2]: program 3, reference 6"
    assert "shape [2, 1]" in differences("y", np.zeros((2,)), np.zeros((2, 1)))


def test_sizes_are_passed_to_a_reference_that_names_them():
    graph = _gemm()
    got = call_reference(lambda A, B, K: {"C": np.full((2, 3), K)}, graph,
                         reference_cases(graph, 0)[0][1])
    assert (got["C"] == 4).all()


@pytest.mark.parametrize("reference,words", [
    (lambda A, B: {"D": 0}, "must return a dict of the outputs ['C'], got ['D']"),
    (lambda A, B: A @ B, "must return a dict of the outputs ['C'], got ndarray"),
    (lambda A, X: {"C": A}, "reference() takes X, which is neither an input tensor"),
    (lambda A, B: {"C": 1 // 0}, "reference() raised ZeroDivisionError"),
])
def test_a_broken_reference_is_a_clear_error(reference, words):
    graph = _gemm()
    with pytest.raises(HwgenError) as e:
        check_reference(graph, reference, reference_cases(graph, 0))
    assert words in str(e.value)


def test_float_outputs_compare_bit_for_bit_and_nan_as_nan():
    from hwgen.ir.types import float32
    bits = np.array([0x3FC00000, 0x7FC00000, 0x80000000])        # 1.5, NaN, -0.0
    assert differences("y", bits, np.array([1.5, np.nan, -0.0]), dtype=float32) is None
    text = differences("y", bits, np.array([1.5, 2.0, 0.0]), dtype=float32)
    assert "differs in 2 of 3" in text and "program nan, reference 2.0" in text


def test_a_declared_tolerance_and_input_range():
    """A design file may declare TOLERANCE and INPUT_RANGE (an approximation inside); bad
    values are errors that say what to write."""
    import types

    import pytest

    from hwgen import HwgenError
    from hwgen.check.reference import declared
    assert declared(types.SimpleNamespace()) == (None, None)
    assert declared(types.SimpleNamespace(TOLERANCE=1e-3, INPUT_RANGE=(-1.0, 1.0))) == \
        (1e-3, (-1.0, 1.0))
    with pytest.raises(HwgenError, match="TOLERANCE must be a positive number"):
        declared(types.SimpleNamespace(TOLERANCE="small"))
    with pytest.raises(HwgenError, match=r"INPUT_RANGE must be \(low, high\)"):
        declared(types.SimpleNamespace(INPUT_RANGE=(2.0, -2.0)))
