# amaranth: UnusedElaboratable=no
"""The output buffer in memory banks: slots, row-major drain through a mux tree. (The first
line: a buffer its constructor rejects is never elaborated.)"""
import re

import pytest

from hwgen.ir.graph import Tensor
from hwgen.ir.layout import banking
from hwgen.ir.types import R, S, int32
from hwgen.rtl.output_banks import OutputBanks
from tests.rtl.buffers import drain_pattern, run


async def _commit(ctx, dut):
    """Stop writing; commit the problem just written and start the next, in one cycle."""
    for k in range(len(dut.writers)):
        ctx.set(dut.write_port(k).en, 0)
    ctx.set(dut.commit, 1)
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.commit, 0)
    ctx.set(dut.start, 0)


def test_memory_output_alternates_slots():
    t = Tensor("C", int32[4, 2] @ [S(0), R])
    dut = OutputBanks(t, banking(t, (2,)), writers=[0, 1])
    got = []

    async def tb(ctx):
        for p in range(2):
            for k in range(4):      # bank b, address k: element (2 * b + k // 2, k % 2)
                for bank in (0, 1):
                    port = dut.write_port(bank)
                    ctx.set(port.en, 1)
                    ctx.set(port.slot, p)
                    ctx.set(port.addr, k)
                    ctx.set(port.data, 100 * p + 10 * bank + k)
                await ctx.tick()
            await _commit(ctx, dut)
        assert not ctx.get(dut.space)
        got.extend(await drain_pattern(ctx, dut, 16, lambda i: i % 4 != 2))

    run(dut, tb)
    assert got == [0, 1, 2, 3, 10, 11, 12, 13, 100, 101, 102, 103, 110, 111, 112, 113]


def test_bad_writers_are_rejected():
    t = Tensor("C", int32[4, 2] @ [S(0), R])
    with pytest.raises(ValueError, match="write port on bank 7, but the layout has 2 banks"):
        OutputBanks(t, banking(t, (2,)), writers=[0, 7])


def test_a_row_of_banks_shares_one_memory():
    # Four banks of a 2x2 grid of shards, one row of two banks per memory; one bank writes
    # per cycle (as ``schedule.shared_rows`` requires); the drain is still row-major.
    t = Tensor("C", int32[4, 4] @ [S(0), S(1)])
    bank = banking(t, (2, 2))
    dut = OutputBanks(t, bank, writers=[0, 1, 2, 3], shared_rows=True)

    async def tb(ctx):
        for p in range(2):
            for i in range(4):
                for j in range(4):
                    b = 2 * (i // 2) + j // 2
                    for k in range(4):
                        ctx.set(dut.write_port(k).en, k == b)
                    port = dut.write_port(b)
                    ctx.set(port.slot, p)
                    ctx.set(port.addr, 2 * (i % 2) + j % 2)
                    ctx.set(port.data, 100 * p + 10 * i + j)
                    await ctx.tick()
            await _commit(ctx, dut)
        got.extend(await drain_pattern(ctx, dut, 32, lambda i: i % 3 != 1))

    got = []
    run(dut, tb)
    assert got == [100 * p + 10 * i + j for p in range(2) for i in range(4) for j in range(4)]


def test_on_ecp5_a_bank_yosys_would_put_in_block_ram_is_read_through_the_blocks_register():
    """Two banks of 512 int32 (two problems): each one DP16KD written and read 36 bits wide,
    its output register the bank's data register (``tests/rtl/test_block_ram.py`` holds the
    block's model equal to the memory; ``tests/flow/test_simulate.py`` runs conv2d_systolic's
    banks so). Small banks stay in LUT-RAM, and other targets get Amaranth memories."""
    from amaranth.back import verilog

    def blocks(shape, target):
        t = Tensor("C", int32[shape] @ [S(0), R])
        text = verilog.convert(OutputBanks(t, banking(t, (2,)), writers=[0, 1], target=target),
                               emit_src=False)
        return re.findall(r"DATA_WIDTH_B\(32'd(\d+)\)", text), "bank0_q <=" in text

    assert blocks((64, 8), "ecp5") == (["36", "36"], False)
    assert blocks((64, 8), "generic") == ([], True)
    assert blocks((4, 2), "ecp5") == ([], True)
