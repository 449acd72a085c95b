"""Pipelined IEEE-754 multiply and add in Amaranth, bit-exact with ``ir.floats``: round to
nearest, ties to even; subnormal operands and results kept; any NaN result is the format's
positive quiet NaN.

Both units take a new pair of operands every enabled clock and give its result ``LATENCY``
enabled clocks later (``en`` low freezes every stage, as the datapath stalls). The stages:

- multiply: decode (hidden bits, exponent sum, special cases) | significand product (a DSP
  block's own multiplier) | leading-zero count and the normalising shift | round and pack;
- add: decode and order by magnitude | align the smaller significand (sticky bit) | add or
  subtract | normalise | round and pack.

Formats are ``ir.types.FloatType`` (float32, bfloat16, float16).
"""
from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..schedule.levels import FLOAT_STAGES


class _Format:
    """Field widths and constants of a float format."""

    def __init__(self, fmt):
        self.e, self.m = fmt.exp, fmt.man
        self.p = self.m + 1                                 # significand bits, hidden one too
        self.bias = (1 << (self.e - 1)) - 1
        self.emax = (1 << self.e) - 1                       # the inf/NaN exponent
        self.inf = self.emax << self.m                      # magnitude of infinity
        self.nan = self.inf | 1 << (self.m - 1)             # the quiet NaN every op returns

    def decode(self, x):
        """``(sign, exponent, fraction, significand, effective exponent, nan, inf, zero)``."""
        frac, exp, sign = x[:self.m], x[self.m:self.m + self.e], x[-1]
        normal = exp != 0
        return dict(sign=sign, mag=x[:-1], sig=Cat(frac, normal), exp=Mux(normal, exp, 1),
                    nan=(exp == self.emax) & (frac != 0), inf=(exp == self.emax) & (frac == 0),
                    zero=~normal & (frac == 0))


def _leading_zeros(m, value, name):
    """Leading zeros of ``value`` (its width when it is zero), as a priority encoder."""
    width = len(value)
    lz = Signal(range(width + 1), name=name)
    m.d.comb += lz.eq(width)
    for i in range(width):              # the highest set bit assigns last and wins
        with m.If(value[i]):
            m.d.comb += lz.eq(width - 1 - i)
    return lz


def _round_pack(m, f, sig, guard, sticky, exp, name):
    """The magnitude of a result: ``sig`` (``f.p`` bits, hidden bit on top when normal) with
    biased exponent ``exp`` (0 for a subnormal), rounded to nearest even on the bits below
    (``guard``, ``sticky``), infinity on overflow. Rounding carries from the fraction into the
    exponent, which also turns the largest subnormal into the smallest normal."""
    up = guard & (sticky | sig[0])
    packed = Signal(f.e + f.m + 1, name=f"{name}_packed")
    m.d.comb += packed.eq(Cat(sig[:f.m], exp[:f.e]) + up)
    over = (exp >= f.emax) | (packed >= f.inf)
    return Mux(over, f.inf, packed[:f.e + f.m])


class FloatMultiplier(wiring.Component):
    """``result = a * b`` in format ``fmt``, ``LATENCY`` enabled clocks after the operands."""

    LATENCY = FLOAT_STAGES["*"]

    def __init__(self, fmt):
        self.fmt = fmt
        super().__init__({"a": In(fmt.bits), "b": In(fmt.bits), "en": In(1),
                          "result": Out(fmt.bits)})

    def elaborate(self, platform):
        m, f = Module(), _Format(self.fmt)
        a, b = f.decode(self.a), f.decode(self.b)
        stage = _Stages(m, self.en)
        nan = a["nan"] | b["nan"] | (a["inf"] & b["zero"]) | (b["inf"] & a["zero"])
        # 1: decoded operands; the exponent the product has when its top bit is set.
        s1 = stage.next(sig_a=a["sig"], sig_b=b["sig"], sign=a["sign"] ^ b["sign"], nan=nan,
                        inf=~nan & (a["inf"] | b["inf"]), zero=~nan & (a["zero"] | b["zero"]),
                        exp=(a["exp"] + b["exp"] - f.bias + 1).as_signed())
        # 2: the significand product, 2p bits.
        s2 = stage.next(prod=s1.sig_a * s1.sig_b, **s1.keep("sign", "nan", "inf", "zero", "exp"))
        # 3: normalise: shift left by the leading zeros, but not below the smallest exponent
        # (a subnormal result); shift right (collecting a sticky bit) when even that is too small.
        lz = _leading_zeros(m, s2.prod, "mul_lz")
        shift = Signal(signed(len(s2.exp) + 1), name="mul_shift")
        m.d.comb += shift.eq(Mux(lz < s2.exp - 1, lz, s2.exp - 1))
        width = 2 * f.p
        left_by, right_by = Signal(range(width + 1)), Signal(range(width + 1))
        m.d.comb += [left_by.eq(Mux(shift >= 0, shift, 0)),
                     right_by.eq(Mux(shift >= 0, 0, Mux(-shift > width, width, -shift)))]
        left = (s2.prod << left_by)[:width]
        wide = Cat(Const(0, width), s2.prod) >> right_by
        shifted = Mux(shift >= 0, left, wide[width:])
        lost = Mux(shift >= 0, 0, wide[:width] != 0)
        exp = Mux(shifted[-1], s2.exp - shift, 0)
        s3 = stage.next(sig=shifted[f.p:], guard=shifted[f.p - 1],
                        sticky=(shifted[:f.p - 1] != 0) | lost,
                        exp=Mux(exp >= f.emax, f.emax, exp)[:f.e + 1],
                        **s2.keep("sign", "nan", "inf", "zero"))
        # 4: round and pack, or the special result.
        mag = _round_pack(m, f, s3.sig, s3.guard, s3.sticky, s3.exp, "mul")
        mag = Mux(s3.inf, f.inf, Mux(s3.zero, 0, mag))
        s4 = stage.next(result=Mux(s3.nan, f.nan, Cat(mag, s3.sign)))
        m.d.comb += self.result.eq(s4.result)
        assert stage.count == self.LATENCY
        return m


class FloatAdder(wiring.Component):
    """``result = a + b`` (``a - b`` with ``subtract``, fixed at build time) in format
    ``fmt``, ``LATENCY`` enabled clocks after the operands."""

    LATENCY = FLOAT_STAGES["+"]

    def __init__(self, fmt, subtract=False):
        self.fmt, self.subtract = fmt, subtract
        super().__init__({"a": In(fmt.bits), "b": In(fmt.bits), "en": In(1),
                          "result": Out(fmt.bits)})

    def elaborate(self, platform):
        m, f = Module(), _Format(self.fmt)
        b_bits = Cat(self.b[:-1], self.b[-1] ^ int(self.subtract))
        a, b = f.decode(self.a), f.decode(b_bits)
        stage = _Stages(m, self.en)
        swap = b["mag"] > a["mag"]
        big = {k: Mux(swap, b[k], a[k]) for k in ("sign", "sig", "exp")}
        small = {k: Mux(swap, a[k], b[k]) for k in ("sig", "exp")}
        nan = a["nan"] | b["nan"] | (a["inf"] & b["inf"] & (a["sign"] != b["sign"]))
        # 1: ordered by magnitude; specials decided.
        s1 = stage.next(big_sig=big["sig"], big_exp=big["exp"], sign=big["sign"],
                        small_sig=small["sig"], diff=big["exp"] - small["exp"],
                        sub=a["sign"] != b["sign"], nan=nan, inf=~nan & (a["inf"] | b["inf"]),
                        inf_sign=Mux(a["inf"], a["sign"], b["sign"]),
                        zeros=a["zero"] & b["zero"], zeros_sign=a["sign"] & b["sign"])
        # 2: the smaller significand aligned, three bits below the ulp (guard, round, sticky).
        p3 = f.p + 3
        by = Signal(range(p3 + 1), name="add_align")
        m.d.comb += by.eq(Mux(s1.diff > p3, p3, s1.diff))
        wide = Cat(Const(0, p3), s1.small_sig) >> by
        aligned = Cat(wide[f.p:f.p + 1] | (wide[:f.p] != 0), wide[f.p + 1:f.p + p3])
        flags = ("sign", "sub", "nan", "inf", "inf_sign", "zeros", "zeros_sign")
        s2 = stage.next(big=Cat(Const(0, 3), s1.big_sig), small=aligned,
                        **s1.keep("big_exp", *flags))
        # 3: sum or difference (never negative: |big| >= |small|), p + 4 bits.
        total = Mux(s2.sub, s2.big - s2.small, s2.big + s2.small)[:p3 + 1]
        s3 = stage.next(total=total, **s2.keep("big_exp", *flags))
        # 4: normalise: a carry shifts right once; cancellation shifts left, not below the
        # smallest exponent.
        lz = _leading_zeros(m, s3.total[:p3], "add_lz")
        carry = s3.total[p3]
        shift = Signal(range(p3 + 1), name="add_shift")
        m.d.comb += shift.eq(Mux(lz < s3.big_exp - 1, lz, s3.big_exp - 1))
        norm = Mux(carry, Cat(s3.total[0] | s3.total[1], s3.total[2:]),
                   (s3.total << shift)[:p3])
        exp = Mux(carry, s3.big_exp + 1, Mux(norm[p3 - 1], s3.big_exp - shift, 0))
        s4 = stage.next(sig=norm[3:], guard=norm[2], sticky=norm[1] | norm[0],
                        exp=exp[:f.e + 1], exact_zero=s3.total == 0, **s3.keep(*flags))
        # 5: round and pack, or the special result (an exact zero is +0 unless both were -0).
        mag = _round_pack(m, f, s4.sig, s4.guard, s4.sticky, s4.exp, "add")
        result = Mux(s4.exact_zero, Cat(Const(0, f.e + f.m), s4.zeros & s4.zeros_sign),
                     Cat(mag, s4.sign))
        result = Mux(s4.inf, Cat(Const(f.inf, f.e + f.m), s4.inf_sign), result)
        s5 = stage.next(result=Mux(s4.nan, f.nan, result))
        m.d.comb += self.result.eq(s5.result)
        assert stage.count == self.LATENCY
        return m


def float_compare(op, a, b, fmt):
    """``a op b`` (``ir.floats.COMPARE``) on bit patterns of ``fmt``, as logic: IEEE order,
    ``-0 == +0``, and every comparison with a NaN false except ``!=``."""
    f = _Format(fmt)
    x, y = f.decode(a), f.decode(b)
    nan = x["nan"] | y["nan"]
    zeros = x["zero"] & y["zero"]
    top = 1 << (fmt.bits - 1)

    def key(v, d):              # unsigned order of a non-NaN value
        return Mux(d["sign"], ~v, v | top)[:fmt.bits]
    eq = ~nan & (zeros | (a == b))
    lt = ~nan & ~zeros & (key(a, x) < key(b, y))
    gt = ~nan & ~zeros & (key(a, x) > key(b, y))
    return {"==": eq, "!=": ~eq, "<": lt, "<=": lt | eq, ">": gt, ">=": gt | eq}[op]


class _Stages:
    """Pipeline registers, one stage at a time, each enabled by ``en``."""

    def __init__(self, m, en):
        self.m, self.en, self.count = m, en, 0

    def next(self, **values):
        self.count += 1
        regs = {}
        for name, value in values.items():
            value = Const(value) if isinstance(value, int) else value
            reg = Signal(value.shape(), name=f"s{self.count}_{name}")
            with self.m.If(self.en):
                self.m.d.sync += reg.eq(value)
            regs[name] = reg
        return _Stage(regs)


class _Stage:
    def __init__(self, regs):
        self.__dict__.update(regs)
        self._names = list(regs)

    def keep(self, *names):
        """These registers, to carry into the next stage unchanged."""
        return {n: getattr(self, n) for n in names}


__all__ = ["FloatMultiplier", "FloatAdder"]
