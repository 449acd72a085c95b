"""The host side's timing rules: how many elements travel per beat on each port (lanes), how
many problems each buffer holds (slots), the steady-state cycles per problem and the latency of
one problem.

``rtl.top.Top`` builds its buffers from these rules, and ``dataflow``'s cost model calls the
same functions, so the cost model's cycle counts are the hardware's by construction.
"""
import math

from ..errors import HwgenError

# Cycles from a commit to the first output beat: the chain loads (or the first read issues) in
# the cycle after the commit, and the beat is valid one cycle later.
DRAIN_LATENCY = 2


def range_bits(n):
    """Bits of a counter over ``range(n)`` (Amaranth's ``Signal(range(n))``, ``ceil_log2(n)``;
    the layers below ``rtl`` do not import Amaranth)."""
    return max(0, (n - 1).bit_length())


def slot_bits(slots):
    """Bits that number ``slots`` buffer slots (problems in flight)."""
    return max(1, range_bits(slots))


def numel(tensor):
    return math.prod(tensor.shape)


def chained(banking):
    """One element per bank: output banks are registers drained through a shift chain."""
    return banking.depth == 1


def lane_split(banking, shape, lanes):
    """``(F, G)``: elements per bank and banks per beat for ``lanes`` elements per beat, or a
    HwgenError saying which lane counts fit this tensor's layout."""
    last, ext = shape[-1], banking.extent[-1]
    if lanes < 1 or last % lanes:
        raise HwgenError(f"lanes={lanes} must divide the innermost dimension ({last})")
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
    """The fewest lanes (a divisor of the innermost dimension that fits the layout) that move
    the tensor in ``spacing`` cycles, the time the array spends per problem; the most that fit
    otherwise. ``compute`` is the cycles of one problem in the array."""
    target = spacing
    if tensor.direction == "out":
        target -= 1             # a drain needs one cycle more than its beats
        if chained(banking):
            target = min(target, 2 * (target + 1) - compute - 2)
    need = -(-numel(tensor) // max(1, target))
    fitting = []
    for lanes in range(1, tensor.shape[-1] + 1):
        if tensor.shape[-1] % lanes == 0:
            try:
                fitting.append(check_lanes(tensor, banking, lanes))
            except HwgenError:
                pass
    enough = [n for n in fitting if n >= need]
    return min(enough) if enough else max(fitting)


def host_timing(tensors, bankings, lanes, compute, starts):
    """``(interval, slots)``: steady-state cycles per problem back to back, and how many
    problems each buffer holds so that loading and draining never hold that up. ``starts`` is
    the fewest cycles between two problem starts in the array."""
    beats = {t.name: numel(t) // lanes[t.name] for t in tensors}
    n_in = max(beats[t.name] for t in tensors if t.direction == "in")
    n_out = max(beats[t.name] for t in tensors if t.direction == "out")
    outputs = [t for t in tensors if t.direction == "out"]
    interval = max(starts, n_in, n_out + 1)
    if any(chained(bankings[t.name]) for t in outputs):
        # A chain drains problem p-1 before p+1 starts (see rtl.output_chain).
        interval = max(interval, -(-(compute + n_out + 2) // 2))
    # A slot is busy from the start of its load until its problem finishes (inputs) or has
    # drained (memory outputs); enough slots hide that behind `interval` per problem.
    hold = compute + 1 + n_in
    if any(not chained(bankings[t.name]) for t in outputs):
        hold = max(hold, compute + n_out + 3)
    for slots in (2, 3, 4):
        if slots * interval >= hold:
            return interval, slots
    return max(interval, -(-hold // 4)), 4


def latency(tensors, lanes, compute):
    """Cycles of one problem that finds the accelerator idle, first input beat to last output
    beat, when the host never stalls: load, compute, commit, drain."""
    n_in = max(numel(t) // lanes[t.name] for t in tensors if t.direction == "in")
    n_out = max(numel(t) // lanes[t.name] for t in tensors if t.direction == "out")
    return n_in + compute + DRAIN_LATENCY + n_out
