"""The landing buffer: every beat once and in order under random valid and ready, one beat per
cycle when the consumer is always ready, two cycles of latency, and a ``ready`` that neither
the host's ``valid`` nor the consumer's ``ready`` reaches within a cycle."""
import random

from amaranth.sim import Simulator

from hwgen.rtl.landing import Landing


def _run(pattern_in, pattern_out, n=300):
    dut = Landing(16)
    sent, got, cycles = [], [], [0]

    async def tb(ctx):
        value = 0
        while len(got) < n:
            valid, ready = pattern_in(cycles[0]), pattern_out(cycles[0])
            before = ctx.get(dut.i.ready)
            ctx.set(dut.i.valid, not valid)
            ctx.set(dut.o.ready, not ready)
            assert ctx.get(dut.i.ready) == before      # a flip-flop, whatever comes in
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload, value)
            ctx.set(dut.o.ready, ready)
            assert ctx.get(dut.i.ready) == before
            _, _, i_ready, o_valid, o_payload = await ctx.tick().sample(
                dut.i.ready, dut.o.valid, dut.o.payload)
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


def test_random_valid_and_ready_keep_every_beat_in_order():
    rng = random.Random(7)
    _run(lambda i: rng.random() < 0.7, lambda i: rng.random() < 0.5)


def test_a_consumer_that_rarely_reads_loses_nothing():
    rng = random.Random(3)
    _run(lambda i: True, lambda i: rng.random() < 0.1, n=60)


def test_full_throughput_with_two_cycles_of_latency():
    assert _run(lambda i: True, lambda i: True, n=100) == 102
