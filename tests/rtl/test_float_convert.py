"""rtl.float_convert: every conversion between integers and float formats, bit-exact with
``ir.floats.convert`` on random bit patterns (NaNs, infinities, subnormals, signed zeros, the
integers' extremes), with random stalls."""
import numpy as np
import pytest

from hwgen.ir import floats
from hwgen.ir.types import FloatType, bfloat16, float16, float32, int8, int16, int32, uint8, \
    uint16
from hwgen.rtl.float_convert import FloatConvert
from tests.rtl.test_float_units import _run

PAIRS = [(s, d) for s in (float32, bfloat16, float16) for d in (float32, bfloat16, float16)
         if s is not d] + \
        [(s, d) for s in (int8, int16, int32, uint8, uint16) for d in (float32, bfloat16, float16)] + \
        [(s, d) for s in (float32, bfloat16, float16) for d in (int8, int16, int32, uint8, uint16)]


def _values(t, n, seed):
    rng = np.random.default_rng(seed)
    edges = [0, 1, (1 << t.bits) - 1, 1 << (t.bits - 1), (1 << (t.bits - 1)) - 1]
    if isinstance(t, FloatType):
        inf = ((1 << t.exp) - 1) << t.man
        top = 1 << (t.bits - 1)
        edges += [inf, inf | top, inf | 1, floats.encode(0.5, t), floats.encode(-0.5, t),
                  floats.encode(1e6, t), floats.encode(-3.7, t), floats.encode(255.5, t)]
    return edges + [int(v) for v in rng.integers(0, 1 << t.bits, n, dtype=np.uint64)]


def _as_value(bits, t):
    """The value ``floats.convert`` takes: a float's bit pattern, or an integer."""
    if isinstance(t, FloatType) or not t.signed:
        return bits
    return bits - (1 << t.bits) if bits >> (t.bits - 1) else bits


@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{s.name}-{d.name}" for s, d in PAIRS])
def test_bit_exact_with_the_interpreter(src, dst):
    dut = FloatConvert(src, dst)
    values = _values(src, 300, src.bits * 7 + dst.bits)
    want = [floats.convert(_as_value(v, src), src if isinstance(src, FloatType) else None, dst)
            & ((1 << dst.bits) - 1) for v in values]
    got = [g & ((1 << dst.bits) - 1)
           for g in _run(dut, [(v,) for v in values], stall=True, ports=("value",))]
    bad = [(hex(v), hex(g), hex(w)) for v, g, w in zip(values, got, want) if g != w]
    assert not bad, bad[:5]
