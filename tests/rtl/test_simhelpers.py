"""The Amaranth-simulation host: ``send`` and ``drain`` move every beat exactly once, in order,
through a real stream under random gaps and back-pressure; a stuck run names its ports."""
import pytest
from amaranth.lib import fifo
from amaranth.sim import Simulator

from hwgen import HwgenError
from hwgen.host import Sink, Source
from hwgen.pipeline import load_design
from hwgen.rtl.simhelpers import drain, run_top, send
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import example, random_inputs


@pytest.mark.parametrize("gaps", [(0.0, 0.0), (0.5, 0.6)])
def test_send_and_drain_through_a_fifo(gaps):
    q = fifo.SyncFIFO(width=8, depth=3)
    beats = [(7 * k + 3) % 256 for k in range(40)]
    src, sink = Source(beats, gaps[0], seed=1), Sink(len(beats), gaps[1], seed=2)
    taken = []

    async def producer(ctx):
        await send(ctx, q.w_stream, src)

    async def consumer(ctx):
        await drain(ctx, q.r_stream, sink, on_beat=taken.append)

    sim = Simulator(q)
    sim.add_clock(1e-8)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    sim.run()
    assert sink.received == beats and taken == list(range(40))


def test_a_run_out_of_budget_names_the_waiting_ports():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3})
    # A (one element a beat) has sent 5 of 6 beats, B (two) all 3; C has nothing yet.
    with pytest.raises(HwgenError, match=r"stopped after 5 cycles; ports still waiting: "
                       r"A \(5/6 beats\), C \(0/2 beats\)$"):
        run_top(Top(plan(graph, lanes={"A": 1, "B": 2})), [random_inputs(graph)], budget=5)
