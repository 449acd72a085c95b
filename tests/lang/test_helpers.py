"""lang.helpers: helper functions called in a task body are inlined; mistakes in them are
reported at the call, naming the helper's own line."""
import inspect

import numpy as np
import pytest

import hwgen
from hwgen import HwgenError, int32
from hwgen.check import check
from hwgen.ir.interp import run
from hwgen.ir.types import float32


def twice(x):
    """Helpers may have docstrings."""
    y: int32 = x * 2
    return y


def shifted(x, d):
    return twice(x) - d


def halve(x):
    h: float32 = x
    return h * 0.5


def looping(x):
    for _ in range(2):
        x = x + 1
    return x


def test_helpers_are_inlined_and_may_call_helpers():
    @hwgen.region
    def prog(A: int32[8], B: int32[4], C: float32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                B[i] = A[shifted(i, 0) + 1] + twice(i)
                C[i] = halve(A[i])

    A = np.arange(8) * 10
    out = run(check(prog.graph()), {"A": A})
    i = np.arange(4)
    assert np.array_equal(out["B"], A[2 * i + 1] + 2 * i)
    assert np.array_equal(out["C"], (A[:4] * 0.5).astype(np.float32).view(np.uint32))


def test_a_mistake_in_a_helper_names_the_call_and_the_helper_line():
    @hwgen.region
    def prog(A: int32[4], B: int32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                B[i] = looping(A[i])

    with pytest.raises(HwgenError, match=r"in helper 'looping' \(.*test_helpers.py:(\d+)\)") as e:
        prog.graph()
    assert f"test_helpers.py:{inspect.getsourcelines(looping)[1] + 1}" in str(e.value)
    assert "one `return expression`" in str(e.value)


def test_wrong_argument_count():
    @hwgen.region
    def prog(A: int32[4], B: int32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                B[i] = twice(A[i], 2)

    with pytest.raises(HwgenError, match=r"helper 'twice' takes 1 argument\(s\) \(x\), called "
                                         "with 2"):
        prog.graph()
