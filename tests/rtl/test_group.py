# amaranth: UnusedElaboratable=no
"""A lockstep group on its own: its signature follows the port plan, and driven by behavioural
memories (a read's data ``READ_LATENCY`` enabled cycles after its address, one more for a port
``ahead``) it computes its members' statements with the schedule's timing. (The first line: a
group whose signature is only inspected is never elaborated, on purpose.)"""
import numpy as np
import pytest
from amaranth.back import rtlil
from amaranth.lib import wiring
from amaranth.sim import Simulator

from hwgen.ir.graph import StreamOp
from hwgen.pipeline import load_design
from hwgen.rtl.group import Group
from hwgen.rtl.signatures import address
from hwgen.schedule import READ_LATENCY, plan
from tests.conftest import example, program


def _group(path, params, k=0):
    graph = load_design(path, params)
    p = plan(graph)
    return graph, p, Group(p, p.schedule.groups[k])


def test_signature_follows_the_port_plan():
    graph, p, group = _group(program("fifo_skew"), {"N": 4})
    names = [name for name, _ in group.signature.members.items()]
    assert names == ["start", "accept", "finished"] + [port.name for port in group.ports.ports]
    assert [port.name for port in group.ports.fifo(StreamOp.PUT)] == ["put_s"]
    put = group.signature.members["put_s"]
    assert put.flow is wiring.Out and put.signature.members["rdy"].flow is wiring.In


def _run(graph, p, group, banks, cycles):
    """Start one problem; serve reads from ``banks[tensor][bank][addr]``; return the writes
    ``{(tensor, bank, addr): value}`` and the cycles (after the start) of ``finished``."""
    writes, finished = {}, []
    reads = [(port, getattr(group, port.name)) for port in group.ports.reads]
    # The read's registers (an ``ahead`` port's address comes a cycle early).
    pending = {port.name: [0] * (READ_LATENCY + port.ahead) for port, _ in reads}

    async def tb(ctx):
        assert ctx.get(group.accept)
        ctx.set(group.start, 1)
        await ctx.tick()
        ctx.set(group.start, 0)
        for cycle in range(cycles):
            for port, iface in reads:
                ctx.set(iface.data, pending[port.name][-1])
            sampled = []
            for port, iface in reads:
                sampled.append((port, ctx.get(iface.en), ctx.get(address(iface))))
            for port in group.ports.writes:
                iface = getattr(group, port.name)
                if ctx.get(iface.en):
                    writes[port.tensor, port.bank, ctx.get(address(iface))] = ctx.get(iface.data)
            if ctx.get(group.finished):
                finished.append(cycle)
            for port, en, addr in sampled:
                if en:
                    pending[port.name] = [banks[port.tensor][port.bank][addr],
                                          *pending[port.name][:-1]]
            await ctx.tick()

    sim = Simulator(group)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    return writes, finished


@pytest.mark.parametrize("params", [{"M": 1, "N": 2, "K": 3}, {"M": 2, "N": 3, "K": 5}])
def test_gemm_group_computes_every_output_bank(params):
    graph, p, group = _group(example("gemm_os"), params)
    rng = np.random.default_rng(5)
    A = rng.integers(-128, 128, (params["M"], params["K"]))
    B = rng.integers(-128, 128, (params["K"], params["N"]))
    # A @ [S(0), R]: bank i holds row i; B @ [R, S(1)]: bank j holds column j.
    banks = {"A": A.tolist(), "B": B.T.tolist()}
    compute = p.schedule.compute_cycles
    writes, finished = _run(graph, p, group, banks, compute + 4)
    C = A @ B
    want = {("C", i * params["N"] + j, 0): int(C[i, j])
            for i in range(params["M"]) for j in range(params["N"])}
    assert writes == want
    # The finish pulse comes once, compute_cycles after the start pulse.
    assert finished == [compute - 1]


def test_a_group_of_another_plan_is_rejected():
    _, p, _ = _group(example("gemm_os"), {"M": 1, "N": 2, "K": 3})
    other = plan(load_design(program("fifo_skew"), {"N": 4}))
    with pytest.raises(ValueError, match="group 'g1' is not one of the plan's groups"):
        Group(p, other.schedule.groups[1])


def _stalls(group):
    """Whether the elaborated group drives a stall net (else its enable is constant)."""
    return "connect \\Y \\stall" in rtlil.convert(group)


def test_a_group_stalls_on_fifos_to_other_groups_only():
    graph = load_design(example("gemm_os"), {"M": 4, "N": 4, "K": 8}, array=(2, 2))
    p = plan(graph)
    assert p.schedule.fifos and not _stalls(Group(p, p.schedule.groups[0]))
    _, p, group = _group(program("fifo_skew"), {"N": 4})
    assert _stalls(group)


def test_control_travels_from_neighbour_to_neighbour():
    """Every PE of a 4x4 gemm_os but the corner takes its control from its left or upper
    neighbour (the PE it gets a link register from), and keeps its own copy of the lines (the
    corner taps the shared line)."""
    _, _, group = _group(example("gemm_os"), {"M": 4, "N": 4, "K": 8})
    parents = group.parents
    assert set(parents) == {f"pe[{i},{j}]" for i in range(4) for j in range(4)} - {"pe[0,0]"}
    for child, parent in parents.items():
        (i, j), (pi, pj) = (tuple(map(int, n[3:-1].split(","))) for n in (child, parent))
        assert (pi, pj) in ((i, j - 1), (i - 1, j)), (child, parent)
    text = rtlil.convert(group)
    modules = {m.split("\n", 1)[0].rsplit(".", 1)[-1]: m for m in text.split("\nmodule ")[1:]}
    copies = {(i, j) for i in range(4) for j in range(4)
              if any(" input " not in w and "\\cond_0_d" in w        # a copy, not the line
                     for w in modules[f"pe_{i}_{j}"].splitlines() if w.lstrip().startswith("wire"))}
    assert copies == {(i, j) for i in range(4) for j in range(4)} - {(0, 0)}
