"""The on-board self-test wrapper, simulated: its generators and checksum agree with the
interpreter, so a correct design lights 'pass' and never 'fail'."""
import pytest
from amaranth.sim import Simulator

from hwgen.flow.board import SelfTest, expected_checksum, selftest_inputs, xorshift32
from hwgen.pipeline import load_design
from hwgen.rtl.top import Top
from tests.conftest import example


def test_xorshift_matches_reference_sequence():
    assert xorshift32(1) == 270369 and xorshift32(270369) == 67634689


@pytest.mark.parametrize("board,corrupt", [("ulx3s-85f", False), ("icebreaker", False),
                                           ("ulx3s-85f", True), ("icebreaker", True)])
def test_selftest_flags_pass_and_fail(board, corrupt):
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 5})
    checksum = expected_checksum(graph)
    wrapper = SelfTest(graph, board, expected=checksum ^ 1 if corrupt else None)
    top = Top(graph, lanes=1)
    top._MustUse__silence = True
    cycles = 4 * top.expected_cycles + 20
    state = {}

    async def clock(ctx):
        ctx.set(wrapper.btn, 1 if board == "icebreaker" else 0)     # button released
        for _ in range(cycles):
            ctx.set(wrapper.clk, 0)
            await ctx.delay(5e-9)
            ctx.set(wrapper.clk, 1)
            await ctx.delay(5e-9)
        if board == "icebreaker":
            state["pass"], state["fail"] = 1 - ctx.get(wrapper.led_r), 1 - ctx.get(wrapper.led_r)
        else:
            led = ctx.get(wrapper.led)
            state["pass"], state["fail"] = led & 1, (led >> 1) & 1

    sim = Simulator(wrapper)
    sim.add_testbench(clock)
    sim.run()
    if board == "icebreaker":
        assert state["fail"] == int(corrupt)     # green blinks slowly; red is the verdict
    else:
        assert state == ({"pass": 0, "fail": 1} if corrupt else {"pass": 1, "fail": 0})
    assert len(selftest_inputs(graph)) == 2 and expected_checksum(graph) != 0
