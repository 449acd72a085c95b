"""IEEE-754 floating point on bit patterns: the one definition of what a float operation
computes, for the interpreter and the hardware (``rtl.float_*``) to agree on.

Float values travel through the task graph as their bit patterns (an unsigned integer of the
format's width), so streams, tensors, locals and the host contract carry them unchanged; only
``FloatOp`` and ``Convert`` nodes look inside. Every operation is rounded to nearest, ties to
even, with subnormals kept (never flushed). A NaN result is the positive quiet NaN of its
format (``0x7FC00000`` for float32): NaN payloads are not propagated. A float converted to an
integer is truncated toward zero and saturated to the integer type; NaN becomes 0.

Arithmetic is computed in float64 and rounded once (twice for bfloat16: float64 -> float32 ->
bfloat16). For ``+ - * /`` on operands of precision p, float64 (53 bits) and float32 (24 bits)
both have at least 2p + 2 bits, so these double roundings equal a single correct rounding.
"""
import numpy as np

from .types import FloatType, float16, float32 as FLOAT32

COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
           ">": np.greater, ">=": np.greater_equal}
ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


def quiet_nan(fmt):
    """The NaN every operation returns: sign 0, exponent all ones, top fraction bit set."""
    return ((1 << fmt.exp) - 1) << fmt.man | 1 << (fmt.man - 1)


def decode(bits, fmt):
    """The float64 value of bit pattern ``bits`` (exact: every format here fits float64)."""
    bits = int(bits) & ((1 << fmt.bits) - 1)
    if fmt.bits == 16 and fmt == float16:
        return float(np.array(bits, np.uint16).view(np.float16))
    return float(np.array(bits << (32 - fmt.bits), np.uint32).view(np.float32))


def encode(value, fmt):
    """The bit pattern of float64 ``value`` rounded to ``fmt`` (nearest, ties to even)."""
    value = np.float64(value)
    if np.isnan(value):
        return quiet_nan(fmt)
    with np.errstate(all="ignore"):
        if fmt == float16:
            return int(np.array(value, np.float16).view(np.uint16))
        bits = int(np.array(value, np.float32).view(np.uint32))
    drop = 32 - fmt.bits                    # bfloat16: round float32 to its top half
    if drop:
        bits = (bits + (1 << (drop - 1)) - 1 + ((bits >> drop) & 1)) >> drop
    return bits


def _round_int(value, precision):
    """Integer ``value`` rounded to ``precision`` significant bits, ties to even (exact, so
    that ``float()`` of the result does not round a second time)."""
    drop = abs(value).bit_length() - precision
    if drop <= 0:
        return value
    mag, half = abs(value), 1 << (drop - 1)
    kept, rest = mag >> drop, mag & ((1 << drop) - 1)
    if rest > half or (rest == half and kept & 1):
        kept += 1
    return (kept << drop) * (1 if value >= 0 else -1)


def operate(op, a, b, fmt):
    """``a op b`` on bit patterns of ``fmt``: a bit pattern, or 0/1 for a comparison."""
    x, y = np.float64(decode(a, fmt)), np.float64(decode(b, fmt))
    with np.errstate(all="ignore"):
        if op in COMPARE:
            return int(COMPARE[op](x, y))
        return encode(ARITH[op](x, y), fmt)


def negate(a, fmt):
    """``-a``: the sign bit flipped (exact, also for zeros and NaNs)."""
    return (int(a) ^ (1 << (fmt.bits - 1))) & ((1 << fmt.bits) - 1)


def evaluate(op, a, b, fmt):
    """A ``FloatOp``'s value: ``neg`` and ``abs`` (``b`` None) on the sign bit, else
    ``operate``."""
    if op == "neg":
        return negate(a, fmt)
    if op == "abs":
        return int(a) & ((1 << (fmt.bits - 1)) - 1)
    if op == "exp":
        return exp(a)
    return operate(op, a, b, fmt)


# ``exp``: fixed point with EXP_BITS fraction bits; log2(e) scaled by 2^LOG2E_BITS; the
# coefficients of 2^r - 1 ~ r (C1 + r (C2 + r C3)) on [0, 1) (least squares on the relative
# error of 2^r), scaled by 2^EXP_BITS.
EXP_BITS = 16
LOG2E_BITS = 24
LOG2E = 24204406
EXP_POLY = (45550, 14962, 5002)


def exp(bits):
    """e^x of float32 ``bits``, a documented approximation (relative error below 2.5e-4;
    results below the smallest normal are +0) that hardware (``rtl.float_exp``) computes
    identically: x truncated to fixed point with 16 fraction bits, times log2(e), split into
    an integer n and a fraction r, 2^r from a cubic in integer arithmetic (each product
    truncated), and n as the exponent. NaN gives NaN; |x| >= 128 gives inf or +0."""
    bits = int(bits)
    sign, e, frac = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    if e == 0xFF and frac:
        return quiet_nan(FLOAT32)
    if e - 127 >= 7:
        return 0 if sign else 0xFF << 23
    sig = frac | (1 << 23) if e else frac
    mag = sig >> (7 - (e - 127)) if e else 0
    t = ((-mag if sign else mag) * LOG2E) >> LOG2E_BITS
    n, r = t >> EXP_BITS, t & ((1 << EXP_BITS) - 1)
    c1, c2, c3 = EXP_POLY
    u = (c3 * r) >> EXP_BITS
    u = ((c2 + u) * r) >> EXP_BITS
    u = min(((c1 + u) * r) >> EXP_BITS, (1 << EXP_BITS) - 1)
    biased = n + 127
    if biased >= 0xFF:
        return 0xFF << 23
    if biased <= 0:
        return 0
    return biased << 23 | u << (23 - EXP_BITS)


def convert(value, src, dst):
    """``value`` of type ``src`` (a ``FloatType``, or None for an integer) as type ``dst``."""
    if src is None:
        return encode(float(_round_int(int(value), dst.man + 1)), dst) \
            if isinstance(dst, FloatType) else value
    x = decode(value, src)
    if isinstance(dst, FloatType):
        return encode(x, dst)
    if np.isnan(x):
        return 0
    if np.isinf(x):
        return dst.max if x > 0 else dst.min
    return min(max(int(x), dst.min), dst.max)


def to_bits(array, fmt):
    """A numpy array of float values -> int64 bit patterns of ``fmt``."""
    a = np.asarray(array, dtype=np.float64)
    if fmt == float16:
        return a.astype(np.float16).view(np.uint16).astype(np.int64)
    flat = [encode(v, fmt) for v in a.ravel()] if fmt.bits != 32 else \
        a.astype(np.float32).view(np.uint32).astype(np.int64).ravel()
    out = np.array(flat, dtype=np.int64).reshape(a.shape)
    if fmt.bits == 32:      # canonical NaN, as every operation returns
        out[np.isnan(a)] = quiet_nan(fmt)
    return out


def from_bits(bits, fmt):
    """int64 bit patterns of ``fmt`` -> a numpy float32 array (float16 for float16)."""
    b = np.asarray(bits, dtype=np.int64)
    if fmt == float16:
        return (b & 0xFFFF).astype(np.uint16).view(np.float16)
    return ((b << (32 - fmt.bits)) & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
