"""The host side of the stream contract: packing, unpacking, and per-cycle Source/Sink."""
import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.host import Sink, Source, beats, element_type, pack, unpack
from hwgen.ir.types import int8, int32, uint8


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", int8, uint8, int32])
@pytest.mark.parametrize("lanes", [1, 2, 4])
def test_pack_unpack_round_trip_with_extremes(dtype, lanes):
    bits, signed = element_type(dtype)
    lo, hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << bits) - 1)
    rng = np.random.default_rng(bits + lanes)
    values = np.concatenate([[lo, hi, 0, 1, lo + 1, hi - 1, -1 if signed else 2, 0],
                             rng.integers(lo, hi, 24, endpoint=True)])
    beats = pack(values.reshape(4, 8), dtype, lanes)
    assert len(beats) == 32 // lanes
    assert all(0 <= b < 1 << (bits * lanes) for b in beats)
    assert np.array_equal(unpack(beats, dtype, lanes), values)


def test_layout_is_little_endian_twos_complement():
    assert pack([1, -1], "int8", 2) == [0xFF01]
    assert pack([-128, 127, 0, -2], int8, 4) == [0xFE007F80]
    assert pack([255, 0], "uint8", 1) == [255, 0]
    assert pack([[1, 2, 3], [4, 5, 6]], "uint8", 2, row_pad=1) == [0x0201, 0x03, 0x0504, 0x06]
    assert beats([2, 3], 2, row_pad=1) == 4 and beats([2, 3], 3) == 2 and beats([], 1) == 1
    assert list(unpack([0xFF01], "int8", 2)) == [1, -1]
    assert list(unpack([0xFF01], "uint8", 2)) == [1, 255]
    assert list(unpack([0x1_8000_0000], "int32", 1)) == [-(1 << 31)]     # high bits ignored


@pytest.mark.parametrize("call,words", [
    (lambda: pack(range(6), "int8", 4), "4 lanes must divide the 6 elements"),
    (lambda: pack([128], "int8", 1), r"128 does not fit int8 \(range -128..127\)"),
    (lambda: pack([-1], uint8, 1), "-1 does not fit uint8"),
    (lambda: pack([1.5], "int8", 1), "must be integers"),
    (lambda: pack([1], "int8", 0), "lanes must be a positive integer"),
    (lambda: pack([1, 2], "int8", 2, row_pad=-1), "row_pad must be a non-negative integer"),
    (lambda: beats([2, 3], 0), "lanes must be a positive integer"),
    (lambda: pack([1], "float64", 1), "unknown element type"),
    (lambda: Source([1], gap=1.0), r"gap must be a probability in \[0, 1\)"),
    (lambda: Sink(1, gap=-0.1), "gap must be"),
])
def test_bad_input_is_a_clear_error(call, words):
    with pytest.raises(HwgenError, match=words):
        call()


def _transfer(beats, in_gap, out_gap, seed, stall=lambda cycle: False):
    """A source wired to a sink through a link that blocks in the cycles ``stall`` names;
    returns what arrived and the cycles taken."""
    src = Source(beats, in_gap, seed)
    sink = Sink(len(beats), out_gap, seed + 1)
    cycle = 0
    while not sink.done:
        valid, payload = src.step()
        ready, link = sink.step(), not stall(cycle)
        fire = valid and ready and link
        assert src.edge(ready and link) == sink.edge(valid and link, payload) == fire
        cycle += 1
        assert cycle < 100 * len(beats)
    assert src.done and src.step() == (False, 0) and not sink.step()
    return sink.received, cycle


def test_no_gaps_is_one_beat_per_cycle():
    beats = list(range(100, 120))
    assert _transfer(beats, 0.0, 0.0, 0) == (beats, 20)


@pytest.mark.parametrize("seed", range(5))
def test_gaps_deliver_every_beat_once_in_order(seed):
    beats = pack(np.arange(-64, 64), "int8", 2)
    got, cycles = _transfer(beats, 0.4, 0.5, seed, stall=lambda c: c % 7 == 3)
    assert got == beats and cycles > len(beats)


def test_a_source_holds_its_beat_until_taken():
    src = Source([7, 8])
    assert src.step() == (True, 7) and not src.edge(False)
    assert src.step() == (True, 7) and src.edge(True) and src.taken == 1
    assert src.step() == (True, 8) and src.edge(True) and src.done
    sink = Sink(1)
    assert sink.step() and not sink.edge(False, 99) and sink.received == []
    assert sink.step() and sink.edge(True, 5) and sink.received == [5] and sink.done


def test_gap_sequences_follow_the_seed():
    def valids(seed):
        src = Source([0] * 50, 0.5, seed)
        return [src.step()[0] for _ in range(50)]
    assert valids(3) == valids(3) != valids(4)
    assert 10 < sum(valids(3)) < 40


def test_fifo_state_names_full_empty_and_partly_full():
    from hwgen.host import fifo_state
    assert [fifo_state("s", n, 2) for n in (0, 1, 2)] == \
        ["s empty (0/2)", "s partly full (1/2)", "s full (2/2)"]


TILES = {"params": {"M": 5, "N": 7, "K": 3},
         "loops": [{"param": "M", "count": 2, "size": 3}, {"param": "N", "count": 3, "size": 3}],
         "tensors": {"A": {"shape": [5, 3], "dims": ["M", None]},
                     "B": {"shape": [3, 7], "dims": [None, "N"]},
                     "C": {"shape": [5, 7], "dims": ["M", "N"]}}}


def test_tiles_run_in_loop_order_with_blocks_padded_by_zeros():
    from hwgen.host import split_tiles, tile_order
    assert tile_order(TILES)[:4] == [{"M": 0, "N": 0}, {"M": 0, "N": 1}, {"M": 0, "N": 2},
                                     {"M": 1, "N": 0}]
    A, B = np.arange(15).reshape(5, 3), np.arange(21).reshape(3, 7)
    problems = split_tiles(TILES, {"A": A, "B": B})
    assert len(problems) == 6 and all(p["A"].shape == p["B"].shape == (3, 3) for p in problems)
    assert np.array_equal(problems[0]["A"], A[:3]) and np.array_equal(problems[1]["A"], A[:3])
    assert np.array_equal(problems[3]["A"], [[9, 10, 11], [12, 13, 14], [0, 0, 0]])
    assert np.array_equal(problems[2]["B"], [[6, 0, 0], [13, 0, 0], [20, 0, 0]])


def test_joined_tiles_give_the_whole_output_without_padding():
    from hwgen.host import join_tiles, split_tiles
    rng = np.random.default_rng(0)
    A, B = rng.integers(-9, 9, (5, 3)), rng.integers(-9, 9, (3, 7))
    outs = [{"C": p["A"] @ p["B"]} for p in split_tiles(TILES, {"A": A, "B": B})]
    assert np.array_equal(join_tiles(TILES, outs)["C"], A @ B)
