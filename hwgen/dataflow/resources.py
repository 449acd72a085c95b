"""The resource model of a design point: what the generated hardware is made of, counted from the
design alone (no elaboration), and the FPGA resources those counts cost.

``structure`` counts the hardware ``rtl`` builds, by component: the PE datapaths (product and
accumulator registers, partial-sum adders at the width Yosys narrows them to, operand pipelines
and held operands, link registers), the address ports (each memory port's address arithmetic: a
multiply by a constant that is not a power of two is a shift-and-add), the controller (counters,
the delay lines of ``schedule.lines`` that carry its flags and loop indices to every PE's skew,
each PE's own copy taken from its neighbour's: ``schedule.lines.copy_spans``) and the buffers
(each memory mapped to LUT RAM, block RAM or registers by Yosys's cost rules; read and write
muxes, read registers, output chains). ``estimate`` prices the counts with
``RESOURCE_MODEL``, coefficients fitted to nextpnr on ECP5 (``benchmarks/calibrate.py`` fits
them, ``tests/dataflow/test_resources.py`` holds them to the measurements).
"""
import math
from dataclasses import dataclass

from ..ir.graph import Pred
from ..ir.types import Sharded
from ..schedule import READ_LATENCY
from ..schedule.groups import link_delay
from ..schedule.host_timing import range_bits, slot_bits
from ..schedule.lines import FINISH, SLOT, Line, LineKind, copy_registers
from .buffer_counts import count_buffers, odd
from .generate import IN_TYPE, OUT_TYPE, layout

# LUT and FF per structural count of ``structure`` (``base`` = 1 per design): TRELLIS_COMB
# and TRELLIS_FF as nextpnr-ecp5 counts them on ECP5-85k, fitted to all 39 GEMM / GEMV /
# conv2d points of `benchmarks/calibrate.py --minimax` (nextpnr seed 1; worst error minimised);
# tests/dataflow/test_resources.py holds the model to those measurements. DSP and BRAM are
# counted, not fitted: one multiplier per PE, and block RAMs as ``schedule.memories`` maps them.
# No point has a memory whose read-before-write Yosys emulates any more (buffers are DP16KD
# blocks): ``bram_emu`` (FIFOs, local arrays) keeps its earlier fit.
RESOURCE_MODEL = {
    "LUT": {"base": 163.3, "pe": 20.1, "acc_bit": 1.3, "lutram": 7.7, "mux_bit": 0.15,
            "chain_bit": 0.31, "addr_bit": 2.7, "ctrl_bit": 0.16, "bram": 3.3, "const_mul": 7.8,
            "bram_emu": 0.57},
    "FF": {"pe": 3.1, "lutram": 4.4, "acc_bit": 1.6, "pipe_bit": 0.84, "delay_bit": 1.1,
           "ctrl_bit": 2.5, "buf_bit": 0.68, "bram_emu": 0.53},
}

# The structural counts (keys of ``Cost.counts``): ``base`` 1 per design; ``pe`` PEs;
# ``acc_bit`` accumulator bits; ``add_bit`` partial-sum adder bits; ``link_bit`` neighbour link
# register bits; ``pipe_bit`` operand, partial-sum and index pipeline and held-operand register
# bits; ``delay_bit`` controller delay-line bits; ``ctrl_bit`` counter and state bits;
# ``buf_bit`` buffer register bits; ``lutram`` TRELLIS_DPR16X4 cells; ``mux_bit`` mux data
# inputs times width; ``chain_bit`` output-chain register bits that load or shift;
# ``addr_bit`` address bits of the array's memory ports; ``lane_bit`` buffer write enables;
# ``const_mul`` address multiplies by constants that are not powers of two (shift-and-add
# adders, ``rtl.arith.mul_const``); ``bram`` block RAMs and ``bram_emu`` the register bits
# Yosys adds around them.
COUNTS = ("base", "pe", "acc_bit", "add_bit", "link_bit", "pipe_bit", "delay_bit", "ctrl_bit",
          "buf_bit", "lutram", "mux_bit", "chain_bit", "addr_bit", "lane_bit", "const_mul",
          "bram", "bram_emu")


@dataclass
class Shape:
    """What the resource model reads of a design point: the array as the cycle model lays it
    out, and the host side as ``schedule.host_timing`` sizes it."""
    design: object              # dataflow.design.Design
    grid: tuple                 # PEs per axis
    skew: dict                  # PE position -> cycles behind the array's base (sources first)
    prod: dict                  # PE position -> pipeline level of its product
    taps: int                   # the deepest delay-line tap (``schedule.groups.taps``)
    readers: dict               # input tensor -> one PE per read port (``readers``)
    tensors: list               # ir.graph.Tensor per access
    bankings: dict              # tensor name -> ir.layout.Banking
    lanes: dict                 # tensor name -> elements per host beat
    slots: int                  # problems each buffer holds
    period: int                 # cycles between problem starts (array or host, the longer)
    shared_rows: bool = False   # the output's rows of banks share a memory (``cost``)


def back(pos, axis):
    """The neighbour of PE ``pos`` one step back along ``axis``."""
    return pos[:axis] + (pos[axis] - 1,) + pos[axis + 1:]


def readers(design, skew, tensor):
    """One PE per read port of an input tensor (the edge PE of a systolic flow, one per
    multicast row/column at one skew, every PE otherwise), as ``schedule.ports`` shares them."""
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


def structural_counts(shape):
    """The structural counts (``COUNTS``) of the hardware ``rtl`` builds for ``shape``."""
    count = _Count(shape)
    count.address_ports(count.datapaths())
    count.controller()
    count.buffers()
    return count.n


def estimate(shape, counts):
    """FPGA resources of ``counts``: LUT and FF by ``RESOURCE_MODEL``, one DSP per multiplier,
    block RAMs as counted."""
    res = {kind: round(sum(coef * counts[k] for k, coef in model.items()))
           for kind, model in RESOURCE_MODEL.items()}
    res["DSP"] = counts["pe"] * (len(shape.design.expr.inputs) - 1)
    res["BRAM"] = counts["bram"]
    return res


class _Count:
    """The counts of one ``Shape``, added up component by component: ``lines`` the length of
    each shared delay line, ``uses`` the delays each PE takes its own copy of a line at."""

    def __init__(self, shape):
        self.shape = shape
        self.design = d = shape.design
        self.trips = [p.trip for p in d.nest]
        self.depth = {p.loop: dd for dd, p in enumerate(d.nest)}
        self.n = dict.fromkeys(COUNTS, 0)
        self.n["base"] = 1
        self.n["pe"] = len(shape.skew)
        self.lines, self.uses = {FINISH: shape.taps}, {}    # line -> length; -> PE -> delays
        self.parent_of = self.parents()
        self.psum = {}          # PE -> bits of the partial sum it passes on
        self.muls = set()       # (signal, odd constant) multiplies in addresses
        self.sums = set()       # pipelined index sums

    def tap(self, line, t, pos=None):
        """The PE at ``pos`` (None: the controller) takes ``line`` at delay ``t``."""
        if self.parent_of.get(pos) is None:
            self.lines[line] = max(t, self.lines.get(line, 0))
        elif t > 0:
            self.uses.setdefault(line, {}).setdefault(pos, set()).add(t)

    def parents(self):
        """PE -> the neighbour whose copy of the control lines it takes (``rtl.delay``): the
        first earlier one it gets an operand or a partial sum from (multicast is no link)."""
        d, skew, out = self.design, self.shape.skew, {}
        for pos in skew:
            axes = [d.flow(a) for a in d.expr.inputs if self.got(a, pos)]
            axes += [d.chain] if d.chain is not None and pos[d.chain] > 0 else []
            srcs = [back(pos, ax) for ax in axes if skew[back(pos, ax)] < skew[pos]]
            if srcs:
                out[pos] = srcs[0]
        return out

    def got(self, access, pos):
        """Whether the PE at ``pos`` gets ``access`` from its neighbour (else reads it)."""
        axis = self.design.flow(access)
        return axis is not None and pos[axis] > 0

    # -- PE datapaths -----------------------------------------------------------------------

    def datapaths(self):
        """Every PE's datapath; returns its memory writes ``(PE, level + skew)``."""
        shape, d = self.shape, self.design
        chain, red = d.chain, d.reduction_depth
        writes = []
        for pos in shape.skew:                      # sources before sinks
            value = self.operands(pos)
            if chain is not None and pos[chain] > 0:
                value = self.partial_sum(pos, back(pos, chain), value)
            self.psum[pos] = value
            if chain is None or pos[chain] == shape.grid[chain] - 1:
                t = shape.skew[pos] + shape.prod[pos]
                writes.append((pos, t))
                self.tap(Line.cond(0), t, pos)
                if red is not None:
                    # As wide as its sum of products can be (``ir.ranges``).
                    terms = math.prod(self.trips[red:]) * (1 << (IN_TYPE.bits - 1)) ** 2
                    self.n["acc_bit"] += min(OUT_TYPE.bits, terms.bit_length() + 1)
                    self.tap(Line.cond(0, (Pred("first", red),)), t, pos)
                    self.tap(Line.cond(0, (Pred("last", red),)), t, pos)
        return writes

    def operands(self, pos):
        """Operand links, held reads, operand pipelines and products of the PE at ``pos``;
        returns the bits of its product."""
        shape, d, win = self.shape, self.design, IN_TYPE.bits
        s, levels = shape.skew[pos], []
        for a in d.expr.inputs:
            if self.got(a, pos):
                src = back(pos, d.flow(a))
                put = 0 if self.got(a, src) else READ_LATENCY
                levels.append(0)
                self.n["link_bit"] += win * link_delay(shape.skew[src], put, s, 0)
            else:
                levels.append(READ_LATENCY)
                if d.lacks(a, d.inner):             # read once per t1 run and held
                    self.n["pipe_bit"] += win
                    self.tap(Line.cond(0, (Pred("first", len(self.trips) - 1),)),
                             s + READ_LATENCY, pos)
                    self.tap(Line.cond(0), s + READ_LATENCY, pos)
        # Operand pipes; the products' registers are the DSP blocks' own (``rtl.multiply``),
        # plus one in the fabric that each product lands in.
        self.n["pipe_bit"] += win * sum(max(levels) - l for l in levels) + win * len(levels)
        return win * len(levels)

    def partial_sum(self, pos, src, value):
        """The partial sum the PE at ``pos`` gets from ``src`` and adds its product of
        ``value`` bits to; returns the bits of the sum."""
        shape, bits = self.shape, self.psum[src]
        self.n["link_bit"] += bits * link_delay(shape.skew[src], shape.prod[src],
                                                shape.skew[pos], 0)
        self.n["pipe_bit"] += bits * shape.prod[pos]
        # Yosys narrows the first adder of a chain (two products) to one bit more than a
        # product; the ones after it stay full width.
        value = min(OUT_TYPE.bits, value + 1) if bits == value else OUT_TYPE.bits
        self.n["add_bit"] += value
        return value

    # -- address ports ----------------------------------------------------------------------

    def address_ports(self, writes):
        """The array's memory ports: one per reader of each input, one per output write."""
        expr, shape = self.design.expr, self.shape
        for a in expr.inputs:
            for pos in shape.readers[a.tensor]:
                self.port(a, pos, 0)
        for pos, t in writes:
            self.port(expr.output, pos, t - shape.skew[pos])
        self.n["const_mul"] += len(self.muls)

    def port(self, access, pos, level):
        """A memory port of the PE at ``pos`` whose address is needed at ``level``: delay-line
        taps, pipelined index sums, multiplies by constants that are not powers of two."""
        d, bank = self.design, self.shape.bankings[access.tensor]
        lay = layout(d, access)
        t = self.shape.skew[pos] + level
        self.n["addr_bit"] += range_bits(bank.depth)
        self.tap(SLOT, t, pos)
        for dim, (row, off) in enumerate(zip(access.matrix, access.offset)):
            var, const = [], off
            for l, c in zip(d.expr.loops, row):
                if c and l in d.space:
                    const += c * pos[d.space.index(l)] * d.block(l)
                if c and l in self.depth:
                    var.append((self.depth[l], c))
            if not var:
                continue
            if len(var) == 1 and var[0][1] == 1 and const == 0:
                signal = (Line.index(var[0][0]), t)     # a loop index, from its delay line
                self.tap(*signal, pos)
            else:
                signal = self.index_sum(pos, var, const, level)
            stride = odd(bank.strides()[dim])
            if stride > 1:
                ext = bank.extent[dim]
                base = const // ext * ext if isinstance(lay[dim], Sharded) else 0
                self.muls.add(((signal, base), stride))

    def index_sum(self, pos, var, const, level):
        """A sum of loop indices ``var`` (``(depth, coefficient)``) and ``const``: computed at
        level 0, then pipelined up to ``level`` (PEs at one skew compute the same one: Yosys
        merges them). Returns the signal."""
        s = self.shape.skew[pos]
        for dd, c in var:
            self.tap(Line.index(dd), s, pos)
            if odd(c) > 1:
                self.muls.add(((Line.index(dd), s), odd(c)))
        signal = (tuple(var), const, s)
        if level and (signal, level) not in self.sums:
            self.sums.add((signal, level))
            top = const + sum(abs(c) * (self.trips[dd] - 1) for dd, c in var)
            self.n["pipe_bit"] += range_bits(top + 1) * level
        return signal

    # -- controller -------------------------------------------------------------------------

    def line_bits(self, line):
        if line.kind is LineKind.SLOT:
            return slot_bits(self.shape.slots)
        if line.kind is LineKind.IDX:
            return range_bits(self.trips[line.depth] + 1)
        return 1

    def buffers(self):
        """Each tensor's buffer (``buffer_counts``)."""
        count_buffers(self.n, self.shape)

    def controller(self):
        """The delay lines (to their longest taps), the problem counter, start and finish
        state, the slot counters and the loop counters."""
        shape = self.shape
        for line, uses in self.uses.items():
            registers, shared = copy_registers(uses, self.parent_of)
            self.n["delay_bit"] += registers * self.line_bits(line)
            self.lines[line] = max(self.lines.get(line, 0), shared)
        for line, t in self.lines.items():
            self.n["delay_bit"] += t * self.line_bits(line)
        count = max(self.design.iterations + shape.taps, shape.period)
        self.n["ctrl_bit"] += range_bits(count + 1) + 2 + 2 * slot_bits(shape.slots) + \
            sum(range_bits(t + 1) for t in self.trips)
