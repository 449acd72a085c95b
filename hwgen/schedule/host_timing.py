"""The host side's timing rules: how many elements travel per beat on each port (lanes), how
many problems each buffer holds (slots), the steady-state cycles per problem and the latency of
one problem.

``rtl.top.Top`` builds its buffers from these rules, and ``dataflow``'s cost model calls the
same functions, so the cost model's cycle counts are the hardware's by construction.
"""
import math
from dataclasses import dataclass, replace

from ..errors import HwgenError
from ..host import beats as shape_beats

# Chain bits one copy of an output chain's load or shift decision drives (``copy_groups``).
LOADS_PER_COPY = 64

# Cycles by which a group that never stalls announces its finish (``Plan.announces_finish``):
# a register in ``rtl.top``, then an output chain's decision ``lead - 1`` cycles ahead
# (``Plan.chain_lead``).
FINISH_AHEAD = 4

# Cycles from a commit to the first output beat: the chain loads (or the first read issues) in
# the cycle after the commit, the beat is valid one cycle later and reaches the host through
# one register (``rtl.skid``). Memory banks read in two cycles (``rtl.output_banks``: the
# memory, then a data register beside it): one more.
DRAIN_LATENCY = 3
BANK_DRAIN_LATENCY = DRAIN_LATENCY + 1

# Cycles from the host's input beat to its memory write (``rtl.input_buffer``): the beat lands
# in a register beside the port and again beside the counters that walk the banks, its write
# is registered there, then ``INPUT_MID_STAGES`` times more with no enable on its way across
# the die (the last two ranks of copies), so that no one stage's route spans the die to a
# bank's copy, then copied per bank.
INPUT_MID_STAGES = 2
LOAD_LATENCY = 4 + INPUT_MID_STAGES

# Banks fed by one copy of the last of those stages (``write_copies``), so that no register
# drives every bank across the die.
BANKS_PER_WRITE_COPY = 3


def range_bits(n):
    """Bits of a counter over ``range(n)`` (Amaranth's ``Signal(range(n))``, ``ceil_log2(n)``;
    the layers below ``rtl`` do not import Amaranth)."""
    return max(0, (n - 1).bit_length())


def write_copies(banks):
    """Copies of an input's last write stage, one per ``BANKS_PER_WRITE_COPY`` neighbouring
    banks (``rtl.input_buffer``)."""
    return -(-banks // BANKS_PER_WRITE_COPY)


def skid_entries(lead):
    """Entries of the stream buffer at an output port that announces its ``ready`` ``lead``
    cycles ahead (``rtl.skid``): one per beat it may have promised room to, and the one being
    read."""
    return lead + 1


def slot_bits(slots):
    """Bits that number ``slots`` buffer slots (problems in flight)."""
    return max(1, range_bits(slots))


def numel(tensor):
    return math.prod(tensor.shape)


def row_pad(tensor, lanes):
    """Elements of padding the host sends after each row (innermost dimension) of an input so
    that every row fills whole beats: 0 when ``lanes`` divides the row, and for outputs."""
    return -tensor.shape[-1] % lanes if tensor.direction == "in" else 0


def beats(tensor, lanes):
    """Beats that move one problem's ``tensor`` at ``lanes`` elements per beat."""
    return shape_beats(tensor.shape, lanes, row_pad(tensor, lanes))


def padded(tensor, banking, lanes):
    """``banking`` with each row of the innermost dimension extended by its padding, the way an
    input buffer stores it (padding elements are written, never read)."""
    pad = row_pad(tensor, lanes)
    return replace(banking, extent=banking.extent[:-1] + (banking.extent[-1] + pad,)) \
        if pad else banking


def chained(banking):
    """One element per bank: output banks are registers drained through a shift chain."""
    return banking.depth == 1


def row_length(banks, shape):
    """The banks in a row of the tensor (of ``shape``, one element per bank in row-major
    order), or all ``banks`` when they do not hold one element each."""
    return shape[-1] if shape and math.prod(shape) == banks else banks


def copy_groups(banks, shape, width):
    """The copy of the load and shift decisions each of ``banks`` chain registers of ``width``
    bits takes: one copy per ``LOADS_PER_COPY`` chain bits, and none shared between two rows
    of the tensor (of ``shape``, one element per bank in row-major order). A row's last and
    the next row's first PE sit at opposite ends of the array, and a copy shared between
    them would route across the die."""
    per_copy = max(1, LOADS_PER_COPY // width)
    row = row_length(banks, shape)
    per_row = -(-row // per_copy)
    return [b // row * per_row + b % row // per_copy for b in range(banks)]


def lane_split(banking, shape, lanes):
    """``(F, G)``: elements per bank and banks per beat for ``lanes`` elements per beat, or a
    HwgenError saying which lane counts fit this tensor's layout."""
    last, ext = shape[-1], banking.extent[-1]
    if lanes < 1:
        raise HwgenError(f"lanes={lanes} must be at least 1 and divide the innermost "
                         f"dimension ({last})")
    if banking.is_cyclic(len(shape) - 1):       # consecutive elements in consecutive banks
        if banking.shards[-1] % lanes:
            raise HwgenError(f"lanes={lanes} must divide the {banking.shards[-1]} banks the "
                             f"innermost dimension ({last}) is dealt over, one per beat")
        return 1, lanes
    if last % lanes:
        # Rows end in a padded beat: possible when each bank holds whole rows, in sub-banks.
        if banking.shards[-1] != 1 or lanes & (lanes - 1):
            raise HwgenError(f"lanes={lanes} must divide the innermost dimension ({last}), "
                             + ("which is sharded" if banking.shards[-1] != 1 else
                                "or be a power of two (rows then end in a padded beat)"))
        ext = -(-ext // lanes) * lanes
    if ext % lanes == 0:
        f = lanes
    elif lanes % ext == 0:
        f = ext
    else:
        raise HwgenError(f"lanes={lanes} does not fit a layout with {ext} elements per shard "
                         "in the innermost dimension; use a divisor or multiple of it")
    if f & (f - 1):
        raise HwgenError(f"lanes={lanes} would split banks {f} ways; use a power of two")
    return f, lanes // f


def check_lanes(tensor, banking, lanes):
    """``lanes`` if the port of ``tensor`` supports it, else a HwgenError naming the tensor."""
    try:
        if tensor.direction == "in":
            lane_split(banking, tensor.shape, lanes)
        elif lanes != 1 and (lanes < 1 or not chained(banking) or numel(tensor) % lanes):
            raise HwgenError(f"output '{tensor.name}' supports lanes=1"
                             + (" or a divisor of its size" if chained(banking) else ""))
    except HwgenError as e:
        raise HwgenError(f"tensor '{tensor.name}': {e.message}") from None
    return lanes


def auto_lanes(tensor, banking, compute, spacing):
    """The fewest lanes that fit the layout and move the tensor in ``spacing`` cycles, the time
    the array spends per problem; the fewest beats otherwise. ``compute`` is the cycles of one
    problem in the array. Divisors of the innermost dimension come first; an input whose rows
    no divisor moves in time gets a power of two with padded rows (``row_pad``)."""
    target = spacing
    if tensor.direction == "out" and chained(banking):
        target -= 1             # a chain's drain needs one cycle more than its beats
        target = min(target, 2 * (target + 1) - compute - 2)
    last = tensor.shape[-1]
    candidates = [n for n in range(1, last + 1) if last % n == 0]
    if tensor.direction == "in":
        candidates += [1 << b for b in range(1, range_bits(last) + 1) if last % (1 << b)]
    fitting = []
    for lanes in candidates:
        try:
            fitting.append(check_lanes(tensor, banking, lanes))
        except HwgenError:
            pass
    enough = [n for n in fitting if beats(tensor, n) <= max(1, target)]
    exact = [n for n in enough if not row_pad(tensor, n)]
    if exact or enough:
        return min(exact or enough)
    return min(fitting, key=lambda n: (beats(tensor, n), row_pad(tensor, n) > 0, n))


@dataclass(frozen=True)
class HostSide:
    """What the host rules decide for a set of tensors (see `host_side`)."""
    lanes: dict         # tensor name -> elements per beat
    bankings: dict      # tensor name -> banking, rows padded as the host sends them
    interval: int
    slots: int
    latency: int


def host_side(tensors, bankings, compute, starts, want=None):
    """Lanes (``want``: a number for every port, a dict per tensor name, or None for
    `auto_lanes`), padded bankings, interval, slots and latency: the one place ``schedule.plan``
    and ``dataflow.cost`` get them from."""
    lanes = {}
    for t in tensors:
        n = want.get(t.name) if isinstance(want, dict) else want
        lanes[t.name] = check_lanes(t, bankings[t.name], n) if n is not None \
            else auto_lanes(t, bankings[t.name], compute, starts)
    padded_bankings = {t.name: padded(t, bankings[t.name], lanes[t.name]) for t in tensors}
    interval, slots = host_timing(tensors, padded_bankings, lanes, compute, starts)
    return HostSide(lanes, padded_bankings, interval, slots,
                    latency(tensors, padded_bankings, lanes, compute))


def host_timing(tensors, bankings, lanes, compute, starts):
    """``(interval, slots)``: steady-state cycles per problem back to back, and how many
    problems each buffer holds so that loading and draining never hold that up. ``starts`` is
    the fewest cycles between two problem starts in the array."""
    n_in = max((beats(t, lanes[t.name]) for t in sent(tensors)), default=0)
    n_out = max(beats(t, lanes[t.name]) for t in tensors if t.direction == "out")
    outputs = [t for t in tensors if t.direction == "out"]
    chains = [t for t in outputs if chained(bankings[t.name])]
    # A chain's drain takes a cycle more than its beats; memory banks read the next problem's
    # first element right after the last one's last.
    interval = max([starts, n_in] + [beats(t, lanes[t.name]) + (t in chains) for t in outputs])
    if chains:
        # A chain drains problem p-1 before p+1 starts (see rtl.output_chain).
        interval = max(interval, -(-(compute + n_out + 2) // 2))
    # A slot is busy from the start of its load until its problem finishes (inputs) or has
    # drained (memory outputs); enough slots hide that behind `interval` per problem.
    hold = compute + 1 + (LOAD_LATENCY + n_in if n_in else 0)
    for t in outputs:
        if t not in chains:
            hold = max(hold, compute + beats(t, lanes[t.name]) + BANK_DRAIN_LATENCY)
    for slots in (2, 3, 4):
        if slots * interval >= hold:
            return interval, slots
    return max(interval, -(-hold // 4)), 4


def sent(tensors):
    """The inputs among ``tensors`` the host sends with every problem: all but the resident
    ones (``ir.types.resident``), which it loads once."""
    return [t for t in tensors if t.direction == "in" and not t.type.resident]


def latency(tensors, bankings, lanes, compute):
    """Cycles of one problem that finds the accelerator idle (its resident tensors loaded),
    first input beat to last output beat, when the host never stalls: load, compute, commit,
    drain. A design without inputs starts its first problem on its own, on the first clock
    edge out of reset: its cycles count from there."""
    n_in = max((beats(t, lanes[t.name]) for t in sent(tensors)), default=0)
    drain = max(beats(t, lanes[t.name]) + drain_latency(bankings[t.name])
                for t in tensors if t.direction == "out")
    return (n_in + LOAD_LATENCY if n_in else 0) + compute + drain


def drain_latency(banking):
    """Cycles from a commit to the first output beat of a tensor banked as ``banking``."""
    return DRAIN_LATENCY if chained(banking) else BANK_DRAIN_LATENCY
