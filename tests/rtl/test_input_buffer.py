# amaranth: UnusedElaboratable=no
"""The input buffer in Amaranth's simulator: banks by layout, lanes, slots. (The first line
tells Amaranth that a buffer rejected by its constructor was never meant to be elaborated.)"""
import re

import numpy as np
import pytest
from amaranth.back import verilog

from hwgen import HwgenError
from hwgen.host import Source, pack
from hwgen.ir.graph import Tensor
from hwgen.ir.layout import banking
from hwgen.ir.types import R, S, int8
from hwgen.rtl.input_buffer import InputBuffer
from hwgen.rtl.simhelpers import send
from hwgen.schedule import READ_LATENCY
from hwgen.schedule.host_timing import LOAD_LATENCY, beats, padded, row_pad
from tests.rtl.buffers import run

# Cycles from the last beat's handshake to its write (then ``loaded``).
WRITE_CYCLES = LOAD_LATENCY


async def _read_all(ctx, dut, b, banks, slot, ahead=False):
    seen = {}
    for bank in range(banks):
        port = dut.read_port(bank)
        ctx.set(port.en, 1)
        ctx.set(port.slot, slot)
        for addr in range(b.depth):
            ctx.set(port.addr, addr)
            # (the address register of a port ahead), the read, the data registers
            await ctx.tick().repeat(READ_LATENCY + ahead)
            seen[(bank, addr)] = ctx.get(port.data)
        ctx.set(port.en, 0)
    return seen


@pytest.mark.parametrize("lanes", [3, 6])
def test_lanes_that_split_a_bank_unevenly_are_rejected(lanes):
    t = Tensor("A", int8[4, 6] @ [S(0), R])
    with pytest.raises(HwgenError, match="power of two"):
        InputBuffer(t, banking(t, (2,)), readers=[0], lanes=lanes)


def test_bad_readers_and_slots_are_rejected():
    t = Tensor("A", int8[4, 6] @ [S(0), R])
    with pytest.raises(ValueError, match="rows padded to whole beats"):
        InputBuffer(t, banking(t, (2,)), readers=[0], lanes=4)
    with pytest.raises(ValueError, match="bank 2.*2 banks"):
        InputBuffer(t, banking(t, (2,)), readers=[0, 2])
    with pytest.raises(ValueError, match="slots"):
        InputBuffer(t, banking(t, (2,)), readers=[0], slots=0)
    with pytest.raises(ValueError, match="2 ahead flags for 1 readers"):
        InputBuffer(t, banking(t, (2,)), readers=[0], ahead=[True, False])


@pytest.mark.parametrize("layout,grid,lanes,ahead", [
    ([S(0), R], (2,), 1, False), ([S(0), R], (2,), 2, True), ([R, S(1)], (1, 3), 6, False),
    ([R, S(1)], (1, 3), 2, True), ([S(0), R], (2,), 4, False),
    ([R, R], (), 8, True)])     # the last two: rows of 6 padded to 8
def test_input_buffer_double_buffers_and_banks_by_layout(layout, grid, lanes, ahead):
    t = Tensor("A", int8[4, 6] @ layout)
    b = padded(t, banking(t, grid), lanes)
    pad = row_pad(t, lanes)
    dut = InputBuffer(t, b, readers=list(range(b.banks)), lanes=lanes,
                      ahead=[ahead] * b.banks)
    first = np.arange(24).reshape(4, 6) - 12
    second = 100 - np.arange(24).reshape(4, 6)
    seen = []

    async def tb(ctx):
        await send(ctx, dut.host, Source(pack(first, int8, lanes, pad)))
        await ctx.tick().repeat(WRITE_CYCLES)     # the last beat is written, then loaded
        assert ctx.get(dut.loaded)
        ctx.set(dut.start, 1)       # the first problem starts on slot 0
        await ctx.tick()
        ctx.set(dut.start, 0)
        assert not ctx.get(dut.loaded)
        # The other slot takes the next problem while this one is in use ...
        await send(ctx, dut.host, Source(pack(second, int8, lanes, pad)))
        await ctx.tick().repeat(WRITE_CYCLES)
        # ... and then the host must wait for a consume.
        assert ctx.get(dut.loaded) and not ctx.get(dut.host.ready)
        seen.append(await _read_all(ctx, dut, b, b.banks, 0, ahead))
        ctx.set(dut.consume, 1)
        await ctx.tick()
        ctx.set(dut.consume, 0)
        assert ctx.get(dut.host.ready)
        seen.append(await _read_all(ctx, dut, b, b.banks, 1, ahead))

    run(dut, tb)
    for data, got in zip((first, second), seen):
        for (i, k), v in np.ndenumerate(data):
            assert got[(b.bank((i, k)), b.address((i, k)))] == v


@pytest.mark.parametrize("lanes,tree_bits", [(6, 3), (2, 3 + 16)])
def test_a_lane_group_that_writes_one_bank_takes_a_line_of_its_own_not_the_tree(lanes,
                                                                                 tree_bits):
    # Six lanes over three banks of columns: lane group q (two elements) always writes bank q,
    # so only the 3-bit address travels in the tree of copies. Two lanes: each reaches every
    # bank, so their 16 bits travel in it too.
    t = Tensor("B", int8[4, 6] @ [R, S(1)])
    b = padded(t, banking(t, (1, 3)), lanes)
    text = verilog.convert(InputBuffer(t, b, readers=[0, 1, 2], lanes=lanes))
    width = {name: int(hi) + 1 for hi, name in
             re.findall(r"(?:reg|wire) \[(\d+):0\] (w_addr|w_fan_d)\b", text)}
    assert width == {"w_addr": 3, "w_fan_d": tree_bits}
    assert bool(re.search(r"\bw_lane2\b", text)) == (lanes == 6)


def test_a_resident_tensor_serves_every_problem_until_it_is_loaded_again():
    """``W`` resident (tests/programs/resident_weights.py): loaded once, it serves problems 0
    and 1; its next value, offered while those are still in flight, waits until they are
    done and then serves problems 2 and 3. No problem reads a copy being overwritten."""
    from amaranth.sim import Simulator
    from hwgen.host import Sink, unpack
    from hwgen.pipeline import load_design
    from hwgen.rtl.simhelpers import drain
    from hwgen.rtl.top import Top
    from hwgen.schedule import plan
    from tests.conftest import program

    graph = load_design(program("resident_weights"), {"B": 2, "N": 3, "K": 5})
    top = Top(plan(graph))
    rng = np.random.default_rng(5)
    weights = [rng.integers(-128, 128, (3, 5)) for _ in range(2)]
    batches = [rng.integers(-128, 128, (2, 5)) for _ in range(4)]
    t = {name: graph.tensors[name] for name in "XWY"}

    def source(arrays, name):
        lanes = top.lanes[name]
        return Source([b for a in arrays for b in pack(a, t[name].dtype, lanes,
                                                       row_pad(t[name], lanes))], 0.3, 0.5)
    first_w, second_w = source(weights[:1], "W"), source(weights[1:], "W")
    first_x, second_x = source(batches[:2], "X"), source(batches[2:], "X")
    sink = Sink(4 * beats(t["Y"], top.lanes["Y"]), 0.4, 0.25)

    async def weights_tb(ctx):
        await send(ctx, top.W, first_w)
        while not first_x.done:         # the next weights come while problems 0, 1 run
            await ctx.tick()
        await send(ctx, top.W, second_w)

    async def batches_tb(ctx):
        while not first_w.done:
            await ctx.tick()
        await send(ctx, top.X, first_x)
        while not second_w.done:
            await ctx.tick()
        await send(ctx, top.X, second_x)

    async def outputs_tb(ctx):
        await drain(ctx, top.Y, sink)

    sim = Simulator(top)
    sim.add_clock(1e-8)
    for tb in (weights_tb, batches_tb, outputs_tb):
        sim.add_testbench(tb)
    sim.run_until(2e-5)
    assert sink.done
    got = unpack(sink.received, t["Y"].dtype, top.lanes["Y"]).reshape(4, 2, 3)
    for p, x in enumerate(batches):
        assert np.array_equal(got[p], x @ weights[p // 2].T), p
