"""The cost model of a design point: cycles, memory, interconnect and FPGA resources.

Cycles are the schedule's, computed analytically for the regular PE array the generator builds
with the rules of ``schedule``: a value read from a bank exists at level 4 (``READ_LATENCY``),
one from a neighbour at level 0; the product is ``MULT_STAGES`` levels after the later
operand, and the output written from its register a level after it (``schedule.Levels.held``);
a stream from PE ``p`` to ``q`` makes ``q`` run behind ``p`` by ``schedule.groups.consumer_skew``
(the longest path over the array sets each PE's skew); a problem takes its time steps plus the
deepest PE's tap (``schedule.groups.taps``), and problems overlap by
``schedule.cycles.problem_spacing``.
Lanes, slots and the steady-state interval follow from ``schedule.host_timing``, the rules the
generated top is built from, so ``Cost.cycles`` equals ``Plan.interval_cycles`` and
``Cost.latency`` equals ``Plan.expected_cycles``. Read ports are counted as ``schedule.ports``
shares them.

Resources are ``resources``' model over structural counts of the generated hardware, with
coefficients fitted to nextpnr on ECP5.
"""
import itertools
import math
from dataclasses import dataclass, field

from ..ir.layout import banking
from ..schedule import MULT_STAGES, READ_LATENCY
from ..schedule import host_timing
from ..schedule.cycles import problem_spacing
from ..schedule.groups import BASE_SKEW, consumer_skew, taps
from ..ir.types import Sharded
from .generate import design_tensors, layout
from .resources import Shape, back, estimate, readers, structural_counts


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
    counts: dict = field(default_factory=dict)      # resources.COUNTS -> count
    resources: dict = field(default_factory=dict)
    read_ports: dict = field(default_factory=dict)  # input tensor -> its read ports (``ports``)
    shared_rows: bool = False       # the output's rows of banks share a memory (``Plan``'s)

    @property
    def utilization(self):
        """Useful multiply-accumulates per PE per cycle in steady state."""
        return self.macs / (self.pes * self.cycles)


def _tensors(design):
    """The generated graph's tensors, in the expression's access order."""
    tensors = design_tensors(design)
    return [tensors[a.tensor] for a in design.expr.accesses]


def _skews(design):
    """Per PE (in row-major order, sources before sinks): its skew and its product's level,
    by the schedule's rules on the generated bodies (a neighbour's value is put at the level
    it has there and got at level 0). The levels are ``schedule.Levels`` worked out for the
    bodies ``generate`` writes; tests/dataflow/test_cost.py holds them equal for every point."""
    expr, chain = design.expr, design.chain
    grid = [design.pes(a) for a in range(len(design.space))]
    skew, prod = {}, {}

    def level(pos, access):
        axis = design.flow(access)
        return 0 if axis is not None and pos[axis] > 0 else READ_LATENCY

    for pos in itertools.product(*(range(n) for n in grid)):
        prod[pos] = max(level(pos, a) for a in expr.inputs) + MULT_STAGES
        incoming = []           # the skew each stream into the PE needs
        for a in expr.inputs:
            axis = design.flow(a)
            if axis is not None and pos[axis] > 0:
                src = back(pos, axis)
                incoming.append(consumer_skew(skew[src], level(src, a), 0))
        if chain is not None and pos[chain] > 0:
            src = back(pos, chain)
            incoming.append(consumer_skew(skew[src], prod[src], 0))
        skew[pos] = max(incoming, default=BASE_SKEW)
    return skew, prod


def _first_write(design, grid, skew, prod):
    """The controller count of a problem's first output write: the writers' (the PEs ending a
    partial-sum chain) product levels on the first iteration that completes a reduction (what
    ``schedule.cycles.group_spacing`` finds on the generated graph; test_cost holds them equal),
    each written from its variable's register, a level after it (``schedule.Levels.held``)."""
    red, chain = design.reduction_depth, design.chain
    trips = [p.trip for p in design.nest]
    first = math.prod(trips[red:]) - 1 if red is not None else 0
    writers = [p for p in skew if chain is None or p[chain] == grid[chain] - 1]
    return min(first + skew[p] + prod[p] + 1 for p in writers)      # a level after: held


def _shared_rows(design, grid, skew, prod, bank):
    """Whether the output's rows of banks share a memory (``schedule.shared_rows`` on the
    generated graph; test_cost holds them equal for every point): its writers (``_first_write``)
    on one row of banks, those whose positions agree on every sharded dimension but the last,
    never write in the same cycle."""
    if host_timing.chained(bank) or bank.shards[-1] < 2:
        return False
    chain = design.chain
    axes = [e.axis for e in layout(design, design.expr.output)[:-1] if isinstance(e, Sharded)]
    rows = {}
    for p in skew:
        if chain is None or p[chain] == grid[chain] - 1:
            rows.setdefault(tuple(p[a] for a in axes), []).append(skew[p] + prod[p])
    gaps = {abs(a - b) for offsets in rows.values()
            for i, a in enumerate(offsets) for b in offsets[:i]}
    return not any(_writes_apart(design, gap) for gap in gaps)


def _writes_apart(design, gap):
    """Whether a writer writes on two iterations ``gap`` apart. It writes when every reduction
    loop is at its end, which depends on the iteration modulo the span of the outermost
    reduction loop: the ends within one span are enumerated, not the whole problem."""
    red = design.reduction_depth
    if gap == 0 or red is None:         # without a reduction, every iteration writes
        return gap < design.iterations
    nest = design.nest[red:]
    span = math.prod(p.trip for p in nest)
    ends = set()
    for idx in itertools.product(*(range(1 if p.loop in design.reductions else p.trip)
                                   for p in nest)):
        n = 0
        for i, p in zip(idx, nest):
            n = n * p.trip + (p.trip - 1 if p.loop in design.reductions else i)
        ends.add(n)
    return any((n + gap) % span in ends and n + gap < design.iterations for n in ends)


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


def _buffer(design):
    """Per tensor, the distinct elements the array touches per tile."""
    ranges = {}
    for loop in design.expr.loops:
        ranges[loop] = design.sizes[loop] if loop not in design.space else \
            min(design.sizes[loop], design.pes(design.space.index(loop)))
    return {a.tensor: distinct(a, ranges) for a in design.expr.accesses}


def cost(design):
    """The ``Cost`` of ``design``: of the hardware built for it, padded where its array
    does not divide its loops (``Design.padded``); ``macs`` counts the useful ones."""
    expr = design.expr
    macs = math.prod(design.sizes[l] for l in expr.loops)
    design = design.padded
    grid = tuple(design.pes(a) for a in range(len(design.space)))
    pes = math.prod(grid)
    iterations = design.iterations
    skew, prod = _skews(design)
    deepest = taps([skew[p] for p in skew], [prod[p] + 2 for p in skew])   # the write: held
    compute = iterations + deepest
    spacing = problem_spacing(iterations, deepest, _first_write(design, grid, skew, prod))

    tensors = _tensors(design)
    host = host_timing.host_side(tensors, {t.name: banking(t, grid) for t in tensors},
                                 compute, spacing)
    bankings, lanes, interval, slots = host.bankings, host.lanes, host.interval, host.slots
    latency = host.latency

    port_pes = {a.tensor: readers(design, skew, a) for a in expr.inputs}
    shape = Shape(design=design, grid=grid, skew=skew, prod=prod, taps=deepest,
                  readers=port_pes, tensors=tensors, bankings=bankings, lanes=lanes,
                  slots=slots, period=max(spacing, interval),
                  shared_rows=_shared_rows(design, grid, skew, prod,
                                           bankings[expr.output.tensor]))
    counts = structural_counts(shape)
    return Cost(interval, latency, compute, spacing, pes, macs, lanes,
                sum(b.banks for b in bankings.values()), sum(len(r) for r in port_pes.values()),
                max(pes // len(r) for r in port_pes.values()), _buffer(design), counts,
                estimate(shape, counts), {t: len(r) for t, r in port_pes.items()},
                shape.shared_rows)
