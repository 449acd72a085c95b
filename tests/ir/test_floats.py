"""ir.floats: IEEE-754 arithmetic on bit patterns, bit-exact with numpy (float32, float16) and
with an exact rational rounding (bfloat16, integer conversions)."""
from fractions import Fraction

import numpy as np
import pytest

from hwgen.ir import floats
from hwgen.ir.types import bfloat16, float16, float32, int8, int32

SPECIALS32 = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x807FFFFF,
              0x3F800000, 0x7F7FFFFF, 0x00800000]


def _numpy_bits(value, np_float, np_uint, fmt):
    if np.isnan(value):
        return floats.quiet_nan(fmt)
    return int(np.array(value, np_float).view(np_uint))


@pytest.mark.parametrize("fmt,np_float,np_uint", [(float32, np.float32, np.uint32),
                                                  (float16, np.float16, np.uint16)])
def test_arithmetic_equals_numpy(fmt, np_float, np_uint):
    rng = np.random.default_rng(5)
    values = [int(v) for v in rng.integers(0, 1 << fmt.bits, 3000)]
    values += SPECIALS32 if fmt is float32 else [0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 1, 0x3C00]
    pairs = list(zip(values, values[1:] + values[:1])) + [(a, b) for a in values[-8:]
                                                           for b in values[-8:]]
    ops = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}
    for a, b in pairs:
        x, y = (np.array(v, np_uint).view(np_float) for v in (a, b))
        for op, fn in ops.items():
            with np.errstate(all="ignore"):
                want = _numpy_bits(fn(x, y), np_float, np_uint, fmt)
            assert floats.operate(op, a, b, fmt) == want, (op, hex(a), hex(b))
        with np.errstate(all="ignore"):
            assert floats.operate("<", a, b, fmt) == int(x < y)
            assert floats.operate("==", a, b, fmt) == int(x == y)


def _round_exact(q, fmt):
    """Fraction ``q`` rounded to ``fmt``'s bit pattern, nearest even, by exact arithmetic
    (normal and subnormal results; the test keeps away from overflow)."""
    if q == 0:
        return 0
    sign, q = (1 << (fmt.bits - 1) if q < 0 else 0), abs(q)
    bias = (1 << (fmt.exp - 1)) - 1
    e = max(q.numerator.bit_length() - q.denominator.bit_length() + 1, 2 - bias)
    while e > 2 - bias and q < Fraction(2) ** (e - 1):
        e -= 1
    while q >= Fraction(2) ** e:
        e += 1
    scaled = q / Fraction(2) ** (e - 1 - fmt.man)     # significand in units of an ulp
    kept = scaled.numerator // scaled.denominator
    rest = scaled - kept
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and kept & 1):
        kept += 1
    if kept >> (fmt.man + 1):
        kept, e = kept >> 1, e + 1
    biased = e - 1 + bias if kept >> fmt.man else 0
    return sign | biased << fmt.man | (kept & ((1 << fmt.man) - 1))


def test_bfloat16_equals_exact_rounding():
    rng = np.random.default_rng(6)
    for _ in range(3000):
        a, b = (int(rng.integers(0, 0x7F00)) | int(rng.integers(0, 2)) << 15 for _ in range(2))
        x, y = (Fraction(floats.decode(v, bfloat16)) for v in (a, b))
        if abs(x * y) < Fraction(2) ** 127 and x * y != 0:
            assert floats.operate("*", a, b, bfloat16) == _round_exact(x * y, bfloat16)
        if abs(x + y) < Fraction(2) ** 127 and x + y != 0:
            assert floats.operate("+", a, b, bfloat16) == _round_exact(x + y, bfloat16)


def test_integer_to_float_rounds_once():
    for v in (0, 1, -7, 2 ** 24 + 1, 2 ** 60 + 2 ** 36 + 1, -(2 ** 53 + 3), 2 ** 63 - 1):
        want = _round_exact(Fraction(v), float32) if v else 0
        assert floats.convert(v, None, float32) == want, v
    assert floats.convert(3, None, bfloat16) == 0x4040


def test_float_to_integer_truncates_and_saturates():
    bits = lambda x: floats.encode(x, float32)    # noqa: E731
    assert floats.convert(bits(-3.7), float32, int8) == -3
    assert floats.convert(bits(3.99), float32, int32) == 3
    assert floats.convert(bits(1e9), float32, int8) == 127
    assert floats.convert(bits(float("-inf")), float32, int8) == -128
    assert floats.convert(floats.quiet_nan(float32), float32, int32) == 0
    assert floats.convert(bits(1.0), float32, bfloat16) == 0x3F80
    assert floats.negate(0, float32) == 0x80000000


def test_arrays_round_trip():
    a = np.array([[1.5, -0.0, np.inf], [np.nan, 1e-40, 3.0]], np.float32)
    for fmt in (float32, float16, bfloat16):
        back = floats.from_bits(floats.to_bits(a, fmt), fmt)
        assert back.shape == a.shape
        assert np.array_equal(back[0, :2], a[0, :2]) and np.isnan(back[1, 0])
    assert floats.to_bits(np.array([np.nan]), float32)[0] == floats.quiet_nan(float32)
