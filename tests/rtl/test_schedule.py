import pytest

from hwgen.pipeline import load_design
from hwgen.rtl.schedule import schedule
from tests.conftest import example, program


def test_gemm_levels_and_skews():
    s = schedule(load_design(example("gemm_os"), {"M": 3, "N": 3, "K": 4}))
    corner, inner = s.levels["pe[0,0]"], s.levels["pe[1,1]"]
    # Memory reads land at level 2, the product register adds one: c lives at level 3.
    assert corner.var["c"] == 3 and corner.puts["a_in[0,1]"] == 2
    assert inner.var["c"] == 1 and inner.puts["a_in[1,2]"] == 0
    g = s.groups[0]
    assert g.skew["pe[0,0]"] == 0
    # A value put at level l is seen one cycle later by the consumer, at its level 0.
    for name, delay in g.links.items():
        assert delay >= 1
    # Skews grow along rows and columns (the wavefront).
    assert g.skew["pe[0,1]"] < g.skew["pe[0,2]"] and g.skew["pe[1,0]"] < g.skew["pe[2,0]"]


def test_compute_cycles_without_fifos_is_iterations_plus_taps():
    s = schedule(load_design(example("producer_consumer"), {"N": 10}))
    g = s.groups[0]
    assert s.compute_cycles == g.iterations + g.taps


@pytest.mark.parametrize("depth", [1, 2, 8])
def test_fifo_depth_changes_cycles_only_through_stalls(depth):
    s = schedule(load_design(program("fifo_skew"), {"N": 6, "D": depth}))
    assert s.compute_cycles >= 12
