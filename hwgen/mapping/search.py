"""Folding to a budget: the PE array shape a program's task grids fold onto, searched under
budgets of PEs, DSP blocks, LUTs for multiplies in logic, block RAMs and host-port pins, with the
cycle model of the schedule.

Each candidate is an array shape ``(P, Q)`` that ``fold_onto`` folds every grid onto; on each
axis only the sizes where one PE fewer would cost a turn more are worth trying (``ceil(V/t)``
for ``t`` turns). One lowering on a single PE gives each task's multipliers per instance (DSPs
are exact for every candidate) and the cycles of one turn; a candidate's compute is then that
times its turns. The fastest candidates by that model are lowered and scheduled exactly; among
those at the best exact interval the one with the fewest DSP blocks wins, since a design bound
by its host ports gains nothing from more PEs. A shape whose host ports (the lanes its
schedule needs to keep up) take more pins than ``ports`` is rejected once scheduled; the search
schedules slower shapes until one fits. With a budget of ``luts``, the multiplies beyond the DSP
blocks are built in logic (``multipliers.assign``) as far as those LUTs reach, and at equal
cycles the shape with the fewest such LUTs wins.
"""
import math
from dataclasses import dataclass, field

from ..errors import HwgenError
from ..schedule import plan
from ..schedule.levels import multipliers
from .fold import fold_onto
from .multipliers import assign, fabric_luts, operand_bits

EXACT = 5           # candidates lowered and scheduled exactly besides the fastest
FLAGS = {"DSP": "dsps", "block RAM": "brams", "PE": "pes", "port pin": "ports", "LUT": "luts"}


@dataclass
class Candidate:
    """One array shape and what folding onto it costs."""
    array: tuple
    folds: dict             # task -> physical grid (tasks that fold)
    pes: int                # task instances
    dsps: int
    turns: int              # grid positions the busiest PE runs in turn
    cycles: int             # cycles per problem: the model's, or the schedule's when exact
    exact: bool = False
    pins: int = 0           # host-port pins, once exact
    luts: int = 0           # LUTs of the multiplies built in logic
    fabric: int = 0         # multiplies built in logic
    error: object = field(default=None, repr=False)     # why it cannot be scheduled
    graph: object = field(default=None, repr=False)
    why: str = ""

    def line(self):
        shape = "x".join(map(str, self.array))
        how = "exact" if self.exact else "model"
        logic = f" + {self.fabric} multiplies in logic (~{self.luts:,} LUT)" * bool(self.fabric)
        return (f"{shape:>7}: {self.pes} PE{'s' * (self.pes != 1)}, {self.dsps} DSP{logic}, "
                f"{self.turns} turn{'s' * (self.turns != 1)}, "
                f"{self.cycles} cycles per problem ({how})" + (f"; {self.why}" if self.why else ""))


def search(grids, lower, pes=None, dsps=None, brams=None, array=None, ports=None, luts=None):
    """The checked graph of the best fold of task ``grids`` (task -> grid) within the budgets
    (``None``: no limit; PEs default to the DSP budget unless ``luts`` builds multiplies in
    logic), and the report: the chosen shape, then the rejected alternatives with their costs.
    ``lower(folds)`` lowers and checks the program with those folds; ``array`` bounds the shape
    too."""
    check_budgets(pes, dsps, brams, ports, luts)
    if pes is None and luts is None:
        pes = dsps
    if dsps == 0 and luts is None:
        raise HwgenError("no DSP blocks and no LUT budget: give one for the multiplies in "
                         "logic (--luts, make ... LUTS=)")
    folded = {t: g for t, g in grids.items() if len(g) and math.prod(g) > 1}
    if not folded:
        graph = lower({})
        graph = graph if luts is None else assign(graph, dsps)
        return graph, ["nothing to fold: no task runs on a grid of more than one instance"]
    cands = _candidates(grids, folded, lower, pes, array, None if luts is None else dsps)
    fits = _within_budget(cands, dsps, luts)
    fits.sort(key=lambda c: (c.cycles, c.luts, c.dsps, _skew(c)))
    best = _fastest_within(fits, lower, ports)
    fits = [c for c in fits if not c.why]
    # Fewer DSP blocks and multiplies in logic for the same cycles: the model's compute is a
    # lower bound, so only shapes it puts at or below the best exact interval can tie; one per
    # (DSPs, multiplies in logic, turns), the squarest.
    tried = {_used(best)}
    for c in sorted(fits[1:], key=lambda c: (c.luts, c.dsps, c.cycles, _skew(c))):
        if c.cycles <= best.cycles and _used(c) not in tried and len(tried) <= EXACT:
            tried.add(_used(c))
            if not _exact(c, lower).why and not _within(c, ports):
                c.why = _over_ports(c, ports)
    chosen = min((c for c in fits if c.exact and not c.why),
                 key=lambda c: (c.cycles, c.luts, c.dsps, c.pes))
    _explain(fits, chosen, tried)
    graph = chosen.graph if luts is None else assign(chosen.graph, dsps)
    return graph, _report(chosen, cands)


def _candidates(grids, folded, lower, pes, array, dsps):
    """The array shapes to try, each with its cycles by the model (one turn's cycles, from a
    lowering on a single PE, times its turns) and its multipliers (past ``dsps`` in logic)."""
    one = _candidate(grids, (1,) * min(2, max(map(len, folded.values()))))
    base = lower(one.folds)
    try:
        per_turn = plan(base).schedule.compute_cycles / one.turns
    except HwgenError:          # one PE cannot run it (loops too short to fold): the grid can
        per_turn = plan(lower({})).schedule.compute_cycles
    per_pe, luts_pe, bits = {}, {}, operand_bits(base)
    for inst in base.instances.values():
        per_pe[inst.task] = max(per_pe.get(inst.task, 0), multipliers(inst))
        luts_pe[inst.task] = max(luts_pe.get(inst.task, 0), sum(
            fabric_luts(x, y) for x, y in bits.get(inst.name, ())))
    cands = []
    for shape in _shapes(folded, pes, array):
        c = _candidate(grids, shape)
        if c.folds not in [o.folds for o in cands]:
            _multipliers(c, grids, per_pe, luts_pe, dsps)
            c.cycles = math.ceil(per_turn * c.turns)
            cands.append(c)
    return cands


def _within_budget(cands, dsps, luts):
    """The candidates within the DSP budget, or with ``luts``, within that many LUTs of
    multiplies in logic; the others say why not. An error when none is."""
    fits = [c for c in cands if dsps is None or (c.dsps <= dsps if luts is None
                                                   else c.luts <= luts)]
    for c in cands:
        if c not in fits:
            c.why = (f"over the DSP budget of {dsps}" if luts is None else
                     f"its multiplies in logic take ~{c.luts:,} LUT, over the budget of {luts:,}")
    if not fits:
        least = min(cands, key=lambda c: (c.luts, c.dsps))
        raise HwgenError(f"no fold fits {dsps} DSP blocks: the smallest takes {least.dsps}"
                         if luts is None else f"no fold fits {dsps} DSP blocks and {luts:,} "
                         f"LUT for multiplies in logic: the smallest takes ~{least.luts:,} LUT; give more "
                         "(--luts, make ... LUTS=)")
    return fits


def _explain(fits, chosen, tried):
    """Why each candidate within the budgets lost to ``chosen``."""
    for c in fits:
        if c is chosen or c.why:
            continue
        if c.cycles > chosen.cycles:
            c.why = "slower"
        elif c.exact:
            c.why = "as fast, more " + ("LUTs in multiplies" if c.luts > chosen.luts
                                        else "DSP blocks")
        elif _used(c) in tried:
            c.why = "not scheduled: the same PEs and turns as a squarer shape"
        else:
            c.why = (f"not scheduled: {c.dsps} DSP blocks, where {chosen.dsps} reach the "
                     "best interval")


def _used(c):
    """What a candidate spends, as the search compares candidates of equal cycles."""
    return c.dsps, c.fabric, c.turns


def _multipliers(c, grids, per_pe, luts_pe, dsps):
    """``c``'s DSP blocks, and its multiplies in logic and their LUTs beyond ``dsps`` (None:
    every multiply on a DSP block), the tasks taking DSP blocks in order."""
    left = math.inf if dsps is None else dsps
    for t in grids:
        n = _instances(grids, c.folds, t)
        on_dsps = min(n, left // per_pe[t]) if per_pe.get(t) else n
        left -= on_dsps * per_pe.get(t, 0)
        c.dsps += on_dsps * per_pe.get(t, 0)
        c.fabric += (n - on_dsps) * per_pe.get(t, 0)
        c.luts += (n - on_dsps) * luts_pe.get(t, 0)


def _fastest_within(fits, lower, ports):
    """The first of ``fits`` (fastest by the model first) whose schedule's host ports fit
    ``ports`` pins, scheduled exactly; those before it are marked over the budget or not
    schedulable."""
    for c in fits:
        if _exact(c, lower).why:
            continue
        if _within(c, ports):
            return c
        c.why = _over_ports(c, ports)
    scheduled = [c for c in fits if c.exact]
    if not scheduled:
        raise fits[0].error
    fewest = min(scheduled, key=lambda c: c.pins)
    raise HwgenError(f"no fold fits {ports} host-port pins: the fewest, "
                     f"{'x'.join(map(str, fewest.array))}, takes {fewest.pins}; give more "
                     "(--ports, make ... PORTS=)")


def _within(c, ports):
    """Whether the scheduled ``c``'s host ports fit ``ports`` pins (None: no budget)."""
    return ports is None or c.pins <= ports


def _over_ports(c, ports):
    return f"its host ports take {c.pins} pins, over the budget of {ports}"


def _skew(c):
    """How far from square a shape is (square arrays keep streams short)."""
    return max(c.array) - min(c.array)


def check_budgets(pes=None, dsps=None, brams=None, ports=None, luts=None):
    """A clear error for a budget that is not a whole number (at least 1; DSP blocks, block
    RAMs and LUTs 0)."""
    for name, value in (("DSP", dsps), ("block RAM", brams), ("PE", pes), ("port pin", ports),
                        ("LUT", luts)):
        least = int(name in ("PE", "port pin"))
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value < least):
            raise HwgenError(f"the {name} budget must be a whole number, at least {least} "
                             f"(e.g. --{FLAGS[name]} 16), got {value!r}")


def _exact(c, lower):
    """``c`` lowered and scheduled: its exact cycles per problem (``why`` says so where it
    cannot be scheduled, ``error`` why)."""
    c.graph = lower(c.folds)
    try:
        p = plan(c.graph)
    except HwgenError as e:
        c.why, c.error = "cannot be scheduled at this fold (hwgen check says why)", e
        return c
    c.cycles, c.pins, c.exact = p.interval_cycles, p.host_pins, True
    return c


def _report(chosen, cands, show=8):
    """The chosen shape, the ``show`` best rejected ones with their costs, and how many more."""
    rejected = sorted((c for c in cands if c is not chosen),
                      key=lambda c: (not c.exact, c.cycles, c.dsps))
    lines = [f"searched {len(cands)} array shapes under the budget; chosen "
             + chosen.line().strip()]
    lines += ["  rejected " + c.line().strip() for c in rejected[:show]]
    if len(rejected) > show:
        lines.append(f"  and {len(rejected) - show} more shapes, slower by the model or over "
                     "the budget")
    return lines


def _candidate(grids, shape):
    folds = fold_onto(grids, shape)
    turns = max([math.prod(-(-v // p) for v, p in zip(grids[t], phys))
                 for t, phys in folds.items()] or [1])
    return Candidate(tuple(shape), folds, sum(_instances(grids, folds, t) for t in grids), 0,
                     turns, 0)


def _instances(grids, folds, task):
    return math.prod(folds.get(task, grids[task]))


def _shapes(folded, pes, array):
    """Array shapes worth trying: per axis the sizes ``ceil(V/t)`` of the largest grid (one
    fewer PE would cost a turn more), within ``pes`` PEs and the ``array``."""
    grid = max(folded.values(), key=math.prod)
    limits = tuple(array) if array else (None, None)
    if len(grid) == 1 or len(limits) == 1:
        cap = min(x for x in (pes, math.prod(limits) if array else None, math.prod(grid))
                  if x is not None)
        return [(n,) for n in _sizes(math.prod(grid) if len(grid) == 1 else grid[0], cap)]
    axes = [_sizes(v, min(x for x in (lim, pes, v) if x is not None))
            for v, lim in zip(grid, limits)]
    return [(p, q) for p in axes[0] for q in axes[1] if pes is None or p * q <= pes]


def _sizes(v, cap):
    return sorted({-(-v // t) for t in range(1, v + 1)} & set(range(1, cap + 1)))
