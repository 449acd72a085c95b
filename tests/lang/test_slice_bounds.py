"""Bit slice bounds held in locals (``lang.exprs.slice_bounds``, ``ctx.defs``): a constant
apart once the locals are replaced by the sums they hold, and only while what those read is
not assigned again."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.ir.interp import run
from hwgen.pipeline import load_design

TEXT = """import hwgen
from hwgen import int32, UInt


def build(N: int = 4):
    @hwgen.region
    def lanes(A: int32[N], C: int32[N]):
        @hwgen.task
        def t():
            for n in range(N):
                w: UInt(64) = 0x0807060504030201
                idx: int32 = A[n] & 7
{between}
                C[n] = w[lo:hi]  # LINE

    return lanes
"""


def load(tmp_path, between):
    path = tmp_path / "lanes.py"
    path.write_text(TEXT.format(between=between))
    return load_design(str(path))


def test_bounds_a_constant_apart_pick_a_lane_at_run_time(tmp_path):
    graph = load(tmp_path, "                lo: int32 = idx * 8\n"
                           "                hi: int32 = (idx + 1) * 8")
    assert list(run(graph, {"A": np.array([0, 3, 7, 12])})["C"]) == [1, 4, 8, 5]


@pytest.mark.parametrize("between", [
    "                lo: int32 = idx * 8\n                idx = idx + 1\n"
    "                hi: int32 = idx * 8 + 8",
    "                lo: int32 = idx * 8\n                hi: int32 = idx * 16",
    "                lo: int32 = idx * 8\n                hi: int32 = A[n] * 8 + 8",
])
def test_bounds_not_known_a_constant_apart_are_refused_at_the_line(tmp_path, between):
    with pytest.raises(HwgenError) as e:
        load(tmp_path, between)
    assert "or locals assigned such sums a constant apart" in str(e.value)
    assert e.value.loc[1] == TEXT.format(between=between).splitlines().index(
        "                C[n] = w[lo:hi]  # LINE") + 1
