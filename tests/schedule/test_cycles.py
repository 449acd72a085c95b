"""Problem spacing and the cycle model."""
import pytest

from hwgen.pipeline import load_design
from hwgen.schedule.cycles import finish_count, problem_spacing
from hwgen.schedule.static import schedule
from tests.conftest import example, program


def test_spacing_rule():
    # 4 iterations, 9 taps: the last iteration leaves the pipeline at count 12. A first write
    # at count 6 must come after the previous problem's finish: 7 cycles apart.
    assert finish_count(4, 9) == 12
    assert problem_spacing(4, 9, 6) == 7
    # Never closer than the iterations themselves.
    assert problem_spacing(64, 9, 60) == 64


def test_gemm_cycles_are_iterations_plus_taps():
    s = schedule(load_design(example("gemm_os"), {"M": 3, "N": 3, "K": 4}))
    g = s.groups[0]
    assert s.compute_cycles == g.iterations + g.taps == 23
    # finish (count 22) - first write (pe[0,0]: skew 2 + last iteration 3 + level 9) + 1
    assert g.spacing == 9


def test_without_fifos_cycles_are_iterations_plus_taps():
    s = schedule(load_design(example("producer_consumer"), {"N": 10}))
    g = s.groups[0]
    assert s.compute_cycles == g.iterations + g.taps == 18


@pytest.mark.parametrize("depth,cycles", [(1, 23), (2, 18), (8, 18)])
def test_fifo_depth_changes_cycles_only_through_stalls(depth, cycles):
    # The consumer (12 iterations, 6 taps) never waits once the FIFO holds the two values
    # the producer makes while the consumer runs its first loop: 18 cycles. With depth 1 the
    # producer stalls and the consumer waits on it (23: equal to Amaranth simulation in
    # tests/rtl/test_top.py, which holds expected_cycles to the hardware).
    s = schedule(load_design(program("fifo_skew"), {"N": 6, "D": depth}))
    assert [(g.iterations, g.taps) for g in s.groups] == [(6, 6), (12, 6)]
    assert s.compute_cycles == cycles
    # With FIFOs, a group does not overlap problems: spacing is its whole run.
    assert [g.spacing for g in s.groups] == [12, 18]
