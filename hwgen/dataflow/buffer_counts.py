"""The resource model's counts of a design point's buffers (``resources``): the host-side
counters and bank arithmetic of every tensor, its landing and skid registers, and its banks as
``rtl`` builds them (input memories with their read registers, output memories or register
chains), each memory mapped as ``schedule.memories`` says."""
import functools
import math

from ..ir.types import Sharded
from ..schedule import READ_LATENCY
from ..schedule.host_timing import (INPUT_MID_STAGES, chained, copy_groups, lane_split, range_bits,
                                    skid_entries, slot_bits, write_copies)
from ..schedule.memories import (NARROW_ELEMENTS, PDPW16KD_SHAPE, buffer_memory, dp16kd_columns,
                                 dp16kd_shape, memory_kind, narrow_read)
from ..schedule.shared_rows import output_memories


def odd(n):
    """``n`` without its factors of two (Yosys turns a multiply by ``2**k * odd`` into a shift
    of a multiply by ``odd``; by a power of two, into a shift alone)."""
    return abs(n) // (abs(n) & -abs(n)) if n else 0            # over its lowest set bit


def count_buffers(n, shape):
    """Add each tensor's buffer of ``shape`` (``resources.Shape``) to the counts ``n``: its
    host-side counters and bank arithmetic, and its banks."""
    for t in shape.tensors:
        bank = shape.bankings[t.name]
        n["ctrl_bit"] += sum(map(range_bits, bank.extent)) + \
            sum(map(range_bits, bank.shards)) + 2 * shape.slots + 3 * slot_bits(shape.slots)
        n["const_mul"] += sum(1 for e, st in zip(bank.extent, bank.strides())
                              if odd(st) > 1 and range_bits(e) >= 2)
        # The registers between the host port and the banks: an input's two landing registers
        # and its stages with no enable (``rtl.input_buffer``); an output's entries and flags
        # (``rtl.skid``: before a chain, which decides four cycles ahead, it announces its
        # ready five cycles ahead).
        lead = 5 if chained(bank) else 1
        bits, entries = shape.lanes[t.name] * t.dtype.bits, skid_entries(lead)
        if t.direction == "in":
            n["buf_bit"] += (2 + INPUT_MID_STAGES) * bits + 3
            _input_banks(n, shape, t, bank)
            continue
        n["buf_bit"] += entries * bits + 2
        n["mux_bit"] += (entries - 1) * bits
        if chained(bank):
            _output_chain(n, shape, t, bank)
        else:
            _output_banks(n, shape, t, bank)


def _input_banks(n, shape, t, bank):
    """The banks of input ``t``: per bank, one memory whose word holds its sub-banks."""
    w = t.dtype.bits
    f, g = lane_split(bank, t.shape, shape.lanes[t.name])
    sharded = [l.axis for l in (t.type.layout or ()) if isinstance(l, Sharded)]
    per_bank = {}           # bank -> [read ports, those addressed ahead (skew > 0)]
    for pos in shape.readers[t.name]:
        ports = per_bank.setdefault(tuple(pos[ax] for ax in sharded), [0, 0])
        ports[0] += 1
        ports[1] += shape.skew[pos] > 0
    entries = (1 << slot_bits(shape.slots)) << range_bits(bank.depth // f)
    # A beat writes G banks. Unless it spans every shard of the innermost dimension (the lane
    # -> bank map is then fixed), each memory has G write ports that Yosys merges.
    merged = g > 1 and bank.shards[-1] > g
    n["lane_bit"] += bank.banks * (g if merged else 1)
    # Each bank's copy of the write address and data, and of its write enables; the two ranks
    # of copies before them beyond the one stage counted above (flip-flop primitives, kept as
    # a delay line's are; ``replica.copies_ahead``).
    beat = range_bits(entries) + shape.lanes[t.name] * w
    fan = write_copies(bank.banks)
    n["buf_bit"] += bank.banks * (beat + g)
    n["delay_bit"] += (fan + math.isqrt(fan - 1)) * beat - beat
    kind_of = functools.partial(buffer_memory, element=w)
    for reads, ahead in per_bank.values():
        in_block = memory(n, entries, f * w, reads, 1, kind_of) == "dp16kd"
        if merged:
            n["mux_bit"] += f * g * (w + range_bits(entries))
        n["buf_bit"] += sum(read_registers(entries, f, w, in_block, k < ahead)
                            for k in range(reads))
        # The and-or narrowing a word to its element, over the blocks where each read one.
        narrow = in_block and narrow_read(dp16kd_shape(entries, f * w, w)[0], f * w, w)
        picked = dp16kd_columns(PDPW16KD_SHAPE[0], f * w, w) if narrow else f
        n["mux_bit"] += reads * picked * w if f > 1 else 0


def read_registers(entries, f, w, in_block, ahead):
    """Register bits of one read port of an input bank of ``entries`` words of ``f`` elements
    of ``w`` bits (``rtl.input_buffer``): the data registers (in blocks with sub-banks: the
    hits, a register per group of elements, one more), the sub-bank select, in blocks the row
    of a read, and for a port ``ahead`` its address register (in blocks, a copy per block)."""
    sub, addr = range_bits(f), range_bits(entries)
    if not in_block:
        return (READ_LATENCY - 1) * w + (1 + ahead) * sub + ahead * addr
    bits, depth = dp16kd_shape(entries, f * w, w)
    rows, columns = -(-entries // depth), dp16kd_columns(bits, f * w, w)
    narrow = narrow_read(bits, f * w, w)        # each block reads one element: a hit per block
    regs = (2 + ahead) * range_bits(rows)
    if ahead:
        element = range_bits(NARROW_ELEMENTS) if narrow else 0
        regs += rows * columns * (min(addr, range_bits(depth)) + element) + sub
    if f == 1:
        return regs + (READ_LATENCY - 2) * w
    # A part register per group of elements (``DP16KDMemory.columns``; an element wider than a
    # block is one group over several blocks), a hit per element or, narrow, per group.
    groups = -(-f // (NARROW_ELEMENTS if narrow else max(1, bits // w)))
    return regs + sub + (groups if narrow else f) + groups * w + (READ_LATENCY - 3) * w


def _output_banks(n, shape, t, bank):
    """An output in memories (``rtl.output_banks``): one per bank, or one per row of banks
    written through an or of its writers' address and data."""
    memories, row, entries = output_memories(bank, shape.slots, shape.shared_rows)
    w = t.dtype.bits
    memory(n, entries, w, 1, memories, functools.partial(buffer_memory, output=True))
    n["buf_bit"] += range_bits(memories) + 3
    if memories > 1:
        n["mux_bit"] += memories * w
    if row > 1:
        n["mux_bit"] += bank.banks * (w + range_bits(entries))


def _output_chain(n, shape, t, bank):
    """One element per bank: registers drained through a shift chain."""
    w, lanes, slots = t.dtype.bits, shape.lanes[t.name], shape.slots
    beats = bank.banks // lanes
    # Two copies (load, shift) per group of chain registers (``copy_groups``), and the copies
    # they take theirs from (``rtl.output_chain``, ``replica.copies_ahead``).
    count = copy_groups(bank.banks, t.shape, w)[-1] + 1
    copies = 2 * (count + math.isqrt(count - 1) + 1)
    n["buf_bit"] += 2 * w * bank.banks + range_bits(beats + 1) + range_bits(slots + 2) + 4 + \
        copies
    n["chain_bit"] += w * max(0, bank.banks - lanes)        # load-or-shift muxes


def memory(n, entries, width, reads, copies, kind_of=memory_kind):
    """Add ``copies`` memories of ``entries`` x ``width`` with ``reads`` read ports, mapped as
    ``kind_of`` says (``schedule.memories``), to the counts ``n``; returns the kind."""
    kind, cells, rows = kind_of(entries, width, reads)
    if kind == "dp16kd":                    # explicit blocks: no registers around them
        n["bram"] += copies * cells
        if rows > 1:
            n["mux_bit"] += copies * reads * rows * width
        return kind
    if kind.startswith("bram"):
        n["bram"] += copies * cells
        # Registers Yosys adds around a block RAM: the emulated read-before-write of PDPW16KD
        # (write delayed, read bypassed), a data register on DP16KD.
        n["bram_emu"] += copies * (2 * width + 7 if kind == "bram36" else width)
        return kind
    if kind == "lutram":
        n["lutram"] += copies * cells
    else:
        n["buf_bit"] += copies * entries * width
    n["buf_bit"] += copies * reads * width              # the synchronous read's register
    n["lane_bit"] += copies * rows                       # write enables per row
    if rows > 1:
        n["mux_bit"] += copies * reads * rows * width
    return kind
