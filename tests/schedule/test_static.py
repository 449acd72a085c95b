"""``schedule(graph)``: levels, groups and cycles put together."""
import pytest

from hwgen import HwgenError
from hwgen.ir.graph import Channel
from hwgen.ir.types import Stream, int8
from hwgen.pipeline import load_design
from hwgen.schedule.groups import BASE_SKEW, solve_skews
from hwgen.schedule.static import schedule
from tests.conftest import example, program


def test_every_instance_has_levels_and_a_group():
    graph = load_design(program("fifo_skew"), {"N": 6, "D": 2})
    s = schedule(graph)
    assert set(s.levels) == set(graph.instances)
    assert s.group_of == {"producer": "g0", "consumer": "g1"}
    assert [g.name for g in s.groups] == ["g0", "g1"] and s.fifos == ["s"]
    assert s.compute_cycles == 18 and [g.spacing for g in s.groups] == [12, 18]


def test_instances_without_fifos_of_one_structure_share_a_controller():
    # The producer and the consumer of producer_consumer meet on a lockstep stream; and
    # gemm_os's PEs all share one group.
    assert len(schedule(load_design(example("producer_consumer"), {"N": 5})).groups) == 1
    assert len(schedule(load_design(example("gemm_os"), {"M": 3, "N": 2, "K": 2})).groups) == 1


class _Levels:
    def __init__(self, puts, gets):
        self.puts, self.gets = puts, gets


def test_a_cycle_of_lockstep_streams_is_an_error():
    t = Stream[int8, 2]
    edges = [Channel("ab", t, "a", "b"), Channel("ba", t, "b", "a")]
    levels = {"a": _Levels({"ab": 0}, {"ba": 0}), "b": _Levels({"ba": 0}, {"ab": 0})}
    with pytest.raises(HwgenError, match="form a cycle; cyclic stream graphs are not supported"):
        solve_skews(["a", "b"], edges, levels)
    # The first member runs BASE_SKEW behind the controller, the consumer a cycle later.
    assert solve_skews(["a", "b"], edges[:1], levels) == {"a": BASE_SKEW, "b": BASE_SKEW + 1}


def test_a_folded_arrays_streams_back_need_no_stall():
    # The streams from a folded array's last column back to its first stay in its group: the
    # group never waits on them. A FIFO between two groups is not looped.
    s = schedule(load_design(example("gemm_os"), {"M": 9, "N": 10, "K": 97}, array=(3, 5)))
    assert len(s.groups) == 1 and len(s.fifos) == 8 and s.looped == set(s.fifos)
    assert schedule(load_design(program("fifo_skew"), {"N": 6, "D": 2})).looped == set()
