# amaranth: UnusedElaboratable=no
"""The skid buffer: every beat once and in order under random valid and ready, one beat per
cycle when the consumer is always ready, and an upstream ready that the downstream ready does
not reach within a cycle, announced ``lead`` cycles ahead by ``i_ready_ahead``."""
import random

import pytest
from amaranth.sim import Simulator

from hwgen.rtl.skid import Skid


def _run(pattern_in, pattern_out, n=300, lead=1, valid_ahead=False):
    dut = Skid(16, lead, valid_ahead=valid_ahead)
    sent, got, cycles, announced = [], [], [0], []
    # Told two cycles ahead, the first two cycles' valid is low (the producer's is, after
    # reset).
    valids = [False, False] if valid_ahead else []

    async def tb(ctx):
        value = 0
        while len(got) < n:
            while len(valids) < cycles[0] + 3:
                valids.append(pattern_in(len(valids)))
            valid, ready = valids[cycles[0]], pattern_out(cycles[0])
            ctx.set(dut.i.valid, valid)
            if valid_ahead:
                ctx.set(dut.i_valid_ahead, valids[cycles[0] + 1] | valids[cycles[0] + 2] << 1)
            ctx.set(dut.i.payload, value)
            before = ctx.get(dut.i.ready)
            ctx.set(dut.o.ready, not ready)      # the upstream ready must not follow ...
            assert ctx.get(dut.i.ready) == before
            ctx.set(dut.o.ready, ready)          # ... the downstream ready combinationally
            assert ctx.get(dut.i.ready) == before
            announced.append(ctx.get(dut.i_ready_ahead))
            assert ctx.get(dut.consistent)
            _, _, i_ready, o_valid, o_payload = await ctx.tick().sample(
                dut.i.ready, dut.o.valid, dut.o.payload)
            if len(announced) >= lead:
                assert ctx.get(dut.i.ready) == announced[-lead]
            if valid and i_ready:
                sent.append(value)
                value += 1
            if o_valid and ready:
                got.append(o_payload)
            cycles[0] += 1

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    assert got == sent[:len(got)] == list(range(n))
    return cycles[0]


@pytest.mark.parametrize("lead", [1, 2, 3, 4])
def test_random_valid_and_ready_keep_every_beat_in_order(lead):
    rng = random.Random(7)
    _run(lambda i: rng.random() < 0.7, lambda i: rng.random() < 0.5, lead=lead)


@pytest.mark.parametrize("lead", [4, 5])
def test_enables_decided_three_cycles_ahead_keep_every_beat_in_order(lead):
    rng = random.Random(lead)
    _run(lambda i: rng.random() < 0.7, lambda i: rng.random() < 0.5, lead=lead,
         valid_ahead=True)


@pytest.mark.parametrize("lead", [1, 2, 3, 4])
def test_full_throughput_with_one_cycle_of_latency(lead):
    assert _run(lambda i: True, lambda i: True, n=100, lead=lead) == 101


def test_full_throughput_with_enables_decided_three_cycles_ahead():
    assert _run(lambda i: True, lambda i: True, n=100, lead=5, valid_ahead=True) == 103


def test_a_lead_below_one_is_refused():
    with pytest.raises(ValueError, match="at least a cycle ahead"):
        Skid(8, lead=0)


def test_enables_three_cycles_ahead_need_a_ready_announced_four_ahead():
    with pytest.raises(ValueError, match="four or more cycles ahead"):
        Skid(8, lead=3, valid_ahead=True)
