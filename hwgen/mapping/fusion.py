"""Fusion decided by a cost model: for every producer-consumer pair of tasks, keep the
intermediate on chip (fused: one design, the pair's streams as written) or send it to the host
and back (materialised: the graph cut into stages that run one after another,
``mapping.materialise``).

The rule compilers such as XLA and IREE apply, for an FPGA: fuse only when the live
intermediate tile (what the consumer holds of it at once), doubled for ping-pong buffering,
fits the block RAM the rest of the design leaves within the budget, and when the fused design
needs no more cycles per problem than the stages together. Fused tasks share one problem at a
time where streams couple them; the stages each overlap problems on their own but move the
intermediate through the host. Cycles come from the schedule (``schedule.plan``), exact.
"""
import math
from dataclasses import dataclass

from ..errors import HwgenError
from ..ir.graph import ArrayWrite, Get, subexprs
from ..schedule import plan
from ..schedule.host_timing import beats
from ..schedule.memories import block_rams
from ..schedule.ports import safe_name
from .materialise import materialise

# Block RAMs of each device (ECP5 DP16KD, iCE40 EBR): the default budget.
DEVICE_BRAMS = {"ecp5-85k": 208, "ice40-up5k": 30}


@dataclass
class Decision:
    """The fusion decision for the streams from ``producer`` to ``consumer`` (task names)."""
    producer: str
    consumer: str
    channels: list          # the streams between them
    tile_bits: int          # the live tile
    blocks: int             # block RAMs of the tile, doubled (0: LUT RAM or registers)
    used: int               # block RAMs the fused design takes without this tile
    budget: int             # block RAMs allowed
    fused: int              # cycles per problem, fused
    elements: int = 0       # materialised: elements of the intermediate per problem,
    traffic: int = 0        # the host beats that send it out and back,
    stages: list = ()       # cycles per problem of each stage
    staged_blocks: list = ()    # and block RAMs of each stage's design
    refused: str = None     # why the pair cannot be materialised, if it cannot

    @property
    def fuse(self):
        return bool(self.refused) or (self.used + self.blocks <= self.budget
                                      and self.fused <= sum(self.stages))

    @property
    def why(self):
        if self.refused:
            return f"fuse: it cannot be materialised ({self.refused})"
        if self.used + self.blocks > self.budget:
            return (f"materialise: fused, the design would need {self.used + self.blocks} "
                    f"block RAMs, over the budget of {self.budget}")
        staged = sum(self.stages)
        verb = "fuse" if self.fuse else "materialise"
        sign = "<=" if self.fuse else ">"
        return f"{verb}: fused {self.fused} {sign} materialised {staged} cycles per problem"

    def lines(self):
        """The decision and its numbers, as printed by ``hwgen fusion``."""
        if self.refused:
            return [f"{self.producer} -> {self.consumer} (stream {', '.join(self.channels)})",
                    f"  -> {self.why}"]
        where = f"{self.blocks} block RAMs" if self.blocks else "no block RAM (LUT RAM)"
        per_stage = " and ".join(map(str, self.staged_blocks))
        return [f"{self.producer} -> {self.consumer} (stream {', '.join(self.channels)}: "
                f"{self.elements} elements per problem)",
                f"  live tile {self.tile_bits} bits, x2 ping-pong: {where}; fused design "
                f"{self.used} + {self.blocks} block RAMs (budget {self.budget}), materialised "
                f"{per_stage}",
                f"  fused: {self.fused} cycles per problem; materialised: "
                + " + ".join(map(str, self.stages)) + f" = {sum(self.stages)}, the intermediate "
                f"taking {self.traffic} host beats out and back",
                f"  -> {self.why}"]


def fusion_decisions(graph, brams=None, device="ecp5-85k"):
    """One ``Decision`` per producer-consumer pair of tasks of the checked ``graph``, within a
    budget of ``brams`` block RAMs (default: the device's), in program order; pairs decided
    earlier take their tiles out of the budget first."""
    if brams is None and device not in DEVICE_BRAMS:
        raise HwgenError(f"unknown device {device!r}: use " + ", ".join(DEVICE_BRAMS)
                         + ", or give the block RAM budget (--brams N)")
    budget = DEVICE_BRAMS[device] if brams is None else brams
    if not isinstance(budget, int) or budget < 0:
        raise HwgenError(f"the block RAM budget must be a whole number of block RAMs, 0 or "
                         f"more (--brams 16); got {budget!r}")
    whole = plan(graph)
    fused, used = whole.interval_cycles, buffer_blocks(graph, whole.slots)
    out = []
    for (producer, consumer), channels in _pairs(graph).items():
        tile = _tile(graph, channels)
        d = Decision(producer, consumer, channels, sum(n * bits for n, bits in tile),
                     sum(block_rams(2 * n, bits) for n, bits in tile), used, budget, fused)
        try:
            _materialised(d, graph)
        except HwgenError as e:
            d.refused = str(e)
        used += d.blocks if d.fuse else 0
        out.append(d)
    return out


def _materialised(d, graph):
    """Fill in ``d``'s numbers for its streams going through the host: the stages' plans."""
    plans = [plan(s) for s in materialise(graph, d.channels)]
    made = [(t, p.lanes[t.name]) for p in plans for t in p.graph.tensors.values()
            if t.name in {safe_name(c) for c in d.channels}]
    d.elements = sum(math.prod(t.shape) for t, _ in made if t.direction == "out")
    d.traffic = sum(beats(t, lanes) for t, lanes in made)
    d.stages = [p.interval_cycles for p in plans]
    d.staged_blocks = [buffer_blocks(p.graph, p.slots) for p in plans]


def fused_stages(graph, decisions):
    """The stages ``graph`` runs as under ``decisions``: the streams of every pair not fused
    go through the host (one stage, the graph itself, when every pair is fused)."""
    cut = [ch for d in decisions if not d.fuse for ch in d.channels]
    return materialise(graph, cut) if cut else [graph]


def report(graph, decisions, stages):
    """What ``hwgen fusion`` prints: every pair's decision with its numbers, then the design or
    the stages the graph runs as."""
    lines = [f"fusion of {graph.name} {graph.params}: {len(decisions)} producer-consumer pairs"]
    for d in decisions:
        lines += d.lines()
    if len(stages) == 1:
        return lines + ["runs as one design, every intermediate on chip"]
    lines.append(f"runs as {len(stages)} designs one after another, the host passing the "
                 "materialised intermediates on:")
    for s in stages:
        tasks = sorted({i.task for i in s.instances.values()}, key=[
            i.task for i in graph.instances.values()].index)
        lines.append(f"  {s.name}: tasks {', '.join(tasks)}; in "
                     + ", ".join(t.name for t in s.inputs) + "; out "
                     + ", ".join(t.name for t in s.outputs))
    return lines


def _pairs(graph):
    """(producer task, consumer task) -> the streams between their instances."""
    pairs = {}
    for ch in graph.channels.values():
        p, c = graph.instances[ch.producer].task, graph.instances[ch.consumer].task
        if p != c:
            pairs.setdefault((p, c), []).append(ch.name)
    return pairs


def _tile(graph, channels):
    """The live intermediate tile, as ``(elements, bits)`` parts: the consumer's local arrays
    filled from the streams' gets, or the streams' own depth where it takes elements one at a
    time."""
    parts = []
    for name in channels:
        ch = graph.channels[name]
        inst = graph.instances[ch.consumer]
        arrays = {s.array for seg in inst.segments for s in seg.body
                  if isinstance(s, ArrayWrite) and any(
                      isinstance(e, Get) and e.channel == name for e in subexprs(s.value))}
        parts += [(math.prod(inst.arrays[a].shape), inst.arrays[a].dtype.bits)
                  for a in sorted(arrays)] or [(ch.depth, ch.dtype.bits)]
    return parts


def buffer_blocks(graph, slots=2):
    """Block RAMs of the design's tensor buffers, ``slots`` problems each (an estimate: one
    memory per tensor, where banking may split it)."""
    return sum(block_rams(slots * math.prod(t.shape), t.dtype.bits)
               for t in graph.tensors.values())
