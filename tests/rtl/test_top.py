# amaranth: UnusedElaboratable=no
"""The whole generated top in Amaranth's simulator, against the functional interpreter. (The
first line: a top its constructor rejects is never elaborated, on purpose.)"""
import numpy as np
import pytest

from hwgen.ir.interp import run
from hwgen.pipeline import load_design
from hwgen.rtl.simhelpers import run_top
from hwgen.schedule import schedule
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import example, program, random_inputs

DESIGNS = [
    (example("gemm_os"), {"M": 3, "N": 5, "K": 7}),
    (example("gemm_os"), {"M": 2, "N": 2, "K": 1}),
    (example("gemm_os"), {"M": 1, "N": 2, "K": 97}),
    (example("producer_consumer"), {"N": 7}),
    (program("fifo_skew"), {"N": 6, "D": 2}),
    (program("fifo_skew"), {"N": 5, "D": 1}),
]


def problems(graph, n=3):
    return [random_inputs(graph, seed, extreme=(seed == 0)) for seed in range(n)]


@pytest.mark.parametrize("path,params", DESIGNS)
def test_no_stall_cycles_equal_expected(path, params):
    graph = load_design(path, params)
    top = Top(plan(graph))
    probs = problems(graph, 3)
    outs, cycles, done = run_top(top, probs)
    assert cycles[0] == top.expected_cycles
    assert list(np.diff(done)) == [top.interval_cycles] * 2
    for p, ins in enumerate(probs):
        for name, want in run(graph, ins).items():
            assert np.array_equal(outs[p][name], want)


@pytest.mark.parametrize("path,params", DESIGNS)
def test_random_gaps_and_backpressure(path, params):
    graph = load_design(path, params)
    probs = problems(graph, 3)
    outs, _, _ = run_top(Top(plan(graph)), probs, in_gap=0.4, out_gap=0.5, seed=11)
    for p, ins in enumerate(probs):
        for name, want in run(graph, ins).items():
            assert np.array_equal(outs[p][name], want), (p, name)


def test_systolic_streams_become_registers_and_mismatched_loops_fifos():
    gemm = schedule(load_design(example("gemm_os"), {"M": 3, "N": 3, "K": 4}))
    assert len(gemm.groups) == 1 and not gemm.fifos
    assert sum(len(g.links) for g in gemm.groups) == 12
    skew = schedule(load_design(program("fifo_skew"), {"N": 4}))
    assert skew.fifos == ["s"] and len(skew.groups) == 2


def test_lanes_keep_loading_within_compute_time():
    p = plan(load_design(example("gemm_os"), {"M": 8, "N": 8, "K": 64}))
    assert p.lanes == {"A": 8, "B": 8, "C": 2}
    # Loading (64 beats) and draining (32 beats) hide behind computing, and a new problem
    # enters the array as soon as the previous one has issued its 64 iterations.
    assert p.interval_cycles == 64 == p.schedule.groups[0].spacing


@pytest.mark.parametrize("lanes", [1, 2, 4])
def test_explicit_lanes(lanes):
    graph = load_design(example("gemm_os"), {"M": 2, "N": 4, "K": 8})
    top = Top(plan(graph, lanes=lanes))
    assert set(top.lanes.values()) == {lanes}
    probs = problems(graph, 2)
    outs, cycles, _ = run_top(top, probs, in_gap=0.2, out_gap=0.2, seed=lanes)
    for p, ins in enumerate(probs):
        assert np.array_equal(outs[p]["C"], run(graph, ins)["C"])


@pytest.mark.parametrize("lanes,words", [(3, "must divide"), (0, "at least 1")])
def test_bad_lanes_are_clear_errors(lanes, words):
    from hwgen import HwgenError
    with pytest.raises(HwgenError, match=words):
        plan(load_design(example("gemm_os"), {"M": 2, "N": 4, "K": 8}), lanes={"A": lanes})


def test_a_stuck_run_names_ports_and_fifo_streams():
    from hwgen import HwgenError
    graph = load_design(example("gemv_cooperative"), {"P": 2, "M": 3, "K": 4})
    with pytest.raises(HwgenError, match=r"stopped after 10 cycles.*y \(0/3 beats\).*streams: "
                       r"partial\[0\] empty \(0/4\), partial\[1\] empty \(0/4\)"):
        run_top(Top(plan(graph)), problems(graph, 1), budget=10)


def test_top_takes_a_plan_and_says_so():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 2})
    with pytest.raises(TypeError, match=r"Top takes a hwgen.schedule.plan\(graph\), not "):
        Top(graph)


def test_an_output_chain_decides_from_a_register_its_skid_announces():
    """The skid before a chain announces its ready a cycle further ahead than the chain
    decides: the chain registers that announcement, so the host's ready never reaches its
    decision in the same cycle (and the stalls above still lose nothing)."""
    from amaranth.hdl import Fragment
    top = Top(plan(load_design(example("gemm_os"), {"M": 3, "N": 5, "K": 7})))
    Fragment.get(top, None)
    assert top.plan.chain_lead == 4 and top.skids["C"].lead == 5


@pytest.mark.parametrize("name", ["gemm_os", "gemm_ws"])       # an output chain; output banks
def test_every_blocks_copy_of_a_start_flag_equals_the_flag(name):
    """Each block starts from its own copies of the other blocks' flags (rtl.top): under random
    traffic every copy equals its flag in every cycle, so all blocks start together."""
    import random
    from amaranth.sim import Simulator
    top = Top(plan(load_design(example(name), {})))
    sim = Simulator(top)          # elaborates the top: ``handshake`` holds its copies
    sim.add_clock(1e-8)
    assert top.handshake
    rng, beats = random.Random(3), {"out": 0}

    async def tb(ctx):
        for _ in range(600):
            for t in top.graph.tensors.values():
                port = getattr(top, t.name)
                if t.direction == "in":
                    ctx.set(port.valid, rng.random() < 0.7)
                    ctx.set(port.payload, rng.getrandbits(len(port.payload)))
                else:
                    ctx.set(port.ready, rng.random() < 0.6)
                    beats["out"] += ctx.get(port.valid & port.ready)
            for copy, flag in top.handshake:
                assert ctx.get(copy) == ctx.get(flag)
            await ctx.tick()

    sim.add_testbench(tb)
    sim.run()
    assert beats["out"] > 0       # problems started and drained


@pytest.mark.parametrize("name,params", [("gemm_os", {"M": 3, "N": 5, "K": 7}),
                                         ("gemm_ws", {"M": 4, "N": 3, "K": 3}),
                                         ("gemv_cooperative", {"P": 2, "M": 3, "K": 4}),
                                         ("mlp_pipeline", {})])
def test_every_lead_the_top_builds_is_the_plans(name, params):
    """The leads of the groups, output chains and skids are the plan's
    (``schedule.Plan.announces_finish``, ``chain_lead``, ``skid_lead``; ``rtl.top`` asserts
    each chain's against its skid's): rtl decides none."""
    from amaranth.hdl import Fragment
    from hwgen.rtl.group import Group
    top = Top(plan(load_design(example(name), params)))
    Fragment.get(top, None)
    p = top.plan
    for g in p.schedule.groups:
        group = Group(p, g)
        assert group.announces_finish == p.announces_finish(g) == \
            hasattr(group, "finished_ahead")
    for t in p.graph.outputs:
        skid = top.skids[t.name]
        assert (skid.lead, skid.valid_ahead) == p.skid_lead(t.name)
