"""Input and output buffers in Amaranth's simulator."""
import numpy as np
import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from hwgen import HwgenError
from hwgen.host import Source, pack, unpack
from hwgen.ir.graph import Tensor
from hwgen.ir.layout import banking
from hwgen.ir.types import R, S, int8, int32
from hwgen.rtl.arith import mux_tree
from hwgen.rtl.input_buffer import InputBuffer
from hwgen.rtl.output_banks import OutputBanks
from hwgen.rtl.output_chain import OutputChain
from hwgen.rtl.simhelpers import send
from hwgen.schedule.host import lane_split


def _sim(dut, tb):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


async def _read_all(ctx, dut, b, banks, slot):
    seen = {}
    for bank in range(banks):
        port = getattr(dut, f"rd{bank}")
        ctx.set(port.en, 1)
        ctx.set(port.slot, slot)
        for addr in range(b.depth):
            ctx.set(port.addr, addr)
            await ctx.tick().repeat(2)          # read, then the data register
            seen[(bank, addr)] = ctx.get(port.data)
        ctx.set(port.en, 0)
    return seen


@pytest.mark.parametrize("layout,grid,lanes", [
    ([S(0), R], (2,), 1), ([S(0), R], (2,), 2), ([S(0), R], (2,), 3), ([R, S(1)], (1, 3), 6),
    ([R, S(1)], (1, 3), 2), ([S(0), R], (2,), 6)])
def test_input_buffer_double_buffers_and_banks_by_layout(layout, grid, lanes):
    t = Tensor("A", int8[4, 6] @ layout)
    b = banking(t, grid)
    if lanes in (3, 6) and layout == [S(0), R]:
        with pytest.raises(HwgenError, match="power of two"):
            InputBuffer(t, b, readers=[0], lanes=lanes)
        return
    dut = InputBuffer(t, b, readers=list(range(b.banks)), lanes=lanes)
    first = np.arange(24).reshape(4, 6) - 12
    second = 100 - np.arange(24).reshape(4, 6)
    seen = []

    async def tb(ctx):
        await send(ctx, dut.host, Source(pack(first, int8, lanes)))
        await ctx.tick()
        assert ctx.get(dut.loaded)
        ctx.set(dut.start, 1)       # the first problem starts on slot 0
        await ctx.tick()
        ctx.set(dut.start, 0)
        assert not ctx.get(dut.loaded)
        # The other slot takes the next problem while this one is in use ...
        await send(ctx, dut.host, Source(pack(second, int8, lanes)))
        await ctx.tick()
        # ... and then the host must wait for a consume.
        assert ctx.get(dut.loaded) and not ctx.get(dut.host.ready)
        seen.append(await _read_all(ctx, dut, b, b.banks, 0))
        ctx.set(dut.consume, 1)
        await ctx.tick()
        ctx.set(dut.consume, 0)
        assert ctx.get(dut.host.ready)
        seen.append(await _read_all(ctx, dut, b, b.banks, 1))

    _sim(dut, tb)
    for data, got in zip((first, second), seen):
        for (i, k), v in np.ndenumerate(data):
            assert got[(b.bank((i, k)), b.address((i, k)))] == v


def test_lane_split_rules():
    t = Tensor("A", int8[4, 8] @ [S(0), R])
    assert lane_split(banking(t, (2,)), t.shape, 4) == (4, 1)
    u = Tensor("B", int8[4, 8] @ [R, S(1)])
    assert lane_split(banking(u, (1, 8)), u.shape, 4) == (1, 4)
    with pytest.raises(HwgenError, match="must divide"):
        lane_split(banking(t, (2,)), t.shape, 3)


async def _drain(ctx, dut, n, pattern=lambda i: True):
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


@pytest.mark.parametrize("lanes", [1, 2])
def test_chained_output_drains_while_the_next_problem_is_written(lanes):
    t = Tensor("C", int32[2, 2] @ [S(0), S(1)])
    dut = OutputChain(t, banking(t, (2, 2)), writers=[0, 1, 2, 3], lanes=lanes)
    problems = [[-5, 7, 100000, -1], [1, 2, 3, 4]]
    got = []

    async def write(ctx, values):
        for k, v in enumerate(values):
            port = getattr(dut, f"wr{k}")
            ctx.set(port.en, 1)
            ctx.set(port.data, v)
            await ctx.tick()
            ctx.set(port.en, 0)
        ctx.set(dut.commit, 1)
        await ctx.tick()
        ctx.set(dut.commit, 0)

    async def tb(ctx):
        assert ctx.get(dut.space)
        await write(ctx, problems[0])
        await write(ctx, problems[1])       # the first problem sits in the chain by now
        got.extend(unpack(await _drain(ctx, dut, 8 // lanes, lambda i: i % 3 != 1), int32,
                          lanes).tolist())

    _sim(dut, tb)
    assert got == problems[0] + problems[1]


def test_memory_output_alternates_slots():
    t = Tensor("C", int32[4, 2] @ [S(0), R])
    dut = OutputBanks(t, banking(t, (2,)), writers=[0, 1])
    got = []

    async def tb(ctx):
        for p in range(2):
            for k in range(4):      # bank b, address k: element (2 * b + k // 2, k % 2)
                for bank in (0, 1):
                    port = getattr(dut, f"wr{bank}")
                    ctx.set(port.en, 1)
                    ctx.set(port.slot, p)
                    ctx.set(port.addr, k)
                    ctx.set(port.data, 100 * p + 10 * bank + k)
                await ctx.tick()
            for bank in (0, 1):
                ctx.set(getattr(dut, f"wr{bank}").en, 0)
            ctx.set(dut.commit, 1)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.commit, 0)
            ctx.set(dut.start, 0)
        assert not ctx.get(dut.space)
        got.extend(await _drain(ctx, dut, 16, lambda i: i % 4 != 2))

    _sim(dut, tb)
    assert got == [0, 1, 2, 3, 10, 11, 12, 13, 100, 101, 102, 103, 110, 111, 112, 113]


def test_mux_tree_selects_every_input():
    values = [Signal(8, init=v) for v in (3, 1, 4, 1, 5)]
    sel, out = Signal(3), Signal(8)
    seen = {}
    m = Module()
    m.d.comb += out.eq(mux_tree(values, sel))

    async def tb(ctx):
        for k in range(5):
            ctx.set(sel, k)
            seen[k] = ctx.get(out)

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()
    assert seen == {0: 3, 1: 1, 2: 4, 3: 1, 4: 5}
