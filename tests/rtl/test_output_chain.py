# amaranth: UnusedElaboratable=no
"""The chained output buffer: one element per bank, a shift chain to the host."""
import pytest

from hwgen.host import unpack
from hwgen.ir.graph import Tensor
from hwgen.ir.layout import banking
from hwgen.ir.types import S, int32
from hwgen.rtl.output_chain import OutputChain
from tests.rtl.buffers import drain_pattern, run


@pytest.mark.parametrize("lanes,lead,shape", [(1, 1, (2, 2)), (2, 1, (2, 2)), (1, 2, (2, 2)),
                                              (2, 3, (2, 2)), (1, 3, (2, 2)), (1, 3, (3, 3)),
                                              (3, 1, (3, 3)), (2, 3, (3, 4)), (1, 1, (2, 5)),
                                              (1, 2, (3, 5)), (4, 3, (1, 4)), (2, 1, (4, 2))])
def test_chained_output_drains_while_the_next_problem_is_written(lanes, lead, shape):
    """(3, 3): rows of an odd length, each with copies of the decisions of its own
    (``host_timing.copy_groups``); (3, 4), (2, 5), (3, 5): rows of several beats, the head row
    shifting beat by beat and every row moving up at a row's end; (1, 4): a single row."""
    n = shape[0] * shape[1]
    t = Tensor("C", int32[shape] @ [S(0), S(1)])
    dut = OutputChain(t, banking(t, shape), writers=range(n), lanes=lanes, lead=lead)
    problems = [[-5, 7, 100000, -1, 9, -9, 0, 3, 2, -77, 12, 65535, -4096, 31, 8][:n],
                list(range(1, n + 1))]
    got = []

    async def write(ctx, values):
        assert ctx.get(dut.space)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        for k, v in enumerate(values):
            port = dut.write_port(k)
            ctx.set(port.en, 1)
            ctx.set(port.data, v)
            if lead > 1:                        # the commit, announced lead - 1 cycles ahead
                ctx.set(dut.commit_ahead, k == len(values) - lead + 1)
            await ctx.tick()
            ctx.set(port.en, 0)
        if lead > 1:
            ctx.set(dut.commit_ahead, 0)
        ctx.set(dut.commit, 1)
        await ctx.tick()
        ctx.set(dut.commit, 0)

    async def tb(ctx):
        await write(ctx, problems[0])
        await write(ctx, problems[1])       # the first problem sits in the chain by now
        # Both banks and chain hold a problem: no third one may start until the chain drains.
        assert not ctx.get(dut.space)
        got.extend(unpack(await drain_pattern(ctx, dut, 2 * n // lanes, lambda i: i % 3 != 1), int32,
                          lanes).tolist())
        assert ctx.get(dut.space)

    run(dut, tb)
    assert got == problems[0] + problems[1]


@pytest.mark.parametrize("lead", [0, 1.5])
def test_a_chain_decides_at_least_a_cycle_ahead(lead):
    t = Tensor("C", int32[2, 2] @ [S(0), S(1)])
    with pytest.raises(ValueError, match=f"at least a cycle ahead, not {lead}"):
        OutputChain(t, banking(t, (2, 2)), writers=[0, 1, 2, 3], lead=lead)
