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


def test_max_and_min_of_floats_and_literals_compare_values():
    @hwgen.region
    def clamp(A: float32[5], C: float32[5], D: float32[5]):
        @hwgen.task
        def t():
            for i in range(5):
                C[i] = min(max(A[i], -98.0), 157.0)
                D[i] = max(2.5, A[i], 7)

    a = np.array([5.0, -150.0, 300.0, 2.0, -0.0], np.float32)
    out = run(_graph(clamp), {"A": a})
    assert np.array_equal(out["C"], np.clip(a, -98, 157).view(np.uint32).astype(np.int64))
    assert np.array_equal(out["D"], np.maximum(a, 7).view(np.uint32).astype(np.int64))


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
