# amaranth: UnusedElaboratable=no
"""The output buffer in memory banks: slots, row-major drain through a mux tree. (The first
line: a buffer its constructor rejects is never elaborated.)"""
import pytest

from hwgen.ir.graph import Tensor
from hwgen.ir.layout import banking
from hwgen.ir.types import R, S, int32
from hwgen.rtl.output_banks import OutputBanks
from tests.rtl.buffers import drain_pattern, run


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
            for bank in (0, 1):
                ctx.set(dut.write_port(bank).en, 0)
            ctx.set(dut.commit, 1)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.commit, 0)
            ctx.set(dut.start, 0)
        assert not ctx.get(dut.space)
        got.extend(await drain_pattern(ctx, dut, 16, lambda i: i % 4 != 2))

    run(dut, tb)
    assert got == [0, 1, 2, 3, 10, 11, 12, 13, 100, 101, 102, 103, 110, 111, 112, 113]


def test_bad_writers_are_rejected():
    t = Tensor("C", int32[4, 2] @ [S(0), R])
    with pytest.raises(ValueError, match="write port on bank 7, but the layout has 2 banks"):
        OutputBanks(t, banking(t, (2,)), writers=[0, 7])
