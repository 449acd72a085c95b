"""Which output tensors keep a row of banks in one memory (``schedule.shared_rows``)."""
from hwgen.pipeline import load_design
from hwgen.schedule import plan
from tests.conftest import example


def test_a_folded_output_stationary_array_shares_its_rows():
    # Each PE of a 4x4 row finishes one of its 16 results every K = 8 cycles, one cycle after
    # its left neighbour: a row's writes never meet.
    p = plan(load_design(example("gemm_os"), {"M": 16, "N": 16, "K": 8}, array=(4, 4)))
    assert p.shared_rows == {"C"}
    assert p.bankings["C"].shards == (4, 4) and p.bankings["C"].depth == 16


def test_writes_in_one_cycle_keep_a_memory_per_bank():
    # gemm_ws's bottom row writes C[i, j] at iteration i, skewed by j: PE j writes row i + 1
    # in the cycle PE j + 1 writes row i.
    p = plan(load_design(example("gemm_ws"), {"M": 8, "N": 4, "K": 4}))
    assert p.bankings["C"].shards == (1, 4) and p.bankings["C"].depth == 8
    assert p.shared_rows == frozenset()


def test_an_output_chain_has_no_memory_to_share():
    assert plan(load_design(example("gemm_os"), {"M": 4, "N": 4, "K": 8})).shared_rows == set()
