"""The bridge's framed protocol on the host side: frames, CRC, decoding, element bytes."""
import numpy as np
import pytest

from hwgen.errors import HwgenError
from hwgen.protocol import (ERROR, SYNC, Decoder, crc16, element_bytes, frame, from_bytes,
                            to_bytes)


def test_crc_is_ccitt_false():
    assert crc16(b"123456789") == 0x29B1


def test_a_frame_decodes_to_itself_across_garbage_and_split_reads():
    a, b = frame(0, 7, bytes(range(40))), frame(ERROR, 3)
    stream = b"\x00\x13" + a + bytes([SYNC, 1]) + b
    dec = Decoder(max_payload=256)
    frames = dec.feed(stream[:9]) + dec.feed(stream[9:30]) + dec.feed(stream[30:])
    assert [(f.id, f.seq, f.payload) for f in frames] == [(0, 7, bytes(range(40))), (ERROR, 3, b"")]


def test_a_damaged_frame_is_skipped_and_counted():
    bad = bytearray(frame(1, 0, b"abc"))
    bad[6] ^= 0x10
    dec = Decoder()
    assert [f.payload for f in dec.feed(bytes(bad) + frame(1, 1, b"xyz"))] == [b"xyz"]
    assert dec.bad == 1


@pytest.mark.parametrize("dtype,width", [("int4", 1), ("uint8", 1), ("int12", 2), ("int24", 4),
                                         ("int32", 4), ("int40", 8)])
def test_elements_round_trip_through_bytes(dtype, width):
    assert element_bytes(dtype) == width
    bits = int(dtype.lstrip("uint"))
    signed = not dtype.startswith("u")
    low, high = (-(1 << bits - 1), 1 << bits - 1) if signed else (0, 1 << bits)
    values = np.random.default_rng(bits).integers(low, high, size=(3, 5))
    data = to_bytes(values, dtype)
    assert len(data) == 15 * width
    assert np.array_equal(from_bytes(data, dtype, (3, 5)), values)


def test_bad_input_is_a_clear_error():
    with pytest.raises(HwgenError, match="id and seq in 0..255"):
        frame(256, 0)
    with pytest.raises(HwgenError, match="payload"):
        frame(0, 0, bytes(70000))
    with pytest.raises(HwgenError, match="do not hold 4 int16"):
        from_bytes(b"abc", "int16", (4,))
    with pytest.raises(HwgenError, match="unknown element type"):
        element_bytes("float")
