"""schedule.support: constructs the interpreter runs but hardware does not build yet are
refused before any scheduling, at the user's line."""
import inspect

import numpy as np
import pytest

import hwgen
from hwgen import HwgenError, Stream, int8, int32
from hwgen.check import check
from hwgen.ir.interp import run
from hwgen.ir.types import float32
from hwgen.schedule import schedule


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(n for n, line in enumerate(lines) if text in line)


def _forwarding():
    @hwgen.region
    def forwarding(A: int8[4], C: int32[4]):
        s = Stream[int8, 4]

        @hwgen.task
        def src():
            for i in range(4):
                s.put(A[i])

        @hwgen.task
        def dst():
            for i in range(2):
                C[i] = s.get() - s.get()    # two gets of s in one statement
            for i in range(2, 4):
                C[i] = 0

    return forwarding, _line_of(_forwarding, "two gets of s")


def _sum_started_elsewhere():
    @hwgen.region
    def sum_started_elsewhere(A: float32[4], C: float32[4]):
        @hwgen.task
        def t():
            acc: float32 = 0
            for i in range(4):
                C[i] = A[i]
            for j in range(4):
                acc += A[j]                 # started before another loop
            C[0] = acc

    return sum_started_elsewhere, _line_of(_sum_started_elsewhere, "started before another")


TABLE = np.arange(2 * 256).reshape(2, 256) % 256 - 128


def _lookup_of_a_lookup():
    @hwgen.region
    def lookup_of_a_lookup(A: int8[4], C: int32[4]):
        @hwgen.task
        def t():
            f: int8[2, 256] = TABLE
            for i in range(4):
                x: int8 = f[0, A[i] + 128]
                C[i] = f[1, x + 128]        # looked up at a value looked up in f
    return lookup_of_a_lookup, _line_of(_lookup_of_a_lookup, "looked up at a value")


@pytest.mark.parametrize("make,message", [
    (_forwarding, "got twice on one iteration"),
    (_sum_started_elsewhere, "must be set right before"),
    (_lookup_of_a_lookup, "declare a second table with the same values")])
def test_the_interpreter_runs_it_hardware_refuses_it_at_the_line(make, message):
    region, line = make()
    graph = check(region.graph())
    inputs = {"A": np.arange(4) if graph.tensors["A"].dtype == int8
              else np.arange(4, dtype=np.float32)}
    assert run(graph, inputs)
    with pytest.raises(HwgenError, match=message) as e:
        schedule(graph)
    assert e.value.loc[1] == line


def _programs():
    import glob
    from tests.conftest import ROOT
    return sorted(glob.glob(f"{ROOT}/tests/programs/*.py") +
                  glob.glob(f"{ROOT}/tests/programs/bad/*.py"))


@pytest.mark.filterwarnings("ignore::hwgen.HwgenWarning")
@pytest.mark.parametrize("path", _programs(), ids=lambda p: p.split("programs/")[-1])
def test_what_the_interpreter_runs_builds_or_is_refused_before_the_generator(path):
    """One rule: a program the checks and the interpreter accept either becomes hardware
    (its RTL elaborates) or is refused by the schedule (``schedule.support`` and the timing
    rules) at a line of the program, never by the hardware generator."""
    import traceback
    from amaranth.back import rtlil
    from hwgen.pipeline import load_design
    from hwgen.rtl.top import Top
    from hwgen.schedule import plan
    from tests.conftest import random_inputs
    try:
        graph = load_design(path)
        run(graph, random_inputs(graph, 1))
    except HwgenError:
        return                      # refused by the language: not this rule's concern
    try:
        built = plan(graph)
    except HwgenError as e:
        assert e.loc is not None and e.loc[0] == path, str(e)
        where = traceback.extract_tb(e.__traceback__)[-1].filename
        assert "/hwgen/schedule/" in where, where
        return
    rtlil.convert(Top(built))
