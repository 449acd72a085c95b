"""The plan of a whole accelerator: pure data, no hardware built."""
import pytest

from hwgen import HwgenError
from hwgen.pipeline import load_design
from hwgen.schedule import plan
from hwgen.schedule.host_timing import DRAIN_LATENCY, LOAD_LATENCY
from hwgen.schedule.plan import array_starts, tensor_grids
from tests.conftest import example, program


def test_gemm_plan():
    p = plan(load_design(example("gemm_os"), {"M": 8, "N": 8, "K": 64}))
    assert p.lanes == {"A": 8, "B": 8, "C": 2}
    assert p.interval_cycles == 64 == array_starts(p.schedule) == p.group_spacing
    assert p.bankings["A"].banks == 8 and p.bankings["C"].depth == 1
    assert p.expected_cycles == \
        64 + LOAD_LATENCY + p.schedule.compute_cycles + DRAIN_LATENCY + 32   # load, compute, drain


def test_fifo_designs_run_one_problem_at_a_time():
    p = plan(load_design(program("fifo_skew"), {"N": 6, "D": 2}))
    # No group keeps a spacing of the plan's; problems start a whole compute apart (18 cycles:
    # tests/schedule/test_cycles.py), however soon each group alone could take the next.
    assert p.group_spacing is None
    assert array_starts(p.schedule) == 18 > max(g.iterations for g in p.schedule.groups)


def test_lanes_by_name_and_bad_lanes():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 4, "K": 8})
    assert plan(graph, lanes={"A": 2}).lanes["A"] == 2
    assert set(plan(graph, lanes=1).lanes.values()) == {1}
    with pytest.raises(HwgenError, match="tensor 'A': lanes=3 must divide the innermost "
                                         "dimension .8., or be a power of two"):
        plan(graph, lanes={"A": 3})


def test_a_prime_inner_dimension_does_not_bound_the_interval():
    graph = load_design(example("gemm_os"), {"M": 8, "N": 8, "K": 97})
    p = plan(graph)
    assert p.interval_cycles <= 1.1 * 97
    assert p.lanes["A"] == 16 and p.bankings["A"].extent == (1, 112)   # rows of 7 beats
    assert plan(graph, lanes=1).interval_cycles == 8 * 97


def test_tensor_grids():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 4})
    assert tensor_grids(graph) == {"A": (2, 3), "B": (2, 3), "C": (2, 3)}


def test_every_group_has_its_ports():
    p = plan(load_design(program("fifo_skew"), {"N": 4}))
    assert set(p.ports) == {g.name for g in p.schedule.groups}
    assert sorted(len(ports.reads) for ports in p.ports.values()) == [1, 1]     # A; B
