"""The host bridge's framed protocol, once, for the hardware (`hwgen.rtl.bridge`) and the driver.

Every message in either direction is one frame::

    0xA5 | id | seq | length (2 bytes, little-endian) | payload (length bytes) | CRC-16 (2 bytes, LE)

The CRC is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF) over ``id`` through the
payload. ``id`` is the index of a tensor in design.json's ``ports`` list:

- host → device: a chunk of an input tensor's elements (``seq`` counts that tensor's frames,
  modulo 256); a chunk holds at most ``chunk`` elements of the bridge (design.json ``bridge``);
- device → host: a chunk of an output tensor's elements, ``seq`` counting likewise;
- device → host, ``id = ACK | port``: the input frames of that port up to ``seq`` are committed
  and its buffer has room for `WINDOW` more: the host keeps at most `WINDOW` frames of a port
  unacknowledged. A frame up to `WINDOW` behind the expected one is a repeat: acknowledged
  again, not stored;
- device → host, ``id = ERROR``: a frame was refused, ``seq`` is the reason (`ERRORS`). The
  bridge answers after the line has been silent for its timeout, drops every byte until then,
  and keeps every frame committed before: the host sends its unacknowledged frames again.

Elements are ``element_bytes(dtype)`` bytes each, little-endian, two's complement.
"""
import binascii

import numpy as np

from .errors import HwgenError
from .host import element_type, pack, unpack

__all__ = ["SYNC", "ACK", "ERROR", "WINDOW", "ERRORS", "OVERHEAD", "crc16", "frame", "Frame", "Decoder",
           "element_bytes", "to_bytes", "from_bytes"]

SYNC = 0xA5
ACK = 0x80
ERROR = 0xFF
WINDOW = 2              # unacknowledged frames per input port
OVERHEAD = 7            # sync, id, seq, two length bytes, two CRC bytes
MAX_PAYLOAD = 0xFFFF
ERRORS = {1: "bad CRC", 2: "unknown tensor id (not an input port)",
          3: "bad length (zero, over the chunk, not whole elements or over the free space)",
          4: "truncated frame (the line went silent mid-frame)",
          5: "frame out of order (unexpected sequence number)"}


def crc16(data):
    """CRC-16/CCITT-FALSE of ``data`` (bytes)."""
    return binascii.crc_hqx(bytes(data), 0xFFFF)


def frame(ident, seq, payload=b""):
    """The bytes of one frame."""
    payload = bytes(payload)
    if not 0 <= ident <= 0xFF or not 0 <= seq <= 0xFF or len(payload) > MAX_PAYLOAD:
        raise HwgenError(f"a frame needs id and seq in 0..255 and at most {MAX_PAYLOAD} payload "
                         f"bytes, not id={ident} seq={seq} with {len(payload)} bytes")
    body = bytes([ident, seq, len(payload) & 0xFF, len(payload) >> 8]) + payload
    crc = crc16(body)
    return bytes([SYNC]) + body + bytes([crc & 0xFF, crc >> 8])


class Frame:
    """A decoded frame: ``id``, ``seq``, ``payload`` (bytes)."""

    def __init__(self, ident, seq, payload):
        self.id, self.seq, self.payload = ident, seq, bytes(payload)

    def __repr__(self):
        return f"Frame(id={self.id:#04x}, seq={self.seq}, {len(self.payload)} bytes)"


class Decoder:
    """Turns received bytes into frames. Bytes outside a frame and frames whose CRC fails are
    skipped (``bad`` counts the CRC failures); the search resumes after the failed sync byte.
    A header announcing more than ``max_payload`` bytes is no frame's (a sync byte in noise):
    skipping it at once keeps it from swallowing the frames behind it."""

    def __init__(self, max_payload=MAX_PAYLOAD):
        self.buffer = bytearray()
        self.bad = 0
        self.max_payload = max_payload

    def feed(self, data):
        """Add received bytes; return the frames they complete."""
        self.buffer += data
        frames = []
        while True:
            start = self.buffer.find(SYNC)
            if start < 0:
                self.buffer.clear()
                return frames
            del self.buffer[:start]
            if len(self.buffer) < 5:
                return frames
            length = self.buffer[3] | self.buffer[4] << 8
            end = 5 + length + 2
            if length > self.max_payload:
                del self.buffer[:1]
                continue
            if len(self.buffer) < end:
                return frames
            body = bytes(self.buffer[1:5 + length])
            if crc16(body) == (self.buffer[end - 2] | self.buffer[end - 1] << 8):
                frames.append(Frame(body[0], body[1], body[4:]))
                del self.buffer[:end]
            else:
                self.bad += 1
                del self.buffer[:1]


def element_bytes(dtype):
    """Bytes per element of ``dtype`` on the bridge: 1, 2, 4 or 8 (the next power of two of
    the bytes its bits need, so that the bridge finds elements by shifting)."""
    bits, _ = element_type(dtype)
    width = 1
    while width * 8 < bits:
        width *= 2
    return width


def to_bytes(values, dtype):
    """Elements (row-major) as the bridge's bytes: ``element_bytes`` each, little-endian."""
    width = element_bytes(dtype)
    return b"".join(v.to_bytes(width, "little") for v in pack(values, dtype, lanes=1))


def from_bytes(data, dtype, shape):
    """The inverse of `to_bytes`: an int64 array of ``shape``."""
    width = element_bytes(dtype)
    n = int(np.prod(shape))
    if len(data) != n * width:
        raise HwgenError(f"{len(data)} bytes do not hold {n} {dtype} elements")
    words = [int.from_bytes(data[k:k + width], "little") for k in range(0, len(data), width)]
    return unpack(words, dtype, lanes=1).reshape(shape)
