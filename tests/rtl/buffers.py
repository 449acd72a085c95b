"""Simulation helpers shared by the buffer tests."""
from amaranth.sim import Simulator


def run(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


async def drain_pattern(ctx, dut, n, pattern=lambda i: True):
    """Take ``n`` beats from ``dut.host``, ready on the cycles where ``pattern(i)`` holds. A
    buffer with ``ready_ahead`` (``OutputChain``) hears each cycle's ``ready`` ``lead`` cycles
    ahead, as ``rtl.top``'s skid announces it; its beats must not leave before or after."""
    lead = dut.lead if hasattr(dut, "ready_ahead") else 0
    got, i = [], -lead                      # the first cycles only announce pattern(0 ..)
    while len(got) < n:
        ready = i >= 0 and pattern(i)
        ctx.set(dut.host.ready, ready)
        if lead:
            ctx.set(dut.ready_ahead, pattern(i + lead))
        _, _, valid, payload = await ctx.tick().sample(dut.host.valid, dut.host.payload)
        if valid and ready:
            got.append(payload)
        i += 1
    for k in range(lead):                   # keep the announced ready for its cycles
        ctx.set(dut.host.ready, pattern(i + k))
        ctx.set(dut.ready_ahead, 0)
        _, _, valid = await ctx.tick().sample(dut.host.valid)
        assert not (valid and pattern(i + k)), "a beat left after the last one"
    ctx.set(dut.host.ready, 0)
    return got
