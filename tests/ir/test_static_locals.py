"""ir.static_locals: which locals in indices become constants, and which stay run-time values."""
import linecache

import pytest

import hwgen
from hwgen import HwgenError, int16, int32
from hwgen.ir.graph import Const, Read, VarRef, Write, subexprs
from hwgen.schedule import plan


def _indices(graph, name):
    return [i for seg in graph.instances[name].segments for s in seg.body
            for a in ([s] if isinstance(s, Write) else []) +
            [e for e in subexprs(s.value) if isinstance(e, Read)] for i in a.index]


def test_a_local_with_one_value_where_it_is_used_becomes_that_value():
    @hwgen.region
    def shifted(A: int16[8], C: int16[4]):
        @hwgen.task
        def t():
            base: int32 = 0
            for r in range(3):
                base = base + 2 * r         # 0, 2, 6: 6 after the loop
            for i in range(4):
                C[i] = A[base - 4 + i]

    parts = [e for i in _indices(shifted.graph(), "t") for e in subexprs(i)]
    assert Const(6) in parts and VarRef("base") not in parts


def test_a_local_that_changes_between_uses_stays_a_run_time_value_and_is_refused():
    @hwgen.region
    def moving(A: int16[8], C: int16[4]):
        @hwgen.task
        def t():
            at: int32 = 0
            for i in range(4):
                at = at + 1
                C[i] = A[at]                # 1, 2, 3, 4: one value per iteration

    graph = moving.graph()
    assert VarRef("at") in [e for i in _indices(graph, "t") for e in subexprs(i)]
    with pytest.raises(HwgenError, match="indexed by a value computed at run time") as e:
        plan(graph)
    assert "C[i] = A[at]" in linecache.getline(*e.value.loc)       # the user's line


def test_a_local_from_data_is_never_folded():
    @hwgen.region
    def from_data(A: int16[8], C: int16[1]):
        @hwgen.task
        def t():
            at: int32 = A[0] & 7
            C[0] = A[at]

    with pytest.raises(HwgenError, match="indexed by a value computed at run time"):
        plan(from_data.graph())
