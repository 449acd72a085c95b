import json
import os
import re

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "hwgen", "examples")
PROGRAMS = os.path.join(ROOT, "tests", "programs")
# Seconds each longer test took (setup and call) in a recorded run: `--record-durations`.
DURATIONS = os.path.join(ROOT, "tests", "durations.json")
HEAVY_SECONDS = 1.25    # a test at least this long is ``heavy``: not in ``make test-fast``
RECORD_FROM = 0.5       # the durations file keeps the tests at least this long


def example(name):
    return os.path.join(EXAMPLES, f"{name}.py")


def program(name):
    return os.path.join(PROGRAMS, f"{name}.py")


def cells(verilog, top, cell):
    """How many ``cell`` instances the Verilog design ``top`` has, its modules' instances
    expanded (modules of one kind are written once: ``rtl.kinds``)."""
    bodies = {}
    for m in re.split(r"^module ", verilog, flags=re.M)[1:]:
        name = m.split("(", 1)[0].strip().lstrip("\\")
        bodies[name] = re.findall(r"^  \\?(\S+) +(?:#\(|\S+ \()$", m, re.M)

    def count(module):
        return sum(1 if t == cell else count(t) if t in bodies else 0 for t in bodies[module])
    return count(top)


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


def pytest_addoption(parser):
    parser.addoption("--record-durations", metavar="PATH",
                     help="write each test's seconds (setup and call) of this run to PATH, "
                          "the tests of at least 0.5 s (tests/durations.json orders and tiers "
                          "the suite)")


def test_key(nodeid):
    """A test's name in the durations file: its node id without this checkout's path, which
    parameters of example paths carry."""
    return nodeid.replace(ROOT + os.sep, "")


def pytest_collection_modifyitems(config, items):
    """Tests run on Verilator (parametrized ``sim="verilator"``) carry the ``verilator``
    marker: the fast tier (``make test-fast``) runs Icarus only. Tests that took at least
    ``HEAVY_SECONDS`` in the recorded run (``tests/durations.json``) carry ``heavy`` and run
    first, longest first, so that two workers finish together; the others keep their order."""
    try:
        with open(DURATIONS) as f:
            seconds = json.load(f)
    except (OSError, ValueError):
        seconds = {}
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("sim") == "verilator":
            item.add_marker(pytest.mark.verilator)
        if seconds.get(test_key(item.nodeid), 0) >= HEAVY_SECONDS:
            item.add_marker(pytest.mark.heavy)
    def first(item):
        took = seconds.get(test_key(item.nodeid), 0)
        return -took if took >= HEAVY_SECONDS else 0
    items.sort(key=first)


_SECONDS = {}


def pytest_runtest_logreport(report):
    if report.when in ("setup", "call"):
        key = test_key(report.nodeid)
        _SECONDS[key] = _SECONDS.get(key, 0) + report.duration


def pytest_sessionfinish(session):
    path = session.config.getoption("--record-durations")
    if path and not hasattr(session.config, "workerinput"):     # xdist's controller writes
        kept = {k: round(v, 2) for k, v in sorted(_SECONDS.items()) if v >= RECORD_FROM}
        with open(path, "w") as f:
            json.dump(kept, f, indent=0)
            f.write("\n")
