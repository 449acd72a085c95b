"""Which output tensors keep a row of banks in one memory.

An output bank holding several results per PE (a folded output-stationary array: a 12x12
array running 132x12 outputs keeps 11 per PE) was one memory per PE: 144 small LUT-RAMs
(2,304 TRELLIS_DPR16X4, half the design's logic) whose 144 x 32 read wires met in one mux
across the die. The banks along the innermost shard dimension (a row of PEs) can share one
memory, one block RAM and one write port per row, when the schedule never writes two of them
in one cycle: their writers share a controller (one group, one stall) and write at different
counts. Problems never share a cycle of writes: the next problem's first write comes after
the previous one's finish (``cycles.problem_spacing``).
"""
from collections import defaultdict

from ..ir.graph import Write
from .cycles import statement_iterations
from .host_timing import chained, range_bits, slot_bits


def shared_rows(graph, sched, ports, bankings):
    """The names of the output tensors whose rows of banks share a memory
    (``rtl.output_banks``): ``ports`` group name -> ``ports.GroupPorts``, ``bankings`` tensor
    name -> ``ir.layout.Banking``."""
    writes = defaultdict(list)      # (tensor, bank) -> [(group, {counts})]
    for g in sched.groups:
        for name, site, stmt, its in statement_iterations(graph, g):
            if isinstance(stmt, Write):
                port = ports[g.name].port_of[site]
                tap = g.skew[name] + sched.levels[name].writes[site]
                writes[stmt.tensor, port.bank].append((g.name, {i + tap for i in its}))
    return frozenset(t.name for t in graph.outputs
                     if _rows_disjoint(writes, t.name, bankings[t.name]))


def _rows_disjoint(writes, tensor, banking):
    row = banking.shards[-1] if banking.shards else 1
    if chained(banking) or row < 2:
        return False
    for first in range(0, banking.banks, row):
        writers = [w for b in range(first, first + row) for w in writes[tensor, b]]
        counts = [c for _, cs in writers for c in cs]
        if len({g for g, _ in writers}) > 1 or len(set(counts)) < len(counts):
            return False
    return True


def output_memories(banking, slots, shared):
    """``(memories, banks per memory, entries of each)`` of an output in memories
    (``rtl.output_banks``): a memory per bank, or with ``shared`` rows one per row of banks,
    each bank's ``slots`` problems at power-of-two strides."""
    row = banking.shards[-1] if shared else 1
    entries = 1 << (range_bits(banking.depth) + range_bits(row) + slot_bits(slots))
    return banking.banks // row, row, entries
