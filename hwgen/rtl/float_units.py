"""Pipelined IEEE-754 multiply and add in Amaranth, bit-exact with ``ir.floats``: round to
nearest, ties to even; subnormal operands and results kept; any NaN result is the format's
positive quiet NaN.

Both units take a new pair of operands every enabled clock and give its result ``LATENCY``
enabled clocks later (``en`` low freezes every stage, as the datapath stalls). The stages:

- multiply: decode (hidden bits, exponent sum, special cases) | partial products (DSP
  blocks) | their sum | leading and trailing zeros of the product | the shift amount (and the
  sticky bit, from the trailing zeros) | the normalising shift | round and pack;
- add: decode, order by magnitude, trailing zeros of the smaller significand | align it (the
  sticky bit from its trailing zeros) | add or subtract | leading zeros | normalise | round
  and pack.

The stage counts are ``schedule.levels.FLOAT_STAGES``.

Formats are ``ir.types.FloatType`` (float32, bfloat16, float16).
"""
from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..schedule.levels import FLOAT_STAGES, float_stages


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
        """The fields of bit pattern ``x``: ``sign``, ``mag`` (all but the sign), ``sig`` (the
        significand with its hidden bit), ``exp`` (the effective exponent: 1 for a subnormal)
        and the flags ``nan``, ``inf``, ``zero``."""
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


def _trailing_zeros(m, value, name):
    """Trailing zeros of ``value`` (its width when it is zero), as a priority encoder."""
    width = len(value)
    tz = Signal(range(width + 1), name=name)
    m.d.comb += tz.eq(width)
    for i in reversed(range(width)):    # the lowest set bit assigns last and wins
        with m.If(value[i]):
            m.d.comb += tz.eq(i)
    return tz


def _align(m, diff, limit, name):
    """``diff`` (an exponent difference) clamped to 0..``limit``: how far to shift."""
    by = Signal(range(limit + 1), name=name)
    m.d.comb += by.eq(Mux(diff.as_signed() < 0, 0, Mux(diff > limit, limit, diff)))
    return by


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
    """``result = a * b`` in format ``fmt``, ``LATENCY`` enabled clocks after the operands.
    ``narrow``: how many top bits of each significand can be non-zero (8 for bfloat16 values
    widened to float32): the product is then one small multiply, exact, and one DSP block."""

    LATENCY = FLOAT_STAGES["*"]

    def __init__(self, fmt, narrow=None):
        self.fmt, self.narrow = fmt, narrow
        super().__init__({"a": In(fmt.bits), "b": In(fmt.bits), "en": In(1),
                          "result": Out(fmt.bits)})

    def elaborate(self, platform):
        m, f = Module(), _Format(self.fmt)
        a, b = f.decode(self.a), f.decode(self.b)
        stage = _Stages(m, self.en)
        nan = a["nan"] | b["nan"] | (a["inf"] & b["zero"]) | (b["inf"] & a["zero"])
        # 1: decoded operands; the exponent the product has when its top bit is set.
        width = 2 * f.p
        s1 = stage.next(sig_a=a["sig"], sig_b=b["sig"], sign=a["sign"] ^ b["sign"], nan=nan,
                        inf=~nan & (a["inf"] | b["inf"]), zero=~nan & (a["zero"] | b["zero"]),
                        exp=(a["exp"] + b["exp"] - f.bias + 1).as_signed())
        # 2, 3: the significand product, 2p bits: from four partial products where the
        # significand is wider than a DSP block's operand (float32), so that no path crosses
        # the blocks and the adders after them in one cycle. Meanwhile, how far right a product
        # below the smallest exponent must shift (a subnormal result).
        flags = dict(s1.keep("sign", "nan", "inf", "zero", "exp"),
                     **_under(m, s1.exp, width, "mul"))
        if self.narrow:
            low = f.p - self.narrow
            s2 = stage.next(prod=s1.sig_a[low:] * s1.sig_b[low:], **flags)
            prod = s2.prod << 2 * low
        elif f.p > 18:
            h = (f.p + 1) // 2
            lo_a, hi_a, lo_b, hi_b = s1.sig_a[:h], s1.sig_a[h:], s1.sig_b[:h], s1.sig_b[h:]
            s2 = stage.next(ll=lo_a * lo_b, lh=lo_a * hi_b, hl=hi_a * lo_b, hh=hi_a * hi_b,
                            **flags)
            prod = s2.ll + ((s2.lh + s2.hl) << h) + (s2.hh << 2 * h)
        else:
            s2 = stage.next(prod=s1.sig_a * s1.sig_b, **flags)
            prod = s2.prod
        s3 = stage.next(prod=prod[:width], **s2.keep(*flags))
        m.d.comb += self.result.eq(_finish(m, f, stage, s3, "mul"))
        assert stage.count == self.LATENCY
        return m


def _under(m, exp, width, name):
    """The flags of a result whose exponent (when its top bit is set) is ``exp``: whether it
    is below the smallest exponent (a subnormal), and how far right it must shift."""
    right_by = Signal(range(width + 1), name=f"{name}_right")
    m.d.comb += right_by.eq(Mux(exp < 1, Mux(1 - exp > width, width, 1 - exp), 0))
    return dict(under=exp < 1, right_by=right_by)


def _finish(m, f, stage, s, name):
    """Four more stages from ``s``: ``prod`` (the exact significand, at least p + 2 bits,
    any bit below them folded into its lowest one), ``exp`` (its exponent when its top bit is
    set) with ``under`` and ``right_by`` (``_under``), ``sign``, and the special flags
    ``nan``, ``inf``, ``zero``: normalised, rounded to nearest even and packed."""
    width = len(s.prod)
    low = width - f.p                   # bits below the result's significand
    flags = ("sign", "nan", "inf", "zero", "exp", "under", "right_by")
    # 1: leading and trailing zeros.
    s4 = stage.next(lz=_leading_zeros(m, s.prod, f"{name}_lz"),
                    tz=_trailing_zeros(m, s.prod, f"{name}_tz"), **s.keep("prod", *flags))
    # 2: the normalising shift: left by the leading zeros, but not below the smallest
    # exponent; right (exponent below 1) by how far it is below.
    left_by = Signal(range(width + 1), name=f"{name}_left")
    m.d.comb += left_by.eq(Mux(s4.under, 0, Mux(s4.lz < s4.exp - 1, s4.lz, s4.exp - 1)))
    shift = Mux(s4.under, s4.exp - 1, left_by)
    normal = ~s4.under & (s4.lz < s4.exp) & (s4.lz < width)    # the top bit lands
    s5 = stage.next(left_by=left_by, shift=shift, normal=normal,
                    **s4.keep("prod", "tz", "right_by", "under", "sign", "nan", "inf",
                              "zero", "exp"))
    # 3: shift; the trailing zeros say whether any one bit ends up below the guard bit.
    shifted = Mux(s5.under, s5.prod >> s5.right_by, (s5.prod << s5.left_by)[:width])
    exp = Mux(s5.normal, s5.exp - s5.shift, 0)
    s6 = stage.next(sig=shifted[low:], guard=shifted[low - 1],
                    sticky=s5.tz < low - 1 - s5.shift,
                    exp=Mux(exp >= f.emax, f.emax, exp)[:f.e + 1],
                    **s5.keep("sign", "nan", "inf", "zero"))
    # 4: round and pack, or the special result.
    mag = _round_pack(m, f, s6.sig, s6.guard, s6.sticky, s6.exp, name)
    mag = Mux(s6.inf, f.inf, Mux(s6.zero, 0, mag))
    s7 = stage.next(result=Mux(s6.nan, f.nan, Cat(mag, s6.sign)))
    return s7.result


class FloatDivider(wiring.Component):
    """``result = a / b`` in format ``fmt``, ``latency(fmt)`` enabled clocks after the
    operands: both significands normalised, a restoring division of one quotient bit per stage
    (p + 2 bits, the remainder a sticky bit), then ``_finish``."""

    def __init__(self, fmt):
        self.fmt = fmt
        self.LATENCY = float_stages("/", fmt)
        super().__init__({"a": In(fmt.bits), "b": In(fmt.bits), "en": In(1),
                          "result": Out(fmt.bits)})

    def elaborate(self, platform):
        m, f = Module(), _Format(self.fmt)
        a, b = f.decode(self.a), f.decode(self.b)
        stage = _Stages(m, self.en)
        nan = a["nan"] | b["nan"] | (a["zero"] & b["zero"]) | (a["inf"] & b["inf"])
        # 1: decoded; the leading zeros of subnormal significands.
        s1 = stage.next(sig_a=a["sig"], sig_b=b["sig"], exp_a=a["exp"], exp_b=b["exp"],
                        lz_a=_leading_zeros(m, a["sig"], "div_lz_a"),
                        lz_b=_leading_zeros(m, b["sig"], "div_lz_b"),
                        sign=a["sign"] ^ b["sign"], nan=nan,
                        inf=~nan & (a["inf"] | b["zero"]), zero=~nan & (a["zero"] | b["inf"]))
        # 2: normalised significands; the quotient's exponent when its top bit is set.
        exp = (s1.exp_a - s1.lz_a - s1.exp_b + s1.lz_b + f.bias).as_signed()
        flags = ("sign", "nan", "inf", "zero")
        s2 = stage.next(rem=(s1.sig_a << s1.lz_a)[:f.p], div=(s1.sig_b << s1.lz_b)[:f.p],
                        quo=Const(0, f.p + 2), exp=exp, **s1.keep(*flags))
        # 3 ...: one quotient bit per stage, highest first.
        s = s2
        for _ in range(f.p + 2):
            fits = s.rem >= s.div
            rest = Mux(fits, s.rem - s.div, s.rem)[:f.p + 1]
            s = stage.next(rem=Cat(Const(0, 1), rest)[:f.p + 1], div=s.div,
                           quo=Cat(fits, s.quo)[:f.p + 2], exp=s.exp, **s.keep(*flags))
        # The quotient left-aligned in 2p bits, the remainder's sticky bit at the bottom.
        width = 2 * f.p
        prod = Cat(s.rem != 0, Const(0, width - f.p - 3), s.quo)
        s3 = stage.next(prod=prod, **_under(m, s.exp, width, "div"), **s.keep("exp", *flags))
        m.d.comb += self.result.eq(_finish(m, f, stage, s3, "div"))
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
        # 1: ordered by magnitude; specials decided. How far the smaller significand shifts
        # right (to three bits below the ulp: guard, round, sticky), computed for either order
        # and chosen by the magnitude comparison, off its path.
        p3 = f.p + 3
        by_a, by_b = (_align(m, x["exp"] - y["exp"], p3, f"add_by_{n}")
                      for x, y, n in ((a, b, "a"), (b, a, "b")))
        s1 = stage.next(big_sig=big["sig"], big_exp=big["exp"], sign=big["sign"],
                        small_sig=small["sig"], by=Mux(swap, by_b, by_a),
                        small_tz=Mux(swap, _trailing_zeros(m, a["sig"], "add_tz_a"),
                                     _trailing_zeros(m, b["sig"], "add_tz_b")),
                        sub=a["sign"] != b["sign"], nan=nan, inf=~nan & (a["inf"] | b["inf"]),
                        inf_sign=Mux(a["inf"], a["sign"], b["sign"]),
                        zeros=a["zero"] & b["zero"], zeros_sign=a["sign"] & b["sign"])
        # 2: the smaller significand aligned; the trailing zeros say whether a one bit fell off.
        shifted = Cat(Const(0, 3), s1.small_sig) >> s1.by
        aligned = Cat(shifted[0] | (s1.small_tz + 3 < s1.by), shifted[1:])
        flags = ("sign", "sub", "nan", "inf", "inf_sign", "zeros", "zeros_sign")
        s2 = stage.next(big=Cat(Const(0, 3), s1.big_sig), small=aligned,
                        **s1.keep("big_exp", *flags))
        # 3: sum or difference (never negative: |big| >= |small|), p + 4 bits.
        total = Mux(s2.sub, s2.big - s2.small, s2.big + s2.small)[:p3 + 1]
        s3 = stage.next(total=total, **s2.keep("big_exp", *flags))
        # 4: how far to normalise: a carry shifts right once; cancellation shifts left by the
        # leading zeros, not below the smallest exponent.
        lz = _leading_zeros(m, s3.total[:p3], "add_lz")
        shift = Signal(range(p3 + 1), name="add_shift")
        m.d.comb += shift.eq(Mux(lz < s3.big_exp - 1, lz, s3.big_exp - 1))
        s4 = stage.next(shift=shift,
                        **s3.keep("total", "big_exp", *flags))
        # 5: normalise.
        carry = s4.total[p3]
        norm = Mux(carry, Cat(s4.total[0] | s4.total[1], s4.total[2:]),
                   (s4.total << s4.shift)[:p3])
        exp = Mux(carry, s4.big_exp + 1, Mux(norm[p3 - 1], s4.big_exp - s4.shift, 0))
        s5 = stage.next(sig=norm[3:], guard=norm[2], sticky=norm[1] | norm[0],
                        exp=exp[:f.e + 1], exact_zero=s4.total == 0, **s4.keep(*flags))
        # 6: round and pack, or the special result (an exact zero is +0 unless both were -0).
        mag = _round_pack(m, f, s5.sig, s5.guard, s5.sticky, s5.exp, "add")
        result = Mux(s5.exact_zero, Cat(Const(0, f.e + f.m), s5.zeros & s5.zeros_sign),
                     Cat(mag, s5.sign))
        result = Mux(s5.inf, Cat(Const(f.inf, f.e + f.m), s5.inf_sign), result)
        s6 = stage.next(result=Mux(s5.nan, f.nan, result))
        m.d.comb += self.result.eq(s6.result)
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

    def keep(self, *names):
        """These registers, to carry into the next stage unchanged."""
        return {n: getattr(self, n) for n in names}


__all__ = ["FloatMultiplier", "FloatAdder", "FloatDivider"]
