"""The interface every output buffer shares: written by the compute groups, streamed to the
host in row-major order. Two designs implement it: ``output_chain.OutputChain`` (one element
per bank: registers and a shift chain) and ``output_banks.OutputBanks`` (memories read through
a mux tree)."""
from amaranth.hdl import unsigned
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..schedule.host_timing import check_lanes
from .signatures import bank_port_name, bank_ports, shape_of


class OutputBuffer(wiring.Component):
    """Banks -> host stream.

    Parameters
    ----------
    tensor : ir.Tensor
    banking : ir.layout.Banking
    writers : list of int
        The bank each write port ``wr<k>`` writes.
    lanes : int
        Elements per host beat (``schedule.host_timing.check_lanes``).
    slots : int
        Problems in flight.
    members : dict
        A design's own members, beside those above.

    Attributes
    ----------
    host : Out(stream.Signature(unsigned(bits * lanes)))
    space : Out(1)
        The slot the next problem will write is free.
    space_next : Out(1)
        The value ``space`` (a register) takes at the next clock edge (``rtl.top`` copies it
        beside the other blocks).
    start : In(1)
        Pulse: a problem starts.
    commit : In(1)
        Pulse: the oldest started problem finished writing.
    wr<k> : In(write_port)
        Written by the compute groups; ``writers[k]`` is its bank.
    """

    def __init__(self, tensor, banking, writers, lanes=1, slots=2, members=()):
        self._tensor, self._banking, self._writers = tensor, banking, tuple(writers)
        self._lanes = check_lanes(tensor, banking, lanes)
        self._slots = slots
        shape = shape_of(tensor.dtype)
        members = {"host": Out(stream.Signature(unsigned(tensor.dtype.bits * lanes))),
                   "space": Out(1), "space_next": Out(1), "start": In(1), "commit": In(1), **dict(members)}
        members.update(bank_ports("write", self._writers, banking, shape, slots))
        super().__init__(members)

    tensor = property(lambda self: self._tensor)
    banking = property(lambda self: self._banking)
    writers = property(lambda self: self._writers)
    lanes = property(lambda self: self._lanes)
    slots = property(lambda self: self._slots)

    def write_port(self, k):
        """The interface of write port ``k`` (``writers[k]`` is its bank)."""
        return getattr(self, bank_port_name("write", k))

