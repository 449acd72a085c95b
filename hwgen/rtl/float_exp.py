"""``exp(x)`` of a float32 in hardware, computing ``ir.floats.exp`` bit for bit: x truncated to
fixed point, times log2(e) from four partial products (each one DSP block), split into an
exponent and a fraction, 2^fraction from a cubic in Horner form (a multiply per stage), packed.
"""
from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..ir.floats import EXP_BITS, EXP_POLY, LOG2E, LOG2E_BITS
from ..schedule.levels import float_stages
from .float_units import _Stages


class FloatExp(wiring.Component):
    """``result = exp(a)`` for float32 bit patterns, ``LATENCY`` enabled clocks later."""

    def __init__(self, fmt):
        self.fmt = fmt
        self.LATENCY = float_stages("exp", fmt)
        super().__init__({"a": In(32), "en": In(1), "result": Out(32)})

    def elaborate(self, platform):
        m = Module()
        stage = _Stages(m, self.en)
        frac, exp, sign = self.a[:23], self.a[23:31], self.a[31]
        # 1: how far right the significand shifts to leave EXP_BITS fraction bits (x < 128).
        by = Signal(range(32), name="exp_by")
        m.d.comb += by.eq(Mux((exp == 0) | (exp < 134 - 31), 31, 134 - exp))
        s1 = stage.next(sig=Cat(frac, exp != 0), by=by, sign=sign,
                        nan=(exp == 0xFF) & (frac != 0), big=exp >= 134)
        # 2: x in fixed point, signed.
        mag = (s1.sig >> s1.by)[:24]
        s2 = stage.next(x=Mux(s1.sign, -mag, mag),
                        **s1.keep("sign", "nan", "big"))
        # 3, 4: x * log2(e), from four partial products, then their sum.
        x_lo, x_hi = s2.x[:12], s2.x[12:].as_signed()
        l_lo, l_hi = LOG2E & 0xFFF, LOG2E >> 12
        s3 = stage.next(ll=x_lo * l_lo, lh=x_lo * l_hi, hl=x_hi * l_lo, hh=x_hi * l_hi,
                        **s2.keep("sign", "nan", "big"))
        product = s3.ll + ((s3.lh + s3.hl) << 12) + (s3.hh << 24)
        s4 = stage.next(t=(product >> LOG2E_BITS)[:10 + EXP_BITS].as_signed(),
                        **s3.keep("sign", "nan", "big"))
        # 5: the exponent n (the integer part, rounded down) and the fraction r.
        s5 = stage.next(n=s4.t[EXP_BITS:].as_signed(), r=s4.t[:EXP_BITS],
                        **s4.keep("sign", "nan", "big"))
        # 6, 7, 8: 2^r - 1 ~ r (C1 + r (C2 + r C3)), each product truncated.
        c1, c2, c3 = EXP_POLY
        u, acc = s5, Const(c3)
        for c in (c2, c1, None):
            u = stage.next(u=((acc * u.r) >> EXP_BITS)[:EXP_BITS + 1],
                           **u.keep("r", "n", "sign", "nan", "big"))
            acc = None if c is None else Const(c) + u.u
        # 9: packed: the fraction (at most all ones) below the biased exponent.
        top = (1 << EXP_BITS) - 1
        fraction = Mux(u.u > top, top, u.u)[:EXP_BITS]
        biased = (u.n + 127).as_signed()
        inf, zero = Const(0xFF << 23, 32), Const(0, 32)
        packed = Cat(Const(0, 23 - EXP_BITS), fraction, biased[:8], Const(0, 1))
        value = Mux(biased >= 0xFF, inf, Mux(biased <= 0, zero, packed))
        value = Mux(u.big, Mux(u.sign, zero, inf), value)
        s9 = stage.next(result=Mux(u.nan, Const(0x7FC00000, 32), value))
        m.d.comb += self.result.eq(s9.result)
        assert stage.count == self.LATENCY
        return m
