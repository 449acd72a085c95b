"""Lockstep groups, the skew rule and link registers."""
import pytest

from hwgen.pipeline import load_design
from hwgen.schedule.groups import BASE_SKEW, consumer_skew, link_delay, partition, taps
from hwgen.schedule.static import schedule
from tests.conftest import example, program


def test_the_skew_rule():
    # Put at level 2 by a producer 3 behind the base, got at level 0: one link register.
    assert consumer_skew(3, 2, 0) == 6
    assert link_delay(3, 2, consumer_skew(3, 2, 0), 0) == 1
    # A consumer held further back (another input arrives later) needs more registers.
    assert link_delay(3, 2, 8, 0) == 3
    assert taps([0, 8], [4, 2]) == 9


def test_gemm_is_one_wavefront_of_single_register_links():
    s = schedule(load_design(example("gemm_os"), {"M": 3, "N": 3, "K": 4}))
    assert len(s.groups) == 1 and s.fifos == []
    g = s.groups[0]
    # The corner runs BASE_SKEW behind the controller. Edge PEs read memory (level 4,
    # READ_LATENCY) and pass values on at level 4: +5 per step into the array; inner PEs pass
    # at level 0: +1 per step.
    behind = {"pe[0,0]": 0, "pe[0,1]": 5, "pe[0,2]": 6, "pe[1,0]": 5, "pe[1,1]": 10,
              "pe[1,2]": 11, "pe[2,0]": 6, "pe[2,1]": 11, "pe[2,2]": 12}
    assert g.skew == {pe: s + BASE_SKEW for pe, s in behind.items()}
    assert len(g.links) == 12 and set(g.links.values()) == {1}
    assert (g.iterations, g.taps) == (4, 19)     # pe[2,2]: skew 14, levels 0 to 5


def test_mismatched_loop_structures_meet_through_a_fifo():
    members, lockstep, fifos = partition(load_design(program("fifo_skew"), {"N": 4}))
    assert lockstep == [] and fifos == ["s"]
    assert sorted(members.values()) == [["consumer"], ["producer"]]


@pytest.mark.parametrize("params", [{"M": 2, "N": 3, "K": 5}, {"M": 1, "N": 1, "K": 1}])
def test_every_link_carries_its_value_exactly_from_put_to_get(params):
    graph = load_design(example("gemm_os"), params)
    s = schedule(graph)
    g = s.groups[0]
    for name, delay in g.links.items():
        ch = graph.channels[name]
        put = g.skew[ch.producer] + s.levels[ch.producer].puts[name]
        get = g.skew[ch.consumer] + s.levels[ch.consumer].gets[name]
        assert delay == get - put >= 1
