"""Simulation helpers shared by the buffer tests."""
from amaranth.sim import Simulator


def run(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


async def drain_pattern(ctx, dut, n, pattern=lambda i: True):
    """Take ``n`` beats from ``dut.host``, ready on the cycles where ``pattern(i)`` holds."""
    got, i = [], 0
    while len(got) < n:
        ready = pattern(i)
        ctx.set(dut.host.ready, ready)
        _, _, valid, payload = await ctx.tick().sample(dut.host.valid, dut.host.payload)
        if valid and ready:
            got.append(payload)
        i += 1
    ctx.set(dut.host.ready, 0)
    return got
