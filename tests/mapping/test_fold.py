"""Which task grids fold onto a PE array, and onto what."""
import pytest

from hwgen import HwgenError
from hwgen.mapping import fold_onto


def test_grids_larger_than_the_array_fold_onto_it():
    assert fold_onto({"pe": (32, 32), "feed": (4,)}, (4, 4)) == {"pe": (4, 4)}
    assert fold_onto({"pe": (8, 3)}, (4, 4)) == {"pe": (4, 3)}


def test_a_grid_that_fits_is_built_as_written():
    assert fold_onto({"pe": (4, 4), "sink": ()}, (4, 4)) == {}


def test_the_fewest_pes_that_take_the_fewest_turns():
    """6 positions take 2 turns on 4 PEs as on 3; 256 on 12 take 22 turns, on no fewer."""
    assert fold_onto({"pe": (6, 6)}, (4, 4)) == {"pe": (3, 3)}
    assert fold_onto({"pe": (5, 5)}, (4, 4)) == {"pe": (3, 3)}
    assert fold_onto({"pe": (256, 256)}, (12, 12)) == {"pe": (12, 12)}
    assert fold_onto({"pe": (64, 64)}, (12, 12)) == {"pe": (11, 11)}


def test_one_dimensional_grids_use_the_whole_array():
    assert fold_onto({"row": (64,)}, (4, 4)) == {"row": (16,)}
    assert fold_onto({"row": (64,)}, (8,)) == {"row": (8,)}
    assert fold_onto({"t": (8, 8, 8)}, (4, 4)) == {"t": (4, 4, 1)}


@pytest.mark.parametrize("array", [(), (0, 4), (2, 2, 2), ("4", 4)])
def test_a_bad_array_is_an_error(array):
    with pytest.raises(HwgenError, match="a PE array is one or two positive sizes"):
        fold_onto({"pe": (8, 8)}, array)
