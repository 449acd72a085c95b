"""Signatures of the ports between compute groups, buffers and FIFOs (from the group's side)."""
from amaranth.hdl import Shape, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2


def addr_width(depth):
    """Address bits of a bank of ``depth`` elements."""
    return ceil_log2(depth)


def read_port(depth, shape, slots_bits=1):
    """A synchronous memory read of problem slot ``slot``: ``data`` holds ``mem[addr]`` one
    enabled cycle later."""
    return wiring.Signature({"addr": Out(addr_width(depth)), "slot": Out(slots_bits),
                             "en": Out(1), "data": In(shape)})


def write_port(depth, shape, slots_bits=1):
    """A write into problem slot ``slot``."""
    return wiring.Signature({"addr": Out(addr_width(depth)), "slot": Out(slots_bits),
                             "en": Out(1), "data": Out(shape)})


def fifo_put(shape):
    """The write side of a FIFO: ``en`` writes ``data`` when ``rdy``."""
    return wiring.Signature({"data": Out(Shape.cast(shape).width), "en": Out(1), "rdy": In(1)})


def fifo_get(shape):
    return wiring.Signature({"data": In(Shape.cast(shape).width), "en": Out(1), "rdy": In(1)})


def shape_of(dtype):
    """The Amaranth shape of an ``IntType``."""
    return signed(dtype.bits) if dtype.signed else unsigned(dtype.bits)
