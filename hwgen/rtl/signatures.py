"""Signatures of the ports between compute groups, buffers and FIFOs (from the group's side)."""
from amaranth.hdl import Shape, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ..schedule.host_timing import slot_bits


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
    """The read side of a FIFO: ``en`` takes ``data`` when ``rdy``."""
    return wiring.Signature({"data": In(Shape.cast(shape).width), "en": Out(1), "rdy": In(1)})


def shape_of(dtype):
    """The Amaranth shape of an ``IntType``."""
    return signed(dtype.bits) if dtype.signed else unsigned(dtype.bits)


def stored_shape(dtype, r):
    """The narrowest shape of ``dtype``'s signedness that holds every value in the range
    ``r`` (``ir.ranges.hardware_ranges``); ``dtype``'s own shape when ``r`` is None."""
    if r is None:
        return shape_of(dtype)
    if dtype.signed:
        return signed(max(1, max(-r[0] - 1, r[1]).bit_length() + 1))
    return unsigned(max(1, r[1].bit_length()))


def bank_ports(kind, banks, banking, shape, slots):
    """The members of a buffer's ports on its banks: ``rd<k>`` (``kind="read"``, ``In``
    ``read_port``) or ``wr<k>`` (``"write"``, ``In`` ``write_port``), port ``k`` on bank
    ``banks[k]`` of ``banking``, numbering ``slots`` problem slots."""
    if slots < 1:
        raise ValueError(f"a buffer holds at least one problem: slots={slots}")
    for b in banks:
        if not 0 <= b < banking.banks:
            raise ValueError(f"{kind} port on bank {b}, but the layout has {banking.banks} "
                             "banks")
    make = read_port if kind == "read" else write_port
    return {bank_port_name(kind, k): In(make(banking.depth, shape, slot_bits(slots)))
            for k in range(len(banks))}


def bank_port_name(kind, k):
    """The name of a buffer's ``k``-th ``"read"`` or ``"write"`` port."""
    return f"{'rd' if kind == 'read' else 'wr'}{k}"
