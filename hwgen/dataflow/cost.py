"""The cost model of a design point: cycles, memory, interconnect and FPGA resources.

Cycles are the schedule's, computed analytically for the regular PE array the generator builds:
a value read from a bank exists at level 2 (``READ_LATENCY``), one from a neighbour at level 0;
the product is one level after the later operand; a stream from PE ``p`` to ``q`` makes ``q``
run ``level + 1`` cycles behind ``p`` (the longest path over the array sets each PE's skew); a
problem takes its time steps plus the deepest PE's skew and pipeline depth. Lanes, slots and the
steady-state interval follow from ``rtl.timing``, the rules the generated top is built from, so
``Cost.cycles`` equals ``interval_cycles`` and ``Cost.latency`` equals ``expected_cycles``.

Resources are a model over structural counts of the generated hardware (``_structure``:
multipliers, accumulator, link and pipeline register bits, memories mapped as Yosys maps them,
muxes, address arithmetic) with coefficients fitted to nextpnr on ECP5 (``RESOURCE_MODEL``;
``benchmarks/calibrate.py`` fits them, ``tests/dataflow/test_resources.py`` holds them).
"""
import itertools
import math
from dataclasses import dataclass, field

from ..ir.graph import Tensor
from ..ir.layout import banking
from ..ir.types import Sharded, TensorType
from ..rtl import timing
from ..rtl.schedule import MULT_STAGES, READ_LATENCY
from .generate import IN_TYPE, OUT_TYPE, layout

# LUT and FF per structural count of ``_structure`` (``base`` = 1 per design): TRELLIS_COMB
# and TRELLIS_FF as nextpnr-ecp5 counts them on ECP5-85k. Fitted by non-negative least squares
# (relative errors) on the training points of `.venv/bin/python benchmarks/calibrate.py`
# (36 generated GEMM / GEMV / conv2d points, nextpnr seed 1; build/calibrate/results.md);
# tests/dataflow/test_resources.py holds the model to those measurements. DSP and BRAM are
# counted, not fitted: one multiplier per PE, and block RAMs by Yosys's rules.
RESOURCE_MODEL = {
    "LUT": {"pe": 23.4, "acc_bit": 1.6, "lutram": 7.4, "mux_bit": 0.41, "ctrl_bit": 2.6,
            "bram_emu": 0.88, "const_mul": 9.7},
    "FF": {"base": 85.7, "acc_bit": 0.84, "link_bit": 1.2, "pipe_bit": 0.95, "delay_bit": 0.86,
           "ctrl_bit": 0.55, "buf_bit": 0.84, "bram_emu": 0.9},
}


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


def _back(pos, axis):
    """The neighbour of PE ``pos`` one step back along ``axis``."""
    return pos[:axis] + (pos[axis] - 1,) + pos[axis + 1:]


def _skews(design):
    """Per PE (in row-major order, sources before sinks): its skew and its product's level,
    by the schedule's rules on the generated bodies."""
    expr, chain = design.expr, design.chain
    grid = [design.pes(a) for a in range(len(design.space))]
    skew, prod = {}, {}

    def level(pos, access):
        axis = design.flow(access)
        return 0 if axis is not None and pos[axis] > 0 else READ_LATENCY

    for pos in itertools.product(*(range(n) for n in grid)):
        prod[pos] = max(level(pos, a) for a in expr.inputs) + MULT_STAGES
        incoming = []           # (source PE, skew it adds)
        for a in expr.inputs:
            axis = design.flow(a)
            if axis is not None and pos[axis] > 0:
                src = _back(pos, axis)
                incoming.append((src, level(src, a) + 1))
        if chain is not None and pos[chain] > 0:
            src = _back(pos, chain)
            incoming.append((src, prod[src] + 1))
        skew[pos] = max((skew[src] + w for src, w in incoming), default=0)
    return skew, prod


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
    skew, prod = _skews(design)
    chain = design.chain
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

    readers = {a.tensor: _readers(design, skew, a) for a in expr.inputs}
    ports = sum(len(r) for r in readers.values())
    fanout = max(pes // len(r) for r in readers.values())
    ranges = {}
    for loop in expr.loops:
        ranges[loop] = design.sizes[loop] if loop not in design.space else \
            min(design.sizes[loop], design.pes(design.space.index(loop)))
    buffer = {a.tensor: distinct(a, ranges) for a in expr.accesses}
    macs = math.prod(design.sizes[l] for l in expr.loops)
    counts = _structure(design, grid, skew, prod, readers, tensors, bankings, lanes, slots,
                        taps, max(spacing, interval))
    resources = {kind: round(sum(coef * counts.get(k, 1) for k, coef in model.items()))
                 for kind, model in RESOURCE_MODEL.items()}
    resources["DSP"] = pes * (len(expr.inputs) - 1)
    resources["BRAM"] = counts["bram"]
    return Cost(interval, latency, compute, spacing, pes, macs, lanes,
                sum(b.banks for b in bankings.values()), ports, fanout, buffer, counts, resources)


# -- resources: what the generated hardware is made of, counted from the design ----------------

def _width(n):
    """Bits of ``Signal(range(n))``."""
    return max(0, (n - 1).bit_length())


def _odd(n):
    """``n`` without its factors of two (Yosys turns a multiply by ``2**k * odd`` into a shift
    of a multiply by ``odd``; by a power of two, into a shift alone)."""
    n = abs(n)
    while n and n % 2 == 0:
        n //= 2
    return n


def _memory(entries, width, reads):
    """How Yosys's ``memory_libmap`` maps a memory with one write port and ``reads`` read ports
    on ECP5 (its cost rules with the Lattice libraries): ``(kind, cells, rows)`` with kind
    ``"lutram"`` (cells: TRELLIS_DPR16X4), ``"bram"`` (DP16KD / PDPW16KD) or ``"ff"``
    (registers), and ``rows`` the cells one read port muxes between."""
    reads = max(1, reads)
    best = (entries * width * 1.0, "ff", 0, entries)         # soft logic: 1 per bit
    rows = -(-entries // 16)                                 # DPR16X4: 16 x 4, async read
    cells = rows * -(-width // 4) * reads
    c = 4 * cells + (rows - 1) * width * reads / 2 + (rows / 2 if rows > 1 else 0) + 2 * reads
    if c < best[0]:
        best = (c, "lutram", cells, rows)
    for bits, depth in ((1, 16384), (2, 8192), (4, 4096), (9, 2048), (18, 1024), (36, 512)):
        # DP16KD up to 18 bits, PDPW16KD (separate read and write port groups) at 36: a read
        # that must not see the same cycle's write is emulated (write delayed, bypass).
        rows = -(-entries // depth)
        cells = rows * -(-width // bits) * reads
        emu = 2 * (3 + 4 * reads) if bits == 36 else 2 * 4 * reads
        c = 128 * cells + (rows - 1) * width * reads / 2 + (rows / 2 if rows > 1 else 0) + emu
        if c < best[0]:
            best = (c, "bram" if bits < 36 else "bram36", cells, rows)
    return best[1:]


def _readers(design, skew, tensor):
    """One PE per read port of an input tensor (the edge PE of a systolic flow, one per
    multicast row/column at one skew, every PE otherwise), as ``rtl.group`` shares ports."""
    along = [ax for ax, l in enumerate(design.space) if design.lacks(tensor, l)]
    flow = design.flow(tensor)
    seen = {}
    for pos in skew:
        if flow is not None and pos[flow] > 0:
            continue
        key = tuple(None if ax in along and not design.skew[ax] else p
                    for ax, p in enumerate(pos))
        seen.setdefault((key, skew[pos]), pos)
    return list(seen.values())


def _structure(design, grid, skew, prod, readers, tensors, bankings, lanes, slots, taps,
               period):
    """Structural counts of the hardware ``rtl`` builds for ``design``, by component, derived
    from the design alone (no elaboration): the PE datapaths (product and accumulator
    registers, partial-sum adders at the width Yosys narrows them to, operand pipelines and
    held operands, link registers), the controller (counters, the delay lines that carry its
    flags and loop indices to every PE's skew), the memory ports and their address arithmetic
    (a multiply by a constant that is not a power of two is a shift-and-add), and the buffers
    (each memory mapped to LUT RAM, block RAM or registers by Yosys's cost rules; read and write
    muxes, read registers, output chains).

    Counts: ``pe`` PEs; ``acc_bit`` accumulator bits; ``add_bit`` partial-sum adder bits;
    ``link_bit`` neighbour link register bits; ``pipe_bit`` product, operand and index pipeline
    and held-operand register bits; ``delay_bit`` controller delay-line bits; ``ctrl_bit``
    counter and state bits; ``buf_bit`` buffer register bits; ``lutram`` TRELLIS_DPR16X4 cells;
    ``mux_bit`` mux data inputs times width; ``addr_bit`` address bits of the array's memory
    ports; ``lane_bit`` buffer write enables; ``bram`` block RAMs and ``bram_emu`` the register
    bits Yosys adds around them; ``const_mul`` address multiplies by constants that are not
    powers of two (shift-and-add adders, ``rtl.arith.mul_const``)."""
    expr, nest, chain = design.expr, design.nest, design.chain
    red = design.reduction_depth
    trips = [p.trip for p in nest]
    depth = {p.loop: d for d, p in enumerate(nest)}
    win, wout = IN_TYPE.bits, OUT_TYPE.bits
    n = dict.fromkeys(("pe", "acc_bit", "add_bit", "link_bit", "pipe_bit", "delay_bit",
                       "ctrl_bit", "buf_bit", "lutram", "mux_bit", "addr_bit", "lane_bit",
                       "const_mul", "bram", "bram_emu"), 0)
    n["pe"] = len(skew)
    lines = {("finish",): taps}             # delay line -> longest tap a PE uses

    def tap(key, t):
        if t > lines.get(key, 0):
            lines[key] = t

    got = {(a.tensor, pos): design.flow(a) is not None and pos[design.flow(a)] > 0
           for a in expr.inputs for pos in skew}
    psum, writes = {}, []
    for pos in skew:                        # sources before sinks
        s, levels = skew[pos], []
        for a in expr.inputs:
            if got[a.tensor, pos]:
                src = _back(pos, design.flow(a))
                levels.append(0)
                n["link_bit"] += win * (s - skew[src] - (0 if got[a.tensor, src] else
                                                         READ_LATENCY))
            else:
                levels.append(READ_LATENCY)
                if design.lacks(a, design.inner):       # read once per t1 run and held
                    n["pipe_bit"] += win
                    tap(("first", len(trips) - 1), s + READ_LATENCY)
                    tap(("valid",), s + READ_LATENCY)
        n["pipe_bit"] += win * sum(max(levels) - l for l in levels) + \
            sum(win * k for k in range(2, len(levels) + 1))      # operand pipes, products
        value = win * len(levels)
        if chain is not None and pos[chain] > 0:
            src = _back(pos, chain)
            n["link_bit"] += psum[src] * (s - skew[src] - prod[src])
            n["pipe_bit"] += psum[src] * prod[pos]
            # Yosys narrows the first adder of a chain (two products) to one bit more than a
            # product; the ones after it stay full width.
            value = min(wout, value + 1) if psum[src] == value else wout
            n["add_bit"] += value
        psum[pos] = value
        if chain is None or pos[chain] == grid[chain] - 1:
            t = s + prod[pos]
            writes.append((pos, t))
            tap(("valid",), t)
            if red is not None:
                n["acc_bit"] += wout
                tap(("first", red), t)
                tap(("last", red), t)

    muls = set()                            # (signal, odd constant) multiplies in addresses
    sums = set()                            # pipelined index sums

    def port(access, pos, level):
        """A memory port of the PE at ``pos`` whose address is needed at ``level``: delay-line
        taps, pipelined index sums, multiplies by constants that are not powers of two."""
        bank = bankings[access.tensor]
        lay = layout(design, access)
        t = skew[pos] + level
        n["addr_bit"] += _width(bank.depth)
        tap(("slot",), t)
        for d, (row, off) in enumerate(zip(access.matrix, access.offset)):
            var, const = [], off
            for l, c in zip(expr.loops, row):
                if c and l in design.space:
                    const += c * pos[design.space.index(l)] * design.block(l)
                if c and l in depth:
                    var.append((depth[l], c))
            if not var:
                continue
            if len(var) == 1 and var[0][1] == 1 and const == 0:
                signal = ("idx", var[0][0], t)          # a loop index, from its delay line
                tap(signal[:2], t)
            else:
                # A sum: computed at level 0, then pipelined up to ``level`` (PEs at one skew
                # compute the same one: Yosys merges them).
                for dd, c in var:
                    tap(("idx", dd), skew[pos])
                    if _odd(c) > 1:
                        muls.add((("idx", dd, skew[pos]), _odd(c)))
                signal = (tuple(var), const, skew[pos])
                if level and (signal, level) not in sums:
                    sums.add((signal, level))
                    top = const + sum(abs(c) * (trips[dd] - 1) for dd, c in var)
                    n["pipe_bit"] += _width(top + 1) * level
            if _odd(bank.strides()[d]) > 1:
                ext = bank.extent[d]
                base = const // ext * ext if isinstance(lay[d], Sharded) else 0
                muls.add(((signal, base), _odd(bank.strides()[d])))

    for a in expr.inputs:
        for pos in readers[a.tensor]:
            port(a, pos, 0)
    for pos, t in writes:
        port(expr.output, pos, t - skew[pos])
    n["const_mul"] = len(muls)

    slot_w = _width(max(2, slots))
    slot_bits = max(1, (slots - 1).bit_length())
    for key, t in lines.items():
        w = slot_w if key[0] == "slot" else _width(trips[key[1]] + 1) if key[0] == "idx" else 1
        n["delay_bit"] += t * w
    n["ctrl_bit"] += _width(max(design.iterations + taps, period) + 1) + 2 + 2 * slot_w + \
        sum(_width(t + 1) for t in trips)

    for t in tensors:
        bank, w = bankings[t.name], t.dtype.bits
        n["ctrl_bit"] += sum(map(_width, bank.extent)) + sum(map(_width, bank.shards)) + \
            2 * slots + 3 * slot_w
        n["const_mul"] += sum(1 for e, st in zip(bank.extent, bank.strides())
                              if _odd(st) > 1 and _width(e) >= 2)
        if t.direction == "in":
            f, g = timing.lane_split(bank, t.shape, lanes[t.name])
            sharded = [l.axis for l in (t.type.layout or ()) if isinstance(l, Sharded)]
            per_bank = {}
            for pos in readers[t.name]:
                key = tuple(pos[ax] for ax in sharded)
                per_bank[key] = per_bank.get(key, 0) + 1
            entries = (1 << slot_bits) << _width(bank.depth // f)
            # A beat writes G banks. Unless it spans every shard of the innermost dimension (the
            # lane -> bank map is then fixed), each memory has G write ports that Yosys merges.
            merged = g > 1 and bank.shards[-1] > g
            n["lane_bit"] += bank.banks * (g if merged else 1)
            for rp in per_bank.values():
                _buffer_memory(n, entries, w, rp, f)
                if merged:
                    n["mux_bit"] += f * g * (w + _width(entries))
                n["buf_bit"] += rp * (w + _width(f))             # read register, sub-bank
                if f > 1:
                    n["mux_bit"] += rp * f * w
        elif bank.depth == 1:               # registers drained through a shift chain
            beats = bank.banks // lanes[t.name]
            n["buf_bit"] += 2 * w * bank.banks + _width(beats + 1) + _width(slots + 2) + 2
            n["mux_bit"] += 2 * w * max(0, bank.banks - lanes[t.name])
        else:
            entries = (1 << slot_bits) << _width(bank.depth)
            _buffer_memory(n, entries, w, 1, bank.banks)
            n["buf_bit"] += _width(bank.banks) + 3
            if bank.banks > 1:
                n["mux_bit"] += bank.banks * w
    return n


def _buffer_memory(n, entries, width, reads, copies):
    """Add ``copies`` memories of ``entries`` x ``width`` with ``reads`` read ports to ``n``."""
    kind, cells, rows = _memory(entries, width, reads)
    if kind.startswith("bram"):
        n["bram"] += copies * cells
        # Registers Yosys adds around a block RAM: the emulated read-before-write of PDPW16KD
        # (write delayed, read bypassed), a data register on DP16KD.
        n["bram_emu"] += copies * (2 * width + 7 if kind == "bram36" else width)
        return
    if kind == "lutram":
        n["lutram"] += copies * cells
    else:
        n["buf_bit"] += copies * entries * width
    n["buf_bit"] += copies * reads * width              # the synchronous read's register
    n["lane_bit"] += copies * rows                       # write enables per row
    if rows > 1:
        n["mux_bit"] += copies * reads * rows * width
