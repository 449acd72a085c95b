"""Regions called from kernels (Allo's nested regions), regions with compile-time parameters
(``def inner[P0, P1](...)``, Python 3.12; here ``__type_params__`` set by hand, as 3.11 cannot
parse the syntax), ``ConstExpr``, string annotations, and Allo's exit on a type error."""
from typing import TypeVar

import numpy as np
import pytest

import hwgen.allo as allo
import hwgen.allo.dataflow as df
from hwgen import HwgenError
from hwgen.allo import dsl
from hwgen.allo.ir.types import ConstExpr, Stream, int8, int32
from hwgen.allo.utils import get_np_struct_type

N, CAP = 6, 2


@df.region()
def inner(X: int8[N], Y: int32[N]):
    s: Stream[int32, CAP]
    F: ConstExpr[int32] = P * 10

    @df.kernel(mapping=[1], args=[X])
    def produce(x: "int8[N]"):
        for i in dsl.grid(N):
            s.put(x[i] * F)

    @df.kernel(mapping=[1], args=[Y])
    def consume(y: int32[N]):
        for i in range(N):
            y[i] = s.get() + 1


inner.fn.__type_params__ = (TypeVar("P"),)


@df.region()
def outer(A: int8[N], B: int32[N], C: int32[N]):
    @df.kernel(mapping=[2], args=[A, B, C])
    def wrapper(a: int8[N], b: int32[N], c: int32[N]):
        w = df.get_pid()
        with allo.meta_if(w == 0):
            inner[1](a, b)
        with allo.meta_else():
            inner[2](a, c)


def test_regions_called_from_kernels_join_the_program():
    A = np.arange(N, dtype=np.int8)
    B, C = np.zeros(N, np.int32), np.zeros(N, np.int32)
    df.build(outer, target="simulator")(A, B, C)
    a = A.astype(np.int32)
    assert np.array_equal(B, a * 10 + 1) and np.array_equal(C, a * 20 + 1)
    names = set(outer.graph().instances)
    assert names == {"wrapper[0].produce[0]", "wrapper[0].consume[0]",
                     "wrapper[1].produce[0]", "wrapper[1].consume[0]"}


def test_a_region_with_parameters_needs_them():
    with pytest.raises(HwgenError, match=r"has compile-time parameters \[P\]"):
        df.build(inner, target="simulator")
    with pytest.raises(HwgenError, match=r"takes compile-time parameters \[P\], given 2"):
        inner[1, 2]
    A, B = np.arange(N, dtype=np.int8), np.zeros(N, np.int32)
    df.build(inner[3], target="simulator")(A, B)
    assert np.array_equal(B, A.astype(np.int32) * 30 + 1)


@df.region()
def wrong_call(A: int8[N], B: int32[N + 1]):
    @df.kernel(mapping=[1], args=[A, B])
    def k(a: int8[N], b: int32[N + 1]):
        inner[1](a, b)


@df.region()
def keyword_call(A: int8[N], B: int32[N]):
    @df.kernel(mapping=[1], args=[A, B])
    def k(a: int8[N], b: int32[N]):
        inner[1](X=a, Y=b)


@df.region()
def scalar_param(n: int32, out: int32[1]):
    @df.kernel(mapping=[1], args=[n, out])
    def k(s: int32, o: int32[1]):
        o[0] = s


def test_wrong_calls_and_types_are_errors_at_the_line():
    with pytest.raises(HwgenError, match=r"declares 'Y' as int32\[6\], given tensor 'B'") as e:
        df.build(wrong_call, target="simulator")
    assert e.value.loc[1] == wrong_call.fn.__code__.co_firstlineno + 4   # the call
    with pytest.raises(HwgenError, match=r"takes its tensors by position: `inner\(A, B\)`"):
        df.build(keyword_call, target="simulator")
    # Allo exits on a type error (sys.exit(1)); hwgen.allo too, with the error at the line
    with pytest.raises(SystemExit) as e:
        df.build(scalar_param, target="simulator")
    assert isinstance(e.value, HwgenError) and "must be a tensor type" in str(e.value.code)


def test_allo_host_helpers():
    t = get_np_struct_type(20)
    assert t.itemsize == 3 and t.names == ("f0", "f1", "f2")
