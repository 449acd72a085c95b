"""Signatures of the ports between compute groups, buffers and FIFOs (from the group's side)."""
from amaranth.hdl import Const, Shape, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ..schedule.host_timing import slot_bits


def addr_width(depth):
    """Address bits of a bank of ``depth`` elements."""
    return ceil_log2(depth)


def _addr(depth):
    """The ``addr`` member of a port into a bank of ``depth`` elements: none for one."""
    return {"addr": Out(addr_width(depth))} if addr_width(depth) else {}


def read_port(depth, shape, slots_bits=1):
    """A synchronous memory read of problem slot ``slot``: ``data`` holds ``mem[addr]`` one
    enabled cycle later (a bank of one element has no ``addr``: `address`)."""
    return wiring.Signature({**_addr(depth), "slot": Out(slots_bits), "en": Out(1),
                             "data": In(shape)})


def write_port(depth, shape, slots_bits=1):
    """A write into problem slot ``slot`` (a bank of one element has no ``addr``)."""
    return wiring.Signature({**_addr(depth), "slot": Out(slots_bits), "en": Out(1),
                             "data": Out(shape)})


def address(port):
    """The address of a ``read_port`` or ``write_port`` interface: its ``addr``, or the
    constant 0 of no bits into a bank of one element."""
    return port.addr if "addr" in port.signature.members else Const(0, 0)


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
