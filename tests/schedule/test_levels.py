"""Pipeline levels of one instance."""

from hwgen.pipeline import load_design
from hwgen.schedule.levels import MULT_STAGES, READ_LATENCY, Levels
from tests.conftest import example, program


def _instances(path, params):
    return load_design(path, params).instances


def test_gemm_corner_reads_memory_inner_pe_gets_from_links():
    pes = _instances(example("gemm_os"), {"M": 3, "N": 3, "K": 4})
    corner, inner = Levels(pes["pe[0,0]"]), Levels(pes["pe[1,1]"])
    # Memory reads land at READ_LATENCY, the product register adds MULT_STAGES: c lives there.
    assert corner.var == {"c": READ_LATENCY + MULT_STAGES, "a": READ_LATENCY, "b": READ_LATENCY}
    assert corner.puts == {"a_in[0,1]": READ_LATENCY, "b_in[1,0]": READ_LATENCY}
    # C[i, j] = c is written from c's register, a level after its last update (``held``).
    assert corner.gets == {} and corner.depth == READ_LATENCY + MULT_STAGES + 2
    assert list(corner.writes.values()) == [READ_LATENCY + MULT_STAGES + 1]
    assert list(corner.held.values()) == ["c"]
    # Values from neighbours are at level 0.
    assert inner.var == {"c": MULT_STAGES, "a": 0, "b": 0}
    assert inner.gets == {"a_in[1,1]": 0, "b_in[1,1]": 0}
    assert inner.puts == {"a_in[1,2]": 0, "b_in[2,1]": 0} and inner.depth == MULT_STAGES + 2


def test_multiply_by_a_constant_takes_no_stage():
    prod = _instances(program("fifo_skew"), {"N": 4})["producer"]
    assert Levels(prod).puts == {"s": READ_LATENCY}         # s.put(A[i] * 2)


def test_a_recurrence_through_a_multiply_is_written_later_than_it_is_read():
    levels = Levels(_instances(program("recurrences"), {"N": 5})["products"])
    assert levels.split == {"p", "f"}
    assert levels.var_w["p"] - levels.var["p"] == MULT_STAGES     # read as A[i] arrives
    assert levels.var_w["f"] - levels.var["f"] == 7               # the float multiply


def test_a_split_value_is_read_as_late_as_its_write_allows():
    """``acc += X[i]``: acc is read when X[i] arrives, so its update is six clocks apart."""
    levels = Levels(_instances(program("recurrences"), {"N": 5})["running"])
    assert levels.var["acc"] == READ_LATENCY and levels.var_w["acc"] == READ_LATENCY + 6
