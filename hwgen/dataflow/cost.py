"""The cost model of a design point: cycles, memory, interconnect and FPGA resources.

Cycles are the schedule's, computed analytically for the regular PE array the generator builds:
a value read from a bank exists at level 2 (``READ_LATENCY``), one from a neighbour at level 0;
the product is one level after the later operand; a stream from PE ``p`` to ``q`` makes ``q``
run ``level + 1`` cycles behind ``p`` (the longest path over the array sets each PE's skew); a
problem takes its time steps plus the deepest PE's skew and pipeline depth. Lanes, slots and the
steady-state interval follow from ``rtl.timing``, the rules the generated top is built from, so
``Cost.cycles`` equals ``interval_cycles`` and ``Cost.latency`` equals ``expected_cycles``.

Resources are a model over structural counts (multipliers, accumulator, link and pipeline
register bits, read ports, buffer bits) with coefficients fitted to nextpnr on ECP5
(``RESOURCE_MODEL``; see ``tests/dataflow/test_cost.py`` and ``make bench``).
"""
import itertools
import math
from dataclasses import dataclass, field

from ..ir.graph import Tensor
from ..ir.layout import banking
from ..ir.types import TensorType
from ..rtl import timing
from ..rtl.schedule import MULT_STAGES, READ_LATENCY
from .generate import IN_TYPE, OUT_TYPE, layout

# Coefficients per structural count, fitted to nextpnr (ECP5-85k) on generated points.
RESOURCE_MODEL = {
    "LUT": {"base": 60.0, "pe": 30.0, "acc_bit": 1.0, "link_bit": 0.0, "port": 10.0,
            "bank_bit": 0.0, "lane_bit": 1.0, "ctrl_bit": 1.0},
    "FF": {"base": 40.0, "pe": 16.0, "acc_bit": 1.0, "link_bit": 1.0, "port": 8.0,
           "bank_bit": 0.0, "lane_bit": 0.0, "ctrl_bit": 1.0},
}
BRAM_BITS = 18 * 1024          # one DP16KD
LUTRAM_LIMIT = 64              # Yosys keeps memories of at most this many entries in LUT RAM


@dataclass
class Cost:
    """What a design point costs. ``cycles`` is the steady-state cycles per problem with the
    host interface; ``array_cycles`` the cycles between problem starts in the array alone (what
    ``cycles`` would be if loading and draining kept up)."""
    cycles: int
    latency: int
    compute: int
    array_cycles: int
    pes: int
    macs: int
    lanes: dict
    banks: int
    ports: int
    fanout: int
    buffer: dict                    # tensor -> distinct elements the array touches per tile
    counts: dict = field(default_factory=dict)
    resources: dict = field(default_factory=dict)

    @property
    def utilization(self):
        """Useful multiply-accumulates per PE per cycle in steady state."""
        return self.macs / (self.pes * self.cycles)


def _tensors(design):
    expr = design.expr
    shapes = expr.shapes(design.sizes)
    out = []
    for a in expr.accesses:
        direction = "out" if a is expr.output else "in"
        dtype = OUT_TYPE if direction == "out" else IN_TYPE
        out.append(Tensor(a.tensor, TensorType(dtype, shapes[a.tensor], layout(design, a)),
                          direction))
    return out


def _skews(design):
    """Per PE: (skew, product level), by the schedule's rules on the generated bodies; and
    the register links as (width, delay)."""
    expr = design.expr
    grid = [design.pes(a) for a in range(len(design.space))]
    systolic = {}                   # input tensor -> axis it flows along
    for a in expr.inputs:
        along = [ax for ax, l in enumerate(design.space) if design.lacks(a, l) and design.skew[ax]]
        if along:
            systolic[a.tensor] = along[0]
    chain = [ax for ax, l in enumerate(design.space) if design.lacks(expr.output, l)]
    chain = chain[0] if chain else None
    skew, prod, links = {}, {}, []

    def level(pos, tensor):
        axis = systolic.get(tensor)
        return 0 if axis is not None and pos[axis] > 0 else READ_LATENCY

    def step_back(pos, axis):
        return pos[:axis] + (pos[axis] - 1,) + pos[axis + 1:]

    for pos in itertools.product(*(range(n) for n in grid)):      # sources before sinks
        prod[pos] = max(level(pos, a.tensor) for a in expr.inputs) + MULT_STAGES
        incoming = []           # (source PE, skew it adds, bits)
        for a in expr.inputs:
            axis = systolic.get(a.tensor)
            if axis is not None and pos[axis] > 0:
                src = step_back(pos, axis)
                incoming.append((src, level(src, a.tensor) + 1, IN_TYPE.bits))
        if chain is not None and pos[chain] > 0:
            src = step_back(pos, chain)
            incoming.append((src, prod[src] + 1, OUT_TYPE.bits))
        skew[pos] = max((skew[src] + w for src, w, _ in incoming), default=0)
        links.extend((bits, skew[pos] - skew[src] - (w - 1)) for src, w, bits in incoming)
    return skew, prod, links, chain


def distinct(access, ranges):
    """Exact number of distinct elements ``access`` touches when each loop ``l`` runs over
    ``range(ranges[l])`` (dimensions sharing no loop multiply; shared loops are enumerated)."""
    dims = [tuple((l, c) for l, c in zip(ranges, row) if c and ranges[l] > 1)
            for row in access.matrix]
    groups = []
    for d in dims:
        loops = {l for l, _ in d}
        merged = [g for g in groups if g[0] & loops]
        rest = [g for g in groups if not g[0] & loops]
        group = (loops.union(*(g[0] for g in merged)), [d] + [x for g in merged for x in g[1]])
        groups = rest + [group]
    total = 1
    for loops, ds in groups:
        loops = sorted(loops)
        if len(ds) == 1 and all(abs(c) == 1 for _, c in ds[0]):
            total *= 1 + sum(ranges[l] - 1 for l, _ in ds[0])
            continue
        points = set()
        for values in itertools.product(*(range(ranges[l]) for l in loops)):
            env = dict(zip(loops, values))
            points.add(tuple(sum(c * env[l] for l, c in d) for d in ds))
        total *= len(points)
    return total


def cost(design):
    """The ``Cost`` of ``design`` (exact or not: tiles are rounded up)."""
    expr = design.expr
    grid = tuple(design.pes(a) for a in range(len(design.space)))
    pes = math.prod(grid)
    iterations = design.iterations
    skew, prod, links, chain = _skews(design)
    depth = {p: prod[p] + 1 for p in skew}
    taps = max(skew[p] + depth[p] - 1 for p in skew)
    compute = iterations + taps
    red = design.reduction_depth
    trips = [p.trip for p in design.nest]
    w0 = math.prod(trips[red:]) - 1 if red is not None else 0
    writers = [p for p in skew if chain is None or p[chain] == grid[chain] - 1]
    finish = iterations - 1 + taps
    first_write = min(w0 + skew[p] + prod[p] for p in writers)
    spacing = max(iterations, finish - first_write + 1)

    tensors = _tensors(design)
    bankings = {t.name: banking(t, grid) for t in tensors}
    lanes = {t.name: timing.auto_lanes(t, bankings[t.name], compute, spacing) for t in tensors}
    interval, slots = timing.host_timing(tensors, bankings, lanes, compute, spacing)
    latency = timing.latency(tensors, lanes, compute)

    # Read ports: edge PEs of a systolic tensor, one per multicast group, every PE otherwise.
    ports, fanout = 0, 1
    for a in expr.inputs:
        readers = set()
        for pos in skew:
            along = [ax for ax, l in enumerate(design.space) if design.lacks(a, l)]
            key = list(pos)
            if any(design.skew[ax] for ax in along):
                ax = next(ax for ax in along if design.skew[ax])
                if pos[ax] > 0:
                    continue
            for ax in along:
                if not design.skew[ax]:
                    key[ax] = None          # multicast: one port for the whole row/column
            readers.add((tuple(key), skew[pos]))
        ports += len(readers)
        fanout = max(fanout, pes // max(1, len(readers)))
    ranges = {}
    for loop in expr.loops:
        ranges[loop] = design.sizes[loop] if loop not in design.space else \
            min(design.sizes[loop], design.pes(design.space.index(loop)))
    buffer = {a.tensor: distinct(a, ranges) for a in expr.accesses}
    macs = math.prod(design.sizes[l] for l in expr.loops)
    acc_pes = len(writers) if red is not None else 0
    counts = {
        "pe": pes,
        "acc_bit": acc_pes * OUT_TYPE.bits,
        "link_bit": sum(bits * delay for bits, delay in links),
        "port": ports + len(writers),
        "bank_bit": sum(math.prod(t.shape) * t.dtype.bits * slots for t in tensors),
        "lane_bit": sum(lanes[t.name] * t.dtype.bits for t in tensors),
        "ctrl_bit": taps * (len(trips) + 3),
    }
    resources = {kind: round(sum(coef * counts.get(k, 1) for k, coef in model.items()))
                 for kind, model in RESOURCE_MODEL.items()}
    resources["DSP"] = pes
    resources["BRAM"] = sum(_brams(t, bankings[t.name], slots, lanes[t.name]) for t in tensors
                            if t.direction == "in")
    return Cost(interval, latency, compute, spacing, pes, macs, lanes,
                sum(b.banks for b in bankings.values()), ports, fanout, buffer, counts, resources)


def _brams(tensor, bank, slots, lanes):
    """Block RAMs of an input buffer: each bank (split per lane) holding ``slots`` problems."""
    entries = bank.depth * (1 << max(0, (slots - 1).bit_length()))
    if entries <= LUTRAM_LIMIT:
        return 0
    return bank.banks * max(1, math.ceil(entries * tensor.dtype.bits / BRAM_BITS))
