"""schedule.in_out: which in-out tensors hardware builds, and the two halves it builds them as
(the refusals at the user's line: tests/lang/test_errors.py)."""
import linecache

import pytest

import hwgen
from hwgen import HwgenError, int8, int32
from hwgen.schedule import plan
from hwgen.schedule.in_out import LIMIT, split_in_out


def test_the_halves_take_free_names_and_keep_the_tensor_for_the_host():
    @hwgen.region
    def clash(C_in: int8[4], C: int32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                C[i] = C[i] + C_in[i]

    graph = clash.graph()
    halves = split_in_out(graph)
    assert [(t.name, t.direction) for t in halves.tensors.values()] == [
        ("C_in", "in"), ("C_in_", "in"), ("C_out", "out")]
    assert [halves.host_name(n) for n in halves.tensors] == ["C_in", "C", "C"]
    assert graph.tensors["C"].direction == "inout"          # the program's graph is unchanged
    assert {t.name for t in plan(graph).graph.tensors.values()} == {"C_in", "C_in_", "C_out"}
    assert split_in_out(halves) is halves


def test_an_element_read_by_one_instance_and_written_by_another_is_refused():
    @hwgen.region
    def crossed(C: int32[2]):
        @hwgen.task(mapping=[2])
        def t():
            p = hwgen.get_pid()
            for i in range(1):
                C[1 - p] = C[p] + 1

    with pytest.raises(HwgenError, match=r"touches element \[1\], which another task"):
        plan(crossed.graph())


def test_too_many_iterations_to_walk_is_a_clear_error():
    @hwgen.region
    def long(A: int8[4], C: int32[4]):
        @hwgen.task
        def t():
            for i in range(4):
                for k in range(LIMIT):
                    C[i] += A[i] * k

    with pytest.raises(HwgenError, match=f"more than the {LIMIT} that hardware generation") as e:
        plan(long.graph())
    assert "for i in range(4):" in linecache.getline(*e.value.loc)   # the loop nest's line
