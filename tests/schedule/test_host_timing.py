"""Host timing rules: lanes, slots, interval and latency."""
import pytest

from hwgen import HwgenError
from hwgen.ir.graph import Tensor
from hwgen.ir.layout import banking
from hwgen.ir.types import R, S, int8, int32
from hwgen.schedule import host_timing as host


def _tensor(name, ttype, grid, direction="in"):
    t = Tensor(name, ttype, direction)
    return t, banking(t, grid)


def test_bits():
    assert [host.range_bits(n) for n in (1, 2, 3, 4, 5, 256, 257)] == [0, 1, 2, 2, 3, 8, 9]
    assert [host.slot_bits(n) for n in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]


def test_lane_split_by_layout():
    t, b = _tensor("A", int8[4, 8] @ [S(0), R], (2,))
    assert host.lane_split(b, t.shape, 4) == (4, 1)     # 4 elements into one bank per beat
    t, b = _tensor("B", int8[4, 8] @ [R, S(1)], (1, 4))
    assert host.lane_split(b, t.shape, 8) == (2, 4)     # 2 per bank, 4 banks per beat
    with pytest.raises(HwgenError, match="must divide the innermost dimension .8., which is "
                                         "sharded"):
        host.lane_split(b, t.shape, 3)
    with pytest.raises(HwgenError, match="must be at least 1"):
        host.lane_split(b, t.shape, 0)


def test_rows_that_lanes_do_not_divide_end_in_a_padded_beat():
    t, b = _tensor("A", int8[3, 97] @ [S(0), R], (3, 5))
    assert host.lane_split(b, t.shape, 4) == (4, 1)
    assert host.row_pad(t, 4) == 3 and host.row_pad(t, 1) == 0
    assert host.beats(t, 4) == 3 * 25 and host.beats(t, 1) == 291
    assert host.padded(t, b, 4).extent == (1, 100) and host.padded(t, b, 1) == b
    with pytest.raises(HwgenError, match="or be a power of two"):
        host.lane_split(b, t.shape, 3)
    c, bc = _tensor("C", int32[3, 97] @ [S(0), R], (3,), "out")
    assert host.row_pad(c, 4) == 0      # outputs are never padded: lanes divide their size


def test_auto_lanes_pad_rows_only_when_no_divisor_keeps_up():
    t, b = _tensor("A", int8[8, 97] @ [S(0), R], (8, 8))
    assert host.auto_lanes(t, b, compute=100, spacing=97) == 16     # 8 rows x 7 beats
    assert host.auto_lanes(t, b, compute=800, spacing=776) == 1     # exact lanes keep up
    assert host.auto_lanes(t, b, compute=10, spacing=8) == 128      # the fewest beats
    t, b = _tensor("B", int8[97, 8] @ [R, S(1)], (8, 8))
    assert host.auto_lanes(t, b, compute=100, spacing=97) == 8      # divisors are preferred


def test_output_lanes():
    t, b = _tensor("C", int32[2, 3] @ [S(0), S(1)], (2, 3), "out")
    assert host.check_lanes(t, b, 3) == 3
    for bad in (4, 0, -2):
        with pytest.raises(HwgenError, match="tensor 'C'.*lanes=1 or a divisor"):
            host.check_lanes(t, b, bad)
    t, b = _tensor("y", int32[6] @ [R], (2,), "out")        # memory banks: one lane only
    with pytest.raises(HwgenError, match="supports lanes=1$"):
        host.check_lanes(t, b, 2)


def test_auto_lanes_take_the_fewest_that_keep_up():
    t, b = _tensor("A", int8[8, 64] @ [S(0), R], (8, 8))
    assert host.auto_lanes(t, b, compute=80, spacing=64) == 8      # 512 elements in 64 cycles
    assert host.auto_lanes(t, b, compute=600, spacing=512) == 1


def test_interval_and_latency():
    a, ba = _tensor("A", int8[4, 4] @ [S(0), R], (4, 4))
    c, bc = _tensor("C", int32[4, 4] @ [S(0), S(1)], (4, 4), "out")
    lanes = {"A": 1, "C": 1}
    # Loading 16 beats is slower than starting problems every 8 cycles.
    interval, slots = host.host_timing([a, c], {"A": ba, "C": bc}, lanes, compute=12, starts=8)
    assert interval == 17                         # 16 output beats + 1
    # A slot is held from its first beat to its problem's finish: enough slots cover that.
    assert slots == -(-(16 + host.LOAD_LATENCY + 12 + 1) // 17)
    assert host.latency([a, c], {"A": ba, "C": bc}, lanes, 12) == 16 + host.LOAD_LATENCY + 12 + host.DRAIN_LATENCY + 16


def test_padded_beats_count_in_interval_and_latency():
    a, ba = _tensor("A", int8[2, 5] @ [S(0), R], (2,))
    c, bc = _tensor("C", int32[2] @ [S(0)], (2,), "out")
    lanes = {"A": 4, "C": 1}                      # 2 rows of 2 beats, the second padded
    assert host.host_timing([a, c], {"A": ba, "C": bc}, lanes, compute=3, starts=2)[0] == 4
    assert host.latency([a, c], {"A": ba, "C": bc}, lanes, 3) == 4 + host.LOAD_LATENCY + 3 + host.DRAIN_LATENCY + 2


def test_memory_banks_drain_back_to_back_a_cycle_later():
    # An output in memory banks (rtl.output_banks) reads two cycles before its mux and drains
    # the next problem right after the last: its beats alone bound the interval.
    a, ba = _tensor("A", int8[2, 4] @ [S(0), R], (2,))
    y, by = _tensor("y", int32[12] @ [R], (2,), "out")
    assert not host.chained(by)
    bankings, lanes = {"A": ba, "y": by}, {"A": 1, "y": 1}
    assert host.host_timing([a, y], bankings, lanes, compute=5, starts=4)[0] == 12
    assert host.latency([a, y], bankings, lanes, 5) == \
        8 + host.LOAD_LATENCY + 5 + host.BANK_DRAIN_LATENCY + 12
    assert host.BANK_DRAIN_LATENCY == host.DRAIN_LATENCY + 1


def test_copy_groups_never_span_two_rows():
    """32-bit chain registers, two per copy: a 13-wide row takes 7 copies of its own, so a
    row's last element and the next row's first never share one (12x13 gemm_os: 84 copies)."""
    groups = host.copy_groups(12 * 13, (12, 13), 32)
    assert groups[-1] + 1 == 12 * 7
    for b in range(12 * 13 - 1):
        if (b + 1) % 13 == 0:
            assert groups[b] != groups[b + 1], b
    assert all(groups.count(g) <= 2 for g in set(groups))
    # Rows of an even number of elements group as before: consecutive pairs.
    assert host.copy_groups(12 * 12, (12, 12), 32) == [b // 2 for b in range(144)]
    # Narrow elements: 8 per copy; a shape that does not match the banks is one row.
    assert host.copy_groups(10, (2, 5), 8) == [0] * 5 + [1] * 5
    assert host.copy_groups(10, (3, 5), 8) == [0] * 8 + [1] * 2
