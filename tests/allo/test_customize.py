"""hwgen.allo.customize: Allo's schedules (directives checked, kept, warned about where hwgen
builds otherwise) and plain Allo functions run by ``allo.customize(f).build()``."""
import re

import numpy as np
import pytest

import hwgen.allo as allo
import hwgen.allo.dataflow as df
from hwgen import HwgenError, HwgenWarning
from hwgen.allo.ir.types import Stream, float32, int8, int32
from hwgen.allo.ir.utils import MockBuffer
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan

N, T = 4, 4200
TABLE = np.arange(T, dtype=np.int32) % 97


@df.region()
def scaled(A: int32[N], B: int32[N]):
    pipe: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[A])
    def load(x: int32[N]):
        buf: int32[N]
        for i in range(N):
            buf[i] = x[i] * 3
        for j in range(N):
            pipe.put(buf[j])

    @df.kernel(mapping=[1], args=[B])
    def store(y: int32[N]):
        table: int32[T] = TABLE
        for i in range(N):
            y[i] = pipe.get() + table[i * 1000 + 7]


def test_directives_are_checked_kept_and_the_program_runs():
    s = df.customize(scaled)
    s.pipeline("load_0:j")
    with pytest.warns(HwgenWarning, match="does not unroll"):
        s.unroll("load_0:i", factor=2)
    with pytest.warns(HwgenWarning, match="not applied"):
        s.partition(MockBuffer("load_0", "buf"), dim=0, partition_type=2, factor=2)
    assert "directive unroll('load_0:i', factor=2)" in s.module
    A, B = np.arange(N, dtype=np.int32), np.zeros(N, np.int32)
    s.build(target="simulator")(A, B)
    assert np.array_equal(B, A * 3 + TABLE[np.arange(N) * 1000 + 7])


@pytest.mark.parametrize("directive,words", [
    (lambda s: s.pipeline("load_0:k"), "no loop 'k' in 'load_0'"),
    (lambda s: s.unroll("loader_0:i"), "no loop 'i' in 'loader_0'"),
    (lambda s: s.partition(MockBuffer("load_0", "nothing")), "has no local array 'nothing'"),
    (lambda s: s.partition(MockBuffer("load_9", "buf")), "no kernel instance 'load_9'"),
])
def test_wrong_directives_name_what_exists(directive, words):
    with pytest.raises(HwgenError, match=words):
        directive(df.customize(scaled))


def test_a_large_table_is_a_read_only_memory_in_hardware():
    top = Top(plan(scaled.graph()))
    A = np.array([5, -2, 0, 7], np.int32)
    outs, cycles, _ = run_top(top, [{"A": A}])
    assert cycles[0] == top.expected_cycles
    assert np.array_equal(outs[0]["B"], A * 3 + TABLE[np.arange(N) * 1000 + 7])


IR, FR = 5, 3
OR = IR - FR + 1


def conv1d(A: float32[IR], B: float32[FR]) -> float32[OR]:
    C: float32[OR] = 0
    for x in range(OR):
        v: float32 = 0
        for r, in allo.reduction(FR):
            v += A[x + r] * B[r]
        C[x] = v
    return C


def test_a_plain_function_runs_and_returns_its_result():
    mod = allo.customize(conv1d).build()
    A = np.arange(IR, dtype=np.float32)
    B = np.array([1, -2, 0.5], np.float32)
    C = mod(A, B)
    assert C.dtype == np.float32
    assert np.allclose(C, np.convolve(A, B[::-1], "valid"))


def no_return(A: int32[4]):
    for i in range(4):
        A[i] = 0


def two_returns(A: int32[4]) -> int32[4]:
    return A
    return A


@pytest.mark.parametrize("fn,words", [(no_return, "returns a tensor it declares"),
                                      (two_returns, "end the function with one `return C`"),
                                      (42, "takes a @df.region() or a typed Allo function")])
def test_functions_that_cannot_run_are_clear_errors(fn, words):
    with pytest.raises(HwgenError, match=re.escape(words)):
        allo.customize(fn)


def named_result(A: int32[4]) -> int32[4]:
    result: int32[4] = 0
    for i in range(4):
        result[i] = A[i] * 2
    return result


def test_a_local_named_like_the_result_tensor_is_fine():
    A = np.arange(4, dtype=np.int32)
    assert np.array_equal(allo.customize(named_result).build()(A), A * 2)


def test_a_partition_names_its_array_with_a_mock_buffer():
    with pytest.raises(HwgenError, match=re.escape("name the array with MockBuffer(")):
        df.customize(scaled).partition("load_0:buf")
    with pytest.warns(HwgenWarning, match="starts an iteration every clock"):
        df.customize(scaled).pipeline("load_0:j", ii=2)


def test_a_table_holds_values_of_its_type():
    @df.region()
    def wide(A: int32[N], B: int32[N]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(a: int32[N], b: int32[N]):
            table: int8[T] = TABLE * 2       # up to 192: not an int8
            for i in range(N):
                b[i] = a[i] + table[i]

    with pytest.raises(HwgenError, match="the constant 128 does not fit 'table' of type int8"):
        df.build(wide, target="simulator")
