"""Port signatures between groups, buffers and FIFOs: directions, widths, signedness."""
import pytest
from amaranth.hdl import Shape, signed, unsigned
from amaranth.lib.wiring import Flow

from hwgen.ir.types import int8, int32, uint8, uint16
from hwgen.rtl.signatures import (addr_width, address, fifo_get, fifo_put, read_port, shape_of,
                                  write_port)


def _members(sig):
    return {name: (m.flow, Shape.cast(m.shape)) for name, m in sig.members.items()}


@pytest.mark.parametrize("depth,bits", [(1, 0), (2, 1), (5, 3), (1024, 10), (1025, 11)])
def test_addr_width(depth, bits):
    assert addr_width(depth) == bits
    for make in (read_port, write_port):
        port = make(depth, signed(8)).create()
        assert len(address(port)) == bits
        # A bank of one element has no address port at all (no zero-width wires).
        assert ("addr" in make(depth, signed(8)).members) == (bits > 0)


@pytest.mark.parametrize("dtype,shape", [(int8, signed(8)), (int32, signed(32)),
                                         (uint8, unsigned(8)), (uint16, unsigned(16))])
def test_shape_of(dtype, shape):
    assert shape_of(dtype) == shape


def test_read_and_write_ports():
    rd = _members(read_port(5, shape_of(int8), slots_bits=2))
    assert rd == {"addr": (Flow.Out, unsigned(3)), "slot": (Flow.Out, unsigned(2)),
                  "en": (Flow.Out, unsigned(1)), "data": (Flow.In, signed(8))}
    wr = _members(write_port(1024, shape_of(uint16)))
    assert wr == {"addr": (Flow.Out, unsigned(10)), "slot": (Flow.Out, unsigned(1)),
                  "en": (Flow.Out, unsigned(1)), "data": (Flow.Out, unsigned(16))}


def test_fifo_ports_carry_raw_bits():
    put = _members(fifo_put(shape_of(int8)))
    assert put == {"data": (Flow.Out, unsigned(8)), "en": (Flow.Out, unsigned(1)),
                   "rdy": (Flow.In, unsigned(1))}
    get = _members(fifo_get(signed(12)))
    assert get == {"data": (Flow.In, unsigned(12)), "en": (Flow.Out, unsigned(1)),
                   "rdy": (Flow.In, unsigned(1))}
