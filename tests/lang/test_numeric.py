"""Floats in task bodies (``lang.numeric``), membership tests, floor division and modulo by
constants and a bare ``stream.get()``: lowered to the IR the interpreter runs."""
import numpy as np
import pytest

import hwgen
from hwgen import HwgenError, Stream, int8, int16, int32
from hwgen.check import check
from hwgen.ir.graph import Convert, FloatOp
from hwgen.ir.interp import run
from hwgen.ir.types import bfloat16, float16, float32


def _graph(region):
    return check(region.graph())


def test_mixed_formats_widen_and_stores_convert():
    @hwgen.region
    def mix(A: bfloat16[4], B: float32[4], C: int16[4], D: float16[4]):
        @hwgen.task
        def t():
            for i in range(4):
                x: float32 = A[i] * B[i] + 1    # bfloat16 * float32 -> float32; int 1 converted
                C[i] = -x                       # truncated toward zero
                D[i] = x / 4.0 if x > 0.5 else abs(x)

    graph = _graph(mix)
    exprs = [s.value for s in graph.instances["t"].segments[0].body]
    assert isinstance(exprs[0], FloatOp) and exprs[0].fmt == float32
    assert isinstance(exprs[1], Convert) and exprs[1].dst == int16
    a = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
    b = np.array([2.0, 0.5, -8.0, 1e3], np.float32)
    out = run(graph, {"A": a, "B": b})
    x = a * b + np.float32(1)
    assert np.array_equal(out["C"], np.trunc(-x).astype(np.int64))
    d = np.where(x > 0.5, x / np.float32(4), np.abs(x)).astype(np.float16)
    assert np.array_equal(out["D"], d.view(np.uint16).astype(np.int64))


def test_float_misuse_is_an_error_at_the_line():
    @hwgen.region
    def bad(A: float32[4], C: int32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                C[i] = A[i] << 2

    with pytest.raises(HwgenError, match="not defined on float values"):
        _graph(bad)

    @hwgen.region
    def bad_literal(A: int8[4], C: int32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                C[i] = 2.5
    with pytest.raises(HwgenError, match=r"float constant 2.5 is used as an integer"):
        _graph(bad_literal)


def test_membership_division_modulo_and_a_dropped_get():
    N = 6

    @hwgen.region
    def prog(A: int8[N], C: int32[N]):
        s = Stream[int8, 2][2]

        @hwgen.task(mapping=[2])
        def t():
            p = hwgen.get_pid()
            with hwgen.meta_if(p in {0}):
                for i in range(N):
                    s[0].put(A[i])
                    s[1].put(A[(i * 5) % N])
            with hwgen.meta_if(p not in (0,)):
                for i in range(N):
                    a: int8 = s[0].get()
                    s[1].get()
                    C[i] = a // 4 + (1 if i in {1, N - 1} else 0) - a % 3

    A = np.array([-128, -5, -1, 0, 7, 127])
    i = np.arange(N)
    want = A // 4 + np.isin(i, [1, N - 1]) - A % 3
    assert np.array_equal(run(_graph(prog), {"A": A})["C"], want)


def test_division_by_a_runtime_value_is_an_error():
    @hwgen.region
    def bad(A: int8[4], C: int32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                a: int8 = A[i]
                C[i] = 100 // a

    with pytest.raises(HwgenError, match="divided only by a positive compile-time constant"):
        _graph(bad)
