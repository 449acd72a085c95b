"""Board bitstreams: the self-test wrapper, simulated (its generators and checksum agree with
the interpreter, so a correct design lights 'pass' and never 'fail'); the board top's pins,
PLL and DSP budget as the amaranth-boards platforms write them (no tools needed); and, marked
``pnr``, whole bitstreams of tiny designs for both boards."""
import json
import os

import pytest
from amaranth.sim import Simulator

from hwgen.errors import HwgenError
from hwgen.flow.board import (BOARDS, BoardTop, SelfTest, _platform_files, bitstream, bridged,
                              check_fmax, dsp_overflow, expected_checksum, selftest_inputs,
                              xorshift32)
from hwgen.pipeline import load_design
from hwgen.schedule import plan
from tests.conftest import example


def test_xorshift_matches_reference_sequence():
    assert xorshift32(1) == 270369 and xorshift32(270369) == 67634689


@pytest.mark.parametrize("board,corrupt", [("ulx3s-85f", False), ("icebreaker", False),
                                           ("ulx3s-85f", True), ("icebreaker", True)])
def test_selftest_flags_pass_and_fail(board, corrupt):
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 5})
    checksum = expected_checksum(graph)
    wrapper = SelfTest(graph, board, expected=checksum ^ 1 if corrupt else None,
                       target="generic")          # Amaranth's simulator runs no DSP blocks
    cycles = 4 * plan(graph, lanes=1).expected_cycles + 20
    leds = {}

    async def clock(ctx):
        ctx.set(wrapper.btn, 0)                                     # button released
        for n in range(cycles):
            if n == 4:
                # Out of reset: skip to problem 4095. The iCEBreaker's green LED shows "pass"
                # only while bit 12 of the problem counter is set (it blinks), so it lights
                # after the next problem instead of after 4096 of them.
                ctx.set(wrapper.problems, 4095)
            ctx.set(wrapper.clk, 0)
            await ctx.delay(5e-9)
            ctx.set(wrapper.clk, 1)
            await ctx.delay(5e-9)
        led = ctx.get(wrapper.led)                                  # active high
        if board == "icebreaker":       # led 0 red = mismatch, led 1 green = pass
            leds["pass"], leds["fail"] = (led >> 1) & 1, led & 1
        else:                           # led[0] = pass, led[1] = mismatch
            leds["pass"], leds["fail"] = led & 1, (led >> 1) & 1

    sim = Simulator(wrapper)
    sim.add_testbench(clock)
    sim.run()
    assert leds == ({"pass": 0, "fail": 1} if corrupt else {"pass": 1, "fail": 0})
    assert len(selftest_inputs(graph)) == 2 and expected_checksum(graph) != 0


def test_bad_board_name(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 1, "N": 1, "K": 2})
    with pytest.raises(HwgenError, match="unknown BOARD 'arty'; use one of ulx3s-85f, icebreaker"):
        bitstream(graph, str(tmp_path), "arty")
    assert not os.listdir(tmp_path)


def test_missed_clock_names_both_numbers():
    check_fmax(26.4, 24_000_000, "icebreaker")
    with pytest.raises(HwgenError, match="reaches 21.3 MHz, below the 24 MHz clock"):
        check_fmax(21.3, 24_000_000, "icebreaker")


def test_clock_must_be_a_whole_number_of_bit_times():
    graph = load_design(example("gemm_os"), {"M": 1, "N": 1, "K": 2})
    with pytest.raises(HwgenError, match="multiple of the baud rate"):
        bridged(graph, 25_000_000, 3_000_000)


# Pins as amaranth-boards 0.0.21 places them: clock, reset button, USB-UART rx/tx, LEDs.
PINS = {"ulx3s-85f": {"clk25_0__io": "G2", "button_0__io": "R1", "uart_0__rx__io": "M1",
                      "uart_0__tx__io": "L4", "led_0__io": "B2", "led_1__io": "C2"},
        "icebreaker": {"clk12_0__io": "35", "button_0__io": "10", "uart_0__rx__io": "6",
                       "uart_0__tx__io": "9", "led_0__io": "11", "led_1__io": "37"}}


def _pins(workdir, board):
    pins = {}
    if board == "icebreaker":
        with open(os.path.join(workdir, "board_top.pcf")) as f:
            for line in f:
                if line.startswith("set_io"):
                    _, port, pin = line.split()
                    pins[port] = pin
    else:
        with open(os.path.join(workdir, "board_top.lpf")) as f:
            for line in f:
                if line.startswith("LOCATE COMP"):
                    pins[line.split('"')[1]] = line.split('"')[3]
    return pins


@pytest.mark.parametrize("board,pll", [("ulx3s-85f", "EHXPLLL"), ("icebreaker", "SB_PLL40_PAD")])
def test_bridge_top_on_the_board_pins(tmp_path, board, pll):
    graph = load_design(example("gemm_os"), {"M": 1, "N": 2, "K": 2})
    clock, baud = BOARDS[board]["clocks"][0]
    core = bridged(graph, clock, baud)
    assert core.divisor == clock // baud and core.manifest(clock)["baud"] == baud
    soft = _platform_files(BoardTop(board, core, clock), BOARDS[board], str(tmp_path))
    pins = _pins(str(tmp_path), board)
    assert all(pins.get(port) == pin for port, pin in PINS[board].items()), pins
    with open(tmp_path / "board_top.il") as f:
        text = f.read()
    assert f"cell \\{pll} " in text and soft == 0
    with open(tmp_path / "board_top.ys") as f:
        assert "script dsp_budget.ys" in f.read()


def test_selftest_top_drives_every_led_without_pll(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 1, "N": 2, "K": 2})
    top = BoardTop("ulx3s-85f", SelfTest(graph, "ulx3s-85f", standalone=False), 25_000_000)
    _platform_files(top, BOARDS["ulx3s-85f"], str(tmp_path))
    pins = _pins(str(tmp_path), "ulx3s-85f")
    assert [pins[f"led_{k}__io"] for k in range(8)] == "B2 C2 C1 D2 D1 E2 E1 H3".split()
    assert "uart_0__rx__io" not in pins
    with open(tmp_path / "board_top.il") as f:
        assert "EHXPLLL" not in f.read()


def test_multiplies_beyond_the_dsp_blocks_are_named_in_order():
    rtlil = ("module \\top.g0\n  cell $mul $1\n  end\n  cell $add $2\n  end\n"
             "  cell $mul $3\n  end\nend\nmodule \\top.g1\n  cell $mul $7\n  end\nend\n")
    assert dsp_overflow(rtlil, 1) == ["top.g0/$3", "top.g1/$7"]
    assert dsp_overflow(rtlil, 8) == []


def _check_bitstream(path, t, board, clock_mhz, size):
    assert os.path.exists(path) and os.path.getsize(path) == t["bitstream_bytes"] > size
    assert t["clock_mhz"] == clock_mhz and t["fmax_mhz"] >= clock_mhz and t["board"] == board


@pytest.mark.pnr
@pytest.mark.parametrize("board,clock_mhz,size", [("icebreaker", 24, 100_000),
                                                  ("ulx3s-85f", 60, 100_000)])
def test_bridge_bitstream(tmp_path, board, clock_mhz, size):
    graph = load_design(example("gemm_os"), {"M": 1, "N": 2, "K": 2})
    path, t = bitstream(graph, str(tmp_path), board)
    _check_bitstream(path, t, board, clock_mhz, size)
    with open(os.path.join(os.path.dirname(path), "design.json")) as f:
        info = json.load(f)
    assert info["top"] == "gemm_os" and [p["name"] for p in info["ports"]] == ["A", "B", "C"]
    assert info["bridge"]["divisor"] == t["divisor"] == clock_mhz // 3
    assert info["bridge"]["clock_hz"] == clock_mhz * 1_000_000 and t["baud"] == 3_000_000
    # On the ECP5 the task grid's multipliers are pinned, as in `hwgen timing` (flow.floorplan).
    assert t["pinned_grid"] == ((1, 2) if board == "ulx3s-85f" else None)


@pytest.mark.pnr
def test_selftest_bitstream(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 1, "N": 2, "K": 2})
    path, t = bitstream(graph, str(tmp_path), "icebreaker", selftest=True)
    _check_bitstream(path, t, "icebreaker", 12, 100_000)
    assert path.endswith("gemm_os_icebreaker_selftest.bin")
    assert not os.path.exists(os.path.join(os.path.dirname(path), "design.json"))


@pytest.mark.pnr
@pytest.mark.slow
def test_missed_clock_falls_back(tmp_path, monkeypatch):
    """A clock the design cannot meet (120 MHz on the UP5K) gives way to the board's next
    choice (when none is left: `check_fmax`'s error)."""
    graph = load_design(example("gemm_os"), {"M": 1, "N": 2, "K": 2})
    spec = dict(BOARDS["icebreaker"], clocks=[(120_000_000, 3_000_000), (12_000_000, 1_000_000)])
    monkeypatch.setitem(BOARDS, "icebreaker", spec)
    steps = []
    path, t = bitstream(graph, str(tmp_path), "icebreaker", progress=steps.append)
    assert t["clock_mhz"] == 12 and t["divisor"] == 12 and t["baud"] == 1_000_000
    assert any("missed 120 MHz; again at 12 MHz" in s for s in steps), steps
