"""Board clocking: a PLL gives the ``sync`` domain a chosen frequency from the board's
oscillator and holds the domain in reset until it locks.

The parameter searches reproduce the open tools: `ecp5_pll` is Project Trellis' ``ecppll``
(simple mode, CLKOP fed back) and `ice40_pll` is IceStorm's ``icepll`` (SIMPLE feedback): same
limits, same loop order, same tie-breaks. Frequencies are integers in Hz and the search is exact
(fractions), so a configuration either reaches the requested frequency within ``tolerance`` or
is a `HwgenError` naming the nearest frequency the PLL can make.
"""
from fractions import Fraction

import numpy as np
from amaranth.hdl import ClockSignal, Const, Elaboratable, Instance, Module, Signal
from amaranth.lib import io
from amaranth.lib.cdc import ResetSynchronizer

from ..errors import HwgenError

MHZ = 1_000_000

# ecppll's limits (MHz): input, output, phase detector, VCO.
ECP5_LIMITS = {"in": (8, 400), "out": (10, 400), "pfd": (3.125, 400), "vco": (400, 800)}
# icepll's limits (MHz).
ICE40_LIMITS = {"in": (10, 133), "out": (16, 275), "pfd": (10, 133), "vco": (533, 1066)}


def _check_range(what, f_hz, limits, family):
    lo, hi = limits
    if not lo * MHZ <= f_hz <= hi * MHZ:
        raise HwgenError(f"the {family} PLL's {what} frequency must lie within {lo}-{hi} MHz, "
                         f"got {f_hz / MHZ:g} MHz")


def _within(family, f_in, f_out, achieved, tolerance):
    if abs(achieved - f_out) > tolerance:
        raise HwgenError(f"the {family} PLL cannot make {f_out / MHZ:g} MHz from "
                         f"{f_in / MHZ:g} MHz (the nearest is {float(achieved) / MHZ:.4f} MHz); "
                         f"choose a reachable clock")


def _ecp5_cphase(f_in, clki, fb, op):
    """CLKOP_CPHASE as ecppll computes it: half a period of CLKOP in VCO cycles, worked out in
    C ``float`` and truncated (so 25 -> 100 MHz gives 2, not 3)."""
    f32 = np.float32
    fpfd = f32(f32(f_in / MHZ) / f32(clki))
    fvco = f32(f32(fpfd * f32(fb)) * f32(op))
    fout = f32(fvco / f32(op))
    ns_phase = f32(1 / (float(fout) * 1e6) * 0.5)
    return int(float(ns_phase) * (float(fvco) * 1e6))


def ecp5_pll(f_in, f_out, tolerance=0):
    """EHXPLLL parameters that make ``f_out`` from ``f_in`` (both in Hz).

    Returns a dict with ``CLKI_DIV``, ``CLKFB_DIV``, ``CLKOP_DIV``, ``CLKOP_CPHASE`` and the
    resulting ``f_out`` and ``f_vco`` (Hz, as `Fraction`). Raises `HwgenError` when no
    configuration comes within ``tolerance`` Hz of ``f_out``.
    """
    _check_range("input", f_in, ECP5_LIMITS["in"], "ECP5")
    _check_range("output", f_out, ECP5_LIMITS["out"], "ECP5")
    (pfd_lo, pfd_hi), (vco_lo, vco_hi) = ECP5_LIMITS["pfd"], ECP5_LIMITS["vco"]
    best, best_key = None, None
    for clki in range(1, 129):
        pfd = Fraction(f_in, clki)
        if not Fraction(pfd_lo) * MHZ <= pfd <= pfd_hi * MHZ:
            continue
        for fb in range(1, 81):
            fout = pfd * fb
            # The output divider only moves the VCO: ecppll keeps the first divider whose
            # VCO is nearest 600 MHz among those within 400-800 MHz.
            ops = [op for op in range(max(1, -(-vco_lo * MHZ // fout)),
                                      min(128, vco_hi * MHZ // fout) + 1)]
            if not ops:
                continue
            op = min(ops, key=lambda o: abs(fout * o - 600 * MHZ))
            key = (abs(fout - f_out), abs(fout * op - 600 * MHZ))
            if best_key is None or key < best_key:
                best, best_key = (clki, fb, op, fout), key
    if best is None:
        raise HwgenError(f"the ECP5 PLL has no configuration for {f_in / MHZ:g} MHz in")
    clki, fb, op, fout = best
    _within("ECP5", f_in, f_out, fout, tolerance)
    return {"CLKI_DIV": clki, "CLKFB_DIV": fb, "CLKOP_DIV": op,
            "CLKOP_CPHASE": _ecp5_cphase(f_in, clki, fb, op), "f_out": fout, "f_vco": fout * op}


def ice40_pll(f_in, f_out, tolerance=0):
    """SB_PLL40 parameters (SIMPLE feedback) that make ``f_out`` from ``f_in`` (Hz).

    Returns a dict with ``DIVR``, ``DIVF``, ``DIVQ``, ``FILTER_RANGE`` and the resulting
    ``f_out`` and ``f_vco`` (Hz, as `Fraction`). Raises `HwgenError` when no configuration
    comes within ``tolerance`` Hz of ``f_out``.
    """
    _check_range("input", f_in, ICE40_LIMITS["in"], "iCE40")
    _check_range("output", f_out, ICE40_LIMITS["out"], "iCE40")
    (pfd_lo, pfd_hi), (vco_lo, vco_hi) = ICE40_LIMITS["pfd"], ICE40_LIMITS["vco"]
    best = None
    for divr in range(16):
        pfd = Fraction(f_in, divr + 1)
        if not pfd_lo * MHZ <= pfd <= pfd_hi * MHZ:
            continue
        for divf in range(128):
            vco = pfd * (divf + 1)
            if not vco_lo * MHZ <= vco <= vco_hi * MHZ:
                continue
            for divq in range(1, 7):
                fout = vco / 2 ** divq
                if best is None or abs(fout - f_out) < abs(best[3] - f_out):
                    best = (divr, divf, divq, fout)
    if best is None:
        raise HwgenError(f"the iCE40 PLL has no configuration for {f_in / MHZ:g} MHz in")
    divr, divf, divq, fout = best
    _within("iCE40", f_in, f_out, fout, tolerance)
    pfd = Fraction(f_in, divr + 1)
    filter_range = 1 + sum(pfd >= edge * MHZ for edge in (17, 26, 44, 66, 101))
    return {"DIVR": divr, "DIVF": divf, "DIVQ": divq, "FILTER_RANGE": filter_range,
            "f_out": fout, "f_vco": fout * 2 ** divq}


class LockReset(Elaboratable):
    """Reset of the ``sync`` domain: asserted at power-on, while ``button`` is pressed and
    while the PLL has not locked (``locked`` low), released synchronously to ``sync``.

    Attributes
    ----------
    locked : Signal, in
        The PLL's lock output (tie high when there is no PLL).
    button : Signal, in
        The reset button, active high.
    """

    def __init__(self):
        self.locked = Signal()
        self.button = Signal()

    def elaborate(self, platform):
        m = Module()
        m.submodules.reset_sync = ResetSynchronizer(~self.locked | self.button, domain="sync")
        return m


class Clocking(Elaboratable):
    """Drives the clock and reset of the ``sync`` domain (which its parent defines) at
    ``f_out`` Hz from the board oscillator on ``pin`` (a platform resource requested with
    ``dir="-"``): an ``EHXPLLL`` (``family="ecp5"``), an ``SB_PLL40_PAD`` fed straight from the
    pad (``family="ice40"``; the iCEBreaker's 12 MHz input is the PLL's own pad), or the
    oscillator itself when ``f_out == f_in``.

    Attributes
    ----------
    button : Signal, in
        The reset button, active high (see `LockReset`).
    params : dict or None
        The PLL parameters (`ecp5_pll` / `ice40_pll`), None without a PLL.
    """

    def __init__(self, family, pin, f_in, f_out):
        self.family, self.pin, self.f_in, self.f_out = family, pin, f_in, f_out
        self.params = None
        if f_out != f_in:
            self.params = {"ecp5": ecp5_pll, "ice40": ice40_pll}[family](f_in, f_out)
        self.button = Signal()

    def elaborate(self, platform):
        m = Module()
        m.submodules.reset = reset = LockReset()
        m.d.comb += reset.button.eq(self.button)
        if self.params is None:
            m.submodules.clk_buf = buf = io.Buffer("i", self.pin)
            m.d.comb += [ClockSignal("sync").eq(buf.i), reset.locked.eq(1)]
        elif self.family == "ecp5":
            m.submodules.clk_buf = buf = io.Buffer("i", self.pin)
            m.submodules.pll = self._ehxplll(buf.i, reset.locked)
        else:
            m.submodules.pll = self._sb_pll40_pad(reset.locked)
        return m

    def _ehxplll(self, clki, locked):
        p = self.params
        clkop = ClockSignal("sync")
        return Instance(
            "EHXPLLL",
            a_FREQUENCY_PIN_CLKI=f"{self.f_in / MHZ:g}",
            a_FREQUENCY_PIN_CLKOP=f"{float(p['f_out']) / MHZ:g}",
            a_ICP_CURRENT="12", a_LPF_RESISTOR="8", a_MFG_ENABLE_FILTEROPAMP="1",
            a_MFG_GMCREF_SEL="2",
            p_PLLRST_ENA="DISABLED", p_INTFB_WAKE="DISABLED", p_STDBY_ENABLE="DISABLED",
            p_DPHASE_SOURCE="DISABLED", p_OUTDIVIDER_MUXA="DIVA", p_OUTDIVIDER_MUXB="DIVB",
            p_OUTDIVIDER_MUXC="DIVC", p_OUTDIVIDER_MUXD="DIVD",
            p_CLKI_DIV=p["CLKI_DIV"], p_CLKOP_ENABLE="ENABLED", p_CLKOP_DIV=p["CLKOP_DIV"],
            p_CLKOP_CPHASE=p["CLKOP_CPHASE"], p_CLKOP_FPHASE=0, p_FEEDBK_PATH="CLKOP",
            p_CLKFB_DIV=p["CLKFB_DIV"],
            i_CLKI=clki, i_CLKFB=clkop, o_CLKOP=clkop, o_LOCK=locked,
            i_RST=0, i_STDBY=0, i_PHASESEL0=0, i_PHASESEL1=0, i_PHASEDIR=1, i_PHASESTEP=1,
            i_PHASELOADREG=1, i_PLLWAKESYNC=0, i_ENCLKOP=0)

    def _sb_pll40_pad(self, locked):
        p = self.params
        return Instance(
            "SB_PLL40_PAD",
            p_FEEDBACK_PATH="SIMPLE", p_DIVR=Const(p["DIVR"], 4), p_DIVF=Const(p["DIVF"], 7),
            p_DIVQ=Const(p["DIVQ"], 3), p_FILTER_RANGE=Const(p["FILTER_RANGE"], 3),
            i_PACKAGEPIN=self.pin.io, o_PLLOUTGLOBAL=ClockSignal("sync"), o_LOCK=locked,
            i_RESETB=1, i_BYPASS=0)
