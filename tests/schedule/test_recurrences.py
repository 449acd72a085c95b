"""schedule.recurrences: how soon an element of an array updated through slow operations is
read again, and the clocks per iteration that make it late enough."""
import pytest

import hwgen
from hwgen import HwgenError, float32
from hwgen.pipeline import load_design
from hwgen.schedule import plan
from hwgen.schedule.levels import Levels
from hwgen.schedule.recurrences import shortest_gap, spaced
from tests.conftest import program

PATH = program("array_recurrence")


@pytest.mark.parametrize("M,J,stretch", [(4, 3, (4, 3)), (20, 17, (1, 1))])
def test_reads_too_soon_after_an_update_space_the_task_out(M, J, stretch):
    graph = load_design(PATH, {"B": 2, "M": M, "J": J, "K": 5})
    consumer, gemv = graph.instances["consumer"], graph.instances["gemv"]
    assert Levels(consumer).split == {"block"} and Levels(gemv).split == {"buf", "prod"}
    # The update loop reads each element M clocks after the get (or the loop before) wrote it.
    assert shortest_gap(consumer, "block")[0] == M
    assert shortest_gap(gemv, "buf")[0] == J
    need = Levels(consumer).arr_w["block"] - Levels(consumer).arr["block"] + 1
    assert stretch[0] == max(1, -(-need // M))
    out = spaced(graph)
    for name, s in zip(("consumer", "gemv"), stretch):
        trips = [seg.trips for seg in out.instances[name].segments]
        old = [seg.trips for seg in graph.instances[name].segments]
        assert trips == ([t + (s,) for t in old] if s > 1 else old)
    assert out.instances["producer"] is graph.instances["producer"]


def test_a_graph_without_such_arrays_is_unchanged():
    graph = load_design(program("array_rewritten"))
    assert spaced(graph) is graph


def _with_a_float_sum():
    @hwgen.region
    def with_a_float_sum(A: float32[2, 4], C: float32[2, 2], D: float32[2]):
        @hwgen.task
        def t():
            buf: float32[2]
            for r in range(2):
                total: float32 = 0
                for n in range(4):
                    total += A[r, n]
                D[r] = total
                for j in range(2):
                    buf[j] = buf[j] * A[r, j]
                for j in range(2):
                    C[r, j] = buf[j]  # the read too soon
    return with_a_float_sum


def test_a_task_with_float_sums_is_not_spaced_out_and_says_so():
    region = _with_a_float_sum()
    with pytest.raises(HwgenError, match="a task with float sums cannot be spaced out") as e:
        plan(region.graph())
    lines, first = __import__("inspect").getsourcelines(_with_a_float_sum)
    assert e.value.loc[1] == first + next(n for n, text in enumerate(lines)
                                          if "the read too soon" in text)
