"""A task's local array, registers or a memory: addresses, read latency, transparent reads,
and writes only while the group is enabled."""
import math

import pytest
from amaranth.hdl import Module, Signal, signed
from amaranth.sim import Simulator

from hwgen.ir.layout import REGISTER_ARRAY_LIMIT
from hwgen.ir.types import int8
from hwgen.rtl.local_array import LocalArray


def _in_memory(ttype):
    return math.prod(ttype.shape) > REGISTER_ARRAY_LIMIT


def _build(ttype):
    m = Module()
    en, c0, c1 = Signal(), Signal(), Signal()
    arr = LocalArray(m, "buf", ttype, en, _in_memory(ttype))
    raddr, waddr = Signal(range(arr.size)), Signal(range(arr.size))
    wdata = Signal(signed(8))
    data = arr.read(raddr)
    arr.write(c0, waddr, wdata)
    arr.write(c1, waddr, wdata + 1)             # a second statement on the same port
    arr.finish()
    return m, arr, en, (c0, c1), raddr, waddr, wdata, data


def _run(m, tb):
    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()


@pytest.mark.parametrize("ttype,latency", [(int8[4], 0), (int8[40], 1)])
def test_writes_then_reads_every_element_with_the_array_latency(ttype, latency):
    m, arr, en, conds, raddr, waddr, wdata, data = _build(ttype)
    assert arr.latency == latency
    value = [(5 * k - 100) for k in range(arr.size)]      # -100..95: int8, negatives too

    async def tb(ctx):
        ctx.set(en, 1)
        for k in range(arr.size):
            cond = conds[k % 2]
            ctx.set(cond, 1)
            ctx.set(waddr, k)
            ctx.set(wdata, value[k] - k % 2)              # the second statement adds 1
            await ctx.tick()
            ctx.set(cond, 0)
        for k in range(arr.size):
            ctx.set(raddr, k)
            if latency:
                await ctx.tick()
            assert ctx.get(data) == value[k], k

    _run(m, tb)


@pytest.mark.parametrize("ttype", [int8[4], int8[40]])
def test_nothing_is_written_while_disabled(ttype):
    m, arr, en, (c0, _), raddr, waddr, wdata, data = _build(ttype)

    async def tb(ctx):
        ctx.set(en, 1)
        ctx.set(c0, 1)
        ctx.set(waddr, 3)
        ctx.set(wdata, 11)
        await ctx.tick()
        ctx.set(en, 0)
        ctx.set(wdata, 22)
        await ctx.tick().repeat(3)
        ctx.set(c0, 0)
        ctx.set(en, 1)
        ctx.set(raddr, 3)
        if arr.latency:
            await ctx.tick()
        assert ctx.get(data) == 11

    _run(m, tb)


def test_memory_read_is_transparent_to_the_write_and_holds_while_disabled():
    m, arr, en, (c0, _), raddr, waddr, wdata, data = _build(int8[40])

    async def tb(ctx):
        ctx.set(en, 1)
        ctx.set(c0, 1)
        ctx.set(waddr, 17)
        ctx.set(wdata, 5)
        await ctx.tick()
        ctx.set(wdata, -9)
        ctx.set(raddr, 17)                      # read and write the same element
        await ctx.tick()
        assert ctx.get(data) == -9              # the new value, not 5
        ctx.set(c0, 0)
        ctx.set(en, 0)
        ctx.set(raddr, 0)
        await ctx.tick()
        assert ctx.get(data) == -9              # a disabled read port holds its data

    _run(m, tb)


@pytest.mark.parametrize("ttype", [int8[2, 3], int8[5, 8]])
def test_address_is_row_major(ttype):
    m = Module()
    arr = LocalArray(m, "buf", ttype, Signal(), _in_memory(ttype))
    rows, cols = ttype.shape
    assert arr.address([1, 2]) == cols + 2
    i, j = Signal(range(rows)), Signal(range(cols))
    addr = arr.address([i, j])
    assert len(addr) == (arr.size - 1).bit_length()

    async def tb(ctx):
        for a in range(rows):
            for b in range(cols):
                ctx.set(i, a)
                ctx.set(j, b)
                assert ctx.get(addr) == a * cols + b

    sim = Simulator(m)
    sim.add_testbench(tb)
    sim.run()


def test_a_read_only_table_holds_its_values():
    m, en = Module(), Signal()
    values = [(k * 37) % 256 - 128 for k in range(40)]
    arr = LocalArray(m, "table", int8[5, 8], en, True, values)
    addr = Signal(range(40))
    data = arr.read(addr)
    arr.finish()
    assert arr.wp is None

    async def tb(ctx):
        ctx.set(en, 1)
        for k in (0, 39, 17):
            ctx.set(addr, k)
            await ctx.tick()
            assert ctx.get(data) == values[k]

    _run(m, tb)
