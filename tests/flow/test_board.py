"""The on-board self-test wrapper, simulated: its generators and checksum agree with the
interpreter, so a correct design lights 'pass' and never 'fail'."""
import pytest
from amaranth.sim import Simulator

from hwgen.flow.board import SelfTest, expected_checksum, selftest_inputs, xorshift32
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
    wrapper = SelfTest(graph, board, expected=checksum ^ 1 if corrupt else None)
    cycles = 4 * plan(graph, lanes=1).expected_cycles + 20
    leds = {}

    async def clock(ctx):
        ctx.set(wrapper.btn, 1 if board == "icebreaker" else 0)     # button released
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
        if board == "icebreaker":       # green = pass, red = mismatch; active low
            leds["pass"], leds["fail"] = 1 - ctx.get(wrapper.led_g), 1 - ctx.get(wrapper.led_r)
        else:                           # led[0] = pass, led[1] = mismatch
            led = ctx.get(wrapper.led)
            leds["pass"], leds["fail"] = led & 1, (led >> 1) & 1

    sim = Simulator(wrapper)
    sim.add_testbench(clock)
    sim.run()
    assert leds == ({"pass": 0, "fail": 1} if corrupt else {"pass": 1, "fail": 0})
    assert len(selftest_inputs(graph)) == 2 and expected_checksum(graph) != 0
