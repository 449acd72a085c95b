"""Delay-line keys."""
from hwgen.ir.graph import Pred
from hwgen.schedule.lines import FINISH, SLOT, Line, LineKind


def test_lines_are_values_with_register_names():
    first = Line.cond(1, [Pred("first", 2)])
    assert first == Line.cond(1, (Pred("first", 2),)) and first.kind is LineKind.COND
    assert {first.label, Line.index(0).label, SLOT.label, FINISH.label} == \
        {"cond_1", "idx_0", "slot", "finish"}
    assert SLOT.datapath and Line.index(3).datapath and not FINISH.datapath


def test_emission_order_keeps_the_verilog_of_before_lines_existed():
    lines = [SLOT, Line.index(1), FINISH, Line.cond(0), Line.cond(0, (Pred("last", 0),))]
    assert sorted(lines, key=lambda l: l.order) == \
        [Line.cond(0, (Pred("last", 0),)), Line.cond(0), FINISH, Line.index(1), SLOT]
