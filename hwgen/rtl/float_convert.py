"""Conversions between integers and float formats in hardware, bit-exact with
``ir.floats.convert``: an integer or a float into a float rounds to nearest even (through the
multiplier's normalise-and-round tail); a float into an integer truncates toward zero and
saturates (a NaN gives 0). bfloat16 -> float32 needs none of this: it is wiring (``datapath``).
"""
from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..ir.types import FloatType
from ..schedule.levels import convert_stages
from .float_units import _finish, _Format, _Stages, _under


class FloatConvert(wiring.Component):
    """``result`` = ``value`` (of ``src``: a ``FloatType``, or an ``IntType`` for an integer)
    as ``dst``, ``LATENCY`` enabled clocks later."""

    def __init__(self, src, dst):
        self.src, self.dst = src, dst
        self.LATENCY = convert_stages(dst)
        super().__init__({"value": In(src.bits), "en": In(1), "result": Out(dst.bits)})

    def elaborate(self, platform):
        m = Module()
        stage = _Stages(m, self.en)
        if not isinstance(self.dst, FloatType):
            result = self._to_int(m, stage)
        elif isinstance(self.src, FloatType):
            result = self._float_to_float(m, stage)
        else:
            result = self._int_to_float(m, stage)
        m.d.comb += self.result.eq(result)
        assert stage.count == self.LATENCY
        return m

    def _int_to_float(self, m, stage):
        """The magnitude as the significand, left-aligned: its top bit worth 2^(w - 1)."""
        f, w = _Format(self.dst), self.src.bits
        x = self.value.as_signed() if self.src.signed else self.value
        negative = x < 0 if self.src.signed else Const(0)
        width = max(w, f.p + 2)
        mag = Mux(negative, -x, x)[:w]
        exp = Const(w - 1 + f.bias, signed(16))
        s1 = stage.next(prod=Cat(Const(0, width - w), mag), exp=exp, sign=negative,
                        nan=Const(0), inf=Const(0), zero=x == 0,      # not through -x
                        **_under(m, exp, width, "i2f"))
        return _finish(m, f, stage, s1, "i2f")

    def _float_to_float(self, m, stage):
        """The source significand left-aligned, its exponent rebiased."""
        fs, fd = _Format(self.src), _Format(self.dst)
        x = fs.decode(self.value)
        width = max(fs.p, fd.p) + 2
        exp = (x["exp"] - fs.bias + fd.bias).as_signed()
        s1 = stage.next(prod=Cat(Const(0, width - fs.p), x["sig"]), exp=exp, sign=x["sign"],
                        nan=x["nan"], inf=x["inf"], zero=x["zero"],
                        **_under(m, exp, width, "f2f"))
        return _finish(m, fd, stage, s1, "f2f")

    def _to_int(self, m, stage):
        """Truncated toward zero: the significand shifted by the exponent; then the sign and
        the saturation."""
        f, t = _Format(self.src), self.dst
        x = f.decode(self.value)
        e = (x["exp"] - f.bias).as_signed()          # the top bit's weight, 2^e
        big = e >= t.bits                           # beyond every integer of the type
        s1 = stage.next(sig=x["sig"], e=e, sign=x["sign"], nan=x["nan"], big=big | x["inf"],
                        small=e < 0)
        width = f.p + t.bits
        by = Signal(range(width), name="f2i_by")
        m.d.comb += by.eq(Mux(s1.small | s1.big, 0, width - 1 - s1.e))
        shifted = (Cat(Const(0, t.bits), s1.sig) >> by)[:width]
        mag = Signal(t.bits + 1, name="f2i_mag")
        m.d.comb += mag.eq(Mux(s1.small, 0, shifted[:t.bits + 1]))
        s2 = stage.next(mag=mag, **s1.keep("sign", "nan", "big"))
        top = Mux(s2.sign, -t.min, t.max)          # the largest magnitude of that sign
        value = Mux(s2.big | (s2.mag > top), top, s2.mag)
        value = Mux(s2.sign, -value, value)
        s3 = stage.next(result=Mux(s2.nan, 0, value)[:t.bits])
        return s3.result
