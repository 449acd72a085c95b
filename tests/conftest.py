import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "hwgen", "examples")
PROGRAMS = os.path.join(ROOT, "tests", "programs")


def example(name):
    return os.path.join(EXAMPLES, f"{name}.py")


def program(name):
    return os.path.join(PROGRAMS, f"{name}.py")


def random_inputs(graph, seed=0, extreme=False):
    rng = np.random.default_rng(seed)
    return {t.name: (np.full(t.shape, t.dtype.min) if extreme else
                     rng.integers(t.dtype.min, t.dtype.max, t.shape, endpoint=True))
            for t in graph.inputs}


def example_inputs(module, graph, seed=0, extreme=False):
    """``random_inputs``, but float tensors drawn from the example's ``INPUT_RANGE`` when it
    has one (an example checked against numpy within a tolerance)."""
    from hwgen.ir.interp import in_range
    return in_range(graph, random_inputs(graph, seed, extreme),
                    getattr(module, "INPUT_RANGE", None), np.random.default_rng(seed))


def golden(module, graph, inputs):
    """What an example must output on ``inputs``, bit for bit, as values: its numpy
    reference's, or for an example with a ``TOLERANCE`` (an approximation inside, held to
    numpy within it by test_interpreter_equals_numpy) the interpreter's."""
    from hwgen.check.reference import call_reference
    if not hasattr(module, "TOLERANCE"):
        return call_reference(module.reference, graph, inputs)
    from hwgen.ir import floats
    from hwgen.ir.interp import run
    from hwgen.ir.types import FloatType
    return {name: floats.from_bits(v, graph.tensors[name].dtype)
            if isinstance(graph.tensors[name].dtype, FloatType) else v
            for name, v in run(graph, inputs).items()}


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def pytest_collection_modifyitems(items):
    """Tests run on Verilator (parametrized ``sim="verilator"``) carry the ``verilator``
    marker: the fast tier (``make test-fast``) runs Icarus only."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("sim") == "verilator":
            item.add_marker(pytest.mark.verilator)
