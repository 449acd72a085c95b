"""Simulation helpers shared by the buffer tests."""
from amaranth.sim import Simulator


def run(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


async def drain_pattern(ctx, dut, n, pattern=lambda i: True):
    """Take ``n`` beats from ``dut.host``, ready on the cycles where ``pattern(i)`` holds. A
    buffer with ``ready_next`` (``OutputChain``) hears each cycle's ``ready`` a cycle ahead,
    as ``rtl.top``'s skid register announces it; its beats must not leave before or after."""
    ahead = hasattr(dut, "ready_next")
    got, i = [], -1 if ahead else 0        # the first cycle only announces pattern(0)
    while len(got) < n:
        ready = i >= 0 and pattern(i)
        ctx.set(dut.host.ready, ready)
        if ahead:
            ctx.set(dut.ready_next, pattern(i + 1))
        _, _, valid, payload = await ctx.tick().sample(dut.host.valid, dut.host.payload)
        if valid and ready:
            got.append(payload)
        i += 1
    if ahead:                               # keep the announced ready for one more cycle
        ctx.set(dut.host.ready, pattern(i))
        ctx.set(dut.ready_next, 0)
        _, _, valid = await ctx.tick().sample(dut.host.valid)
        assert not (valid and pattern(i)), "a beat left after the last one"
    ctx.set(dut.host.ready, 0)
    return got
