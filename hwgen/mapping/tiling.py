"""Tiling of problems larger than on-chip memory: the design is built for a tile of the
problem, and the host runs one problem of it per tile (``host.split_tiles``/``join_tiles``),
back to back, so that each tile's buffers fill while the one before computes (double
buffering: every buffer holds two problems).

A parameter can be tiled when every tensor dimension it sizes is exactly that parameter (no
halo, ``M + 2``) and it sizes a dimension of an output: then each output block depends only on
the input blocks of the same tile indices (a reduction over ``K``, which no output has, is
not tiled). The tiles are the least padded (the work the PEs waste on the zeros past the
problem's end), then the fewest, whose buffers and FIFOs fit the block RAM budget; a tile's
size along a parameter that a task grid folds onto the PE array is a multiple of the array's
size, so that the fold stays even.
"""
import itertools
import math
from collections import Counter

from ..check import check
from ..errors import HwgenError
from ..ir.graph import ArrayRead, stmt_exprs
from ..ir.layout import banking, memory_arrays
from ..schedule import plan
from ..schedule.host_timing import chained, lane_split, slot_bits
from ..schedule.memories import block_rams, buffer_memory, memory_kind
from ..schedule.plan import tensor_grids
from ..schedule.shared_rows import output_memories

SLOTS = 2           # problems each buffer holds (``schedule.host_timing``'s double buffering)
TRIES = 24          # tilings lowered and counted exactly, best first, before giving up


def tile_problem(lower, shapes, grid, full, outputs, array, brams, why, zeros_neutral=False):
    """The checked graph of the best tiling of the problem ``full`` (parameter -> size) whose
    buffers and FIFOs fit ``brams`` block RAMs, its ``tiles`` set: ``lower(params)`` gives the
    graph of a problem (HwgenError if it cannot be built), ``shapes(params)`` tensor name ->
    (shape, bits), ``grid(params)`` the grid folded onto ``array``; ``outputs``: the output
    tensors' names; ``why`` it must be tiled, for the error when it cannot be.
    ``zeros_neutral``: zeros past an input's end add nothing to the outputs (a sum of
    products), so a parameter that sizes only inputs (a reduction) and does not divide its
    array axis is padded too, as one tile."""
    have = shapes(full)
    deps = dependence(shapes, grid, full)
    names = tileable(deps, have, full, outputs)
    pads = [p for p in tileable(deps, have, full) if zeros_neutral and p not in names
            and full[p] % _align(deps[p][1], array)]
    names += pads
    if not names:
        raise HwgenError(f"{why}, and no parameter can tile the problem (one that sizes an "
                         "output's dimension, and every dimension it sizes is exactly it): make "
                         "the sizes smaller")
    whole = lower(padded(deps, full, names, array))     # banked as the tiles will be
    kept = [t for t in whole.tensors.values() if t.type.resident]
    if kept:
        raise HwgenError(f"{why}, and tiles would send a part of resident tensor "
                         f"'{kept[0].name}' with every problem: drop resident() or make the "
                         "sizes smaller", kept[0].loc)
    refused = None
    inputs = set(have) - set(outputs)
    for _, params, tiles in tile_choices(have, deps, full, names, array, brams, shards(whole),
                                         pads, inputs)[:TRIES]:
        try:
            # The lanes, read ports, FIFOs as built.
            blocks, graph = blocks_within(check(lower(params)), brams)
        except HwgenError as e:     # e.g. a loop too short for the fold of this tile
            refused = refused or HwgenError(
                f"the tiles that fit {brams} block RAMs ({params} first) cannot be built: "
                f"{e.message}; give more block RAMs (BRAMS=) or another ARRAY", e.loc)
            continue
        if blocks <= brams:
            return graph.with_(tiles=tiles)
    raise refused or HwgenError(f"no tiling of {full} along {', '.join(names)} fits "
                                f"{brams} block RAMs as the hardware builds it (lanes, read "
                                "ports, FIFOs): give more (BRAMS=)")


def dependence(shapes, grid, params):
    """Parameter -> the tensor dimensions (``(tensor, dim)``) and grid axes it sizes, found by
    building at each parameter plus one: ``shapes(params)`` gives tensor name -> (shape,
    bits), ``grid(params)`` the largest task grid."""
    base, base_grid = shapes(params), grid(params)
    out = {}
    for p in params:
        bumped = dict(params, **{p: params[p] + 1})
        other, other_grid = shapes(bumped), grid(bumped)
        dims = [(t, d) for t, (shape, _) in base.items() for d, n in enumerate(shape)
                if other[t][0][d] != n]
        axes = [a for a, n in enumerate(base_grid) if other_grid[a] != n]
        out[p] = (dims, axes)
    return out


def shards(graph):
    """Tensor name -> the banks its buffer is split into along each dimension."""
    grids = tensor_grids(graph)
    return {t.name: banking(t, grids.get(t.name, ())).shards for t in graph.tensors.values()}


def buffer_need(shapes, split, inputs=()):
    """Block RAMs of the buffers of tensors ``shapes`` (name -> (shape, bits)), each split
    into banks as ``split`` (name -> shards per dimension) says: one memory per bank, of
    ``SLOTS`` problems each padded to a power of two (as ``rtl`` builds them) where
    ``buffer_memory`` puts it, the rows of banks of tensors not in ``inputs`` (names) each in
    one memory or not (``schedule.shared_rows``), whichever takes fewer. A lower bound of
    ``block_rams_of`` (which knows the lanes, read ports and shared rows), before anything is
    built."""
    def blocks(t, shards, depth, bits):
        if t in inputs:
            return math.prod(shards) * _buffer_blocks(SLOTS * depth, bits, 1)
        row = shards[-1] if shards else 1
        return min(math.prod(shards) * _buffer_blocks(SLOTS * depth, bits, 1, output=True),
                   math.prod(shards) // row * _buffer_blocks(SLOTS * _pow2(row) * depth, bits, 1,
                                                             output=True))
    return sum(blocks(t, split[t], _pow2(math.prod(-(-n // k) for n, k in zip(shape, split[t]))),
                      bits) for t, (shape, bits) in shapes.items())


def block_rams_of(graph):
    """Block RAMs the hardware of ``graph`` takes on ECP5, as ``rtl`` builds it: per input
    bank one memory of its lanes' word, a DP16KD copy per read port where ``buffer_memory``
    says (``rtl.input_buffer``); per output bank or row of banks one memory, in blocks where
    ``buffer_memory`` says, unless the output is a register chain (``rtl.output_banks``);
    each FIFO the schedule makes (a folded array's streams back from its last row and column
    hold a whole turn)."""
    p = plan(graph)
    reads = Counter((port.tensor, port.bank) for g in p.schedule.groups
                    for port in p.ports[g.name].reads)
    total = sum(block_rams(_pow2(graph.channels[name].depth), graph.channels[name].dtype.bits)
                for name in p.schedule.fifos)
    for t in p.graph.inputs:          # the plan's: an in-out tensor as its two halves
        bank = p.bankings[t.name]
        f, _ = lane_split(bank, t.shape, p.lanes[t.name])
        entries = (1 << slot_bits(p.slots)) * _pow2(bank.depth // f)
        bits = t.dtype.bits
        total += sum(_buffer_blocks(entries, f * bits, reads[(t.name, b)], bits)
                     for b in range(bank.banks))
    for t in p.graph.outputs:
        bank = p.bankings[t.name]
        if not chained(bank):
            memories, _, entries = output_memories(bank, p.slots, t.name in p.shared_rows)
            total += memories * _buffer_blocks(entries, t.dtype.bits, 1, output=True)
    return total + sum(_local_blocks(inst) for inst in graph.instances.values())


def need_of(graph, shapes, brams):
    """``(blocks, graph)``: block RAMs of ``graph`` as built and the graph built so
    (``blocks_within``), or ``buffer_need`` (``shapes``: name -> (shape, bits); a lower
    bound, before planning) and ``graph`` where that is over ``brams`` already (a large
    problem is not planned whole) or the graph cannot be scheduled whole (``plan`` says
    why)."""
    need = buffer_need(shapes, shards(graph), {t.name for t in graph.inputs})
    if need > brams:
        return need, graph
    try:
        return blocks_within(graph, brams)
    except HwgenError:
        return need, graph


def blocks_within(graph, brams):
    """``(block_rams_of(graph), graph)``; where that is over ``brams`` with output rows
    sharing block RAMs (``schedule.shared_rows``), the count with a memory per bank
    (LUT-RAM) and the graph built so (``share_rows`` off) if that fits."""
    blocks = block_rams_of(graph)
    if blocks > brams and graph.share_rows:
        unshared = graph.with_(share_rows=False)
        fewer = block_rams_of(unshared)
        if fewer <= brams:
            return fewer, unshared
    return blocks, graph


def _buffer_blocks(entries, width, reads, element=None, output=False):
    """DP16KD blocks of a buffer's memory (an ``output``'s, or an input's) of ``element``-bit
    elements (``rtl.input_buffer``, ``rtl.output_banks``: where ``buffer_memory`` puts it in
    block RAM, a copy per read port)."""
    kind, cells, _ = buffer_memory(entries, width, reads, element, output)
    return cells if kind == "dp16kd" else 0


def _local_blocks(inst):
    """Block RAMs of a task instance's local arrays kept in memories (``rtl.local_array``): a
    copy per read."""
    reads = Counter(e.array for seg in inst.segments for stmt in seg.body
                    for e in stmt_exprs(stmt) if isinstance(e, ArrayRead))
    total = 0
    for name in memory_arrays(inst):
        ttype = inst.arrays[name]
        kind, cells, _ = memory_kind(math.prod(ttype.shape), ttype.dtype.bits, reads[name])
        total += cells if kind.startswith("bram") else 0
    return total


def _pow2(n):
    return 1 << (n - 1).bit_length()


def tileable(deps, shapes, params, outputs=None):
    """The parameters a problem can be tiled along (the module's docstring); without
    ``outputs`` (names), only the rule on tensor dimensions is applied."""
    return [p for p, (dims, _) in deps.items() if dims
            and all(shapes[t][0][d] == params[p] for t, d in dims)
            and (outputs is None or any(t in outputs for t, _ in dims))]


def padded(deps, params, names, array):
    """``params`` with each of ``names`` rounded up to a multiple of the PE count its grid
    axis folds onto: the smallest problem every tiling of them covers."""
    return dict(params, **{p: _round_up(params[p], _align(deps[p][1], array)) for p in names})


def tile_choices(shapes, deps, params, names, array, brams, split, pads=(), inputs=()):
    """``(block RAMs, tile params, tiles)`` for tiling ``params`` along the parameters
    ``names``, every choice whose buffers fit ``brams`` block RAMs (the tensors banked as
    ``split`` says: ``shards``), best first; ``tiles`` is design.json's declaration
    (``host.tile_order``). Of ``names``, ``pads`` are only padded (one tile); ``inputs``:
    ``buffer_need``'s."""
    align = {p: _align(deps[p][1], array) for p in names}
    options = {p: sorted({_round_up(-(-params[p] // n), align[p])
                          for n in range(1, 2 if p in pads else params[p] + 1)}, reverse=True)
               for p in names}
    fits, least = [], None
    for sizes in itertools.product(*(options[p] for p in names)):
        size = dict(zip(names, sizes))
        counts = {p: -(-params[p] // size[p]) for p in names}
        need = buffer_need({t: ([_tile_dim(t, d, n, deps, size) for d, n in enumerate(shape)],
                                bits) for t, (shape, bits) in shapes.items()}, split, inputs)
        least = need if least is None else min(least, need)
        if need <= brams:
            padding = math.prod(counts[p] * size[p] / params[p] for p in names)
            fits.append(((padding, math.prod(counts.values())), need, size, counts))
    if not fits:
        raise HwgenError(f"the smallest tiles along {', '.join(names)} still need about "
                         f"{least} block RAMs, over the budget of {brams}: give more (BRAMS=) "
                         "or make the sizes the tiles do not cover smaller")
    return [(need, dict(params, **size), _declaration(shapes, deps, params, names, size, counts))
            for _, need, size, counts in sorted(fits, key=lambda f: f[0])]


def _declaration(shapes, deps, params, names, size, counts):
    """design.json's ``tiles``."""
    return {"params": dict(params),
            "loops": [{"param": p, "count": counts[p], "size": size[p]} for p in names],
            "tensors": {t: {"shape": list(shape),
                            "dims": [_dim_param(t, d, deps, names) for d in range(len(shape))]}
                        for t, (shape, _) in shapes.items()}}


def _round_up(n, multiple):
    return -(-n // multiple) * multiple


def _align(axes, array):
    """The PE count a grid axis sized by the parameter folds onto (1 if none)."""
    return max([array[a] for a in axes if a < len(array)] or [1])


def _tile_dim(t, d, n, deps, size):
    return next((size[p] for p in size if (t, d) in deps[p][0]), n)


def _dim_param(t, d, deps, names):
    return next((p for p in names if (t, d) in deps[p][0]), None)
