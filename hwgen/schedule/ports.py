"""The ports of a lockstep group, in plain data: one memory port per tensor access (reads of
the same address by members at the same skew share one: a broadcast), one FIFO port per stream
op on a FIFO. ``rtl.group.Group`` builds its signature from this plan, ``rtl.top.Top`` wires
buffers and FIFOs by it."""
from dataclasses import dataclass, field

from ..ir.graph import (ArrayRead, Const, Get, LoopIndex, Put, Read, StreamOp, VarRef, Write,
                        stmt_exprs, subexprs)
from ..ir.layout import cyclic_split, index_bounds
from ..ir.types import Sharded


@dataclass(frozen=True)
class MemoryPort:
    """A read (``write=False``) or write port into one bank of ``tensor``. A read port is
    ``ahead`` when its group drives its address and slot one enabled cycle early (`ahead`):
    the buffer registers them (``rtl.input_buffer``, in a copy beside each block RAM)."""
    name: str
    tensor: str
    bank: int
    write: bool
    ahead: bool = False


@dataclass(frozen=True)
class FifoPort:
    """The group's end of a FIFO stream."""
    name: str
    channel: str
    op: StreamOp


@dataclass
class GroupPorts:
    """Every port of a group, in signature order.

    Attributes
    ----------
    ports : list
        ``MemoryPort`` and ``FifoPort``, in the order the group's signature lists them.
    port_of : dict
        An access -> its ``MemoryPort``; an access is the ``ir.Site`` of a ``Write``, or
        ``(site, read)`` for a ``Read`` in the statement at ``site``.
    shard_base : dict
        An access -> the first index of its bank's shard, per dimension.
    address_index : dict
        An access -> the index expressions its address in the bank is
        computed from, per dimension: the access's own, less ``shard_base``; for a cyclic
        dimension the index divided by its shards (``ir.layout.cyclic_split``).
    """
    ports: list = field(default_factory=list)
    port_of: dict = field(default_factory=dict)
    shard_base: dict = field(default_factory=dict)
    address_index: dict = field(default_factory=dict)

    @property
    def reads(self):
        """The read ports, in signature order."""
        return [p for p in self.ports if isinstance(p, MemoryPort) and not p.write]

    @property
    def writes(self):
        """The write ports, in signature order."""
        return [p for p in self.ports if isinstance(p, MemoryPort) and p.write]

    def fifo(self, op):
        """The FIFO ports for ``op`` (``StreamOp.PUT`` or ``GET``)."""
        return [p for p in self.ports if isinstance(p, FifoPort) and p.op is op]


def safe_name(name):
    """An instance or channel name as an identifier (``pe[0,1]`` -> ``pe_0_1``; a folded
    stream ``a[0,3>0,0]`` -> ``a_0_3_to_0_0``; a called region's ``w[0].s`` -> ``w_0_s``)."""
    for old, new in (("[", "_"), ("]", ""), (",", "_"), ("@", "_"), (">", "_to_"), (".", "_")):
        name = name.replace(old, new)
    return name


def _static_index(access):
    """Whether an access's address depends only on loop indices and constants."""
    return not any(isinstance(e, (VarRef, Get, Read, ArrayRead))
                   for i in access.index for e in subexprs(i))


def ahead(address, skew):
    """Whether a read at ``address`` (``GroupPorts.address_index``) by a member ``skew``
    cycles behind its group's base can be addressed one cycle early: every index is a loop
    index or a constant, whose delay line holds its value a cycle before (the base has no
    earlier value)."""
    return skew > 0 and all(isinstance(i, (LoopIndex, Const)) for i in address)


def _bank(graph, bankings, access, seg):
    """``(bank, shard_base, address_index)`` of the single bank an access touches (the layout
    check guarantees there is one); ``GroupPorts``."""
    tensor, banking = graph.tensors[access.tensor], bankings[access.tensor]
    layout = tensor.type.layout or ()
    index, address = [], list(access.index)
    for d, e in enumerate(access.index):
        if banking.is_cyclic(d):
            index.append(0)
            residue, address[d] = cyclic_split(e, banking.shards[d])
            index[d] = residue
        else:
            index.append(index_bounds(e, seg.trips)[0]
                         if d < len(layout) and isinstance(layout[d], Sharded) else 0)
    base = tuple(0 if banking.is_cyclic(d) else (i // x) * x
                 for d, (i, x) in enumerate(zip(index, banking.extent)))
    return banking.bank(index), base, tuple(address)


def plan_ports(graph, sched, group, bankings):
    """The ``GroupPorts`` of ``group``."""
    plan, shared = GroupPorts(), {}
    counts = {True: 0, False: 0}

    def memory(key, access, inst, seg, write):
        bank, plan.shard_base[key], plan.address_index[key] = _bank(graph, bankings, access, seg)
        broadcast = None
        if not write and _static_index(access):
            # Reads of the same address of one bank at the same skew share one port (a
            # broadcast); tests/dataflow/test_cost.py holds the cost model's count to this.
            broadcast = (access.tensor, bank, access.index, group.skew[inst.name])
            if broadcast in shared:
                plan.port_of[key] = shared[broadcast]
                return
        port = MemoryPort(f"{'wr' if write else 'rd'}{counts[write]}", access.tensor, bank,
                          write, not write and ahead(plan.address_index[key],
                                                     group.skew[inst.name]))
        counts[write] += 1
        plan.ports.append(port)
        plan.port_of[key] = port
        if broadcast is not None:
            shared[broadcast] = port

    def fifo(channel, op):
        """One port per stream and direction, shared by the instance's statements on it."""
        if not any(isinstance(p, FifoPort) and (p.channel, p.op) == (channel, op)
                   for p in plan.ports):
            plan.ports.append(FifoPort(f"{op.value}_{safe_name(channel)}", channel, op))

    for name in group.members:
        inst = graph.instances[name]
        for site, seg, s in inst.sites():
            if isinstance(s, Write):
                memory(site, s, inst, seg, write=True)
            if isinstance(s, Put) and s.channel in sched.fifos:
                fifo(s.channel, StreamOp.PUT)
            for e in stmt_exprs(s):
                if isinstance(e, Read) and (site, e) not in plan.port_of:
                    memory((site, e), e, inst, seg, write=False)
                if isinstance(e, Get) and e.channel in sched.fifos:
                    fifo(e.channel, StreamOp.GET)
    return plan
