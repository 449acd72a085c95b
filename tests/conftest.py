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
