"""Design-space exploration: entry tuples -> pruning -> the maps that realise them -> costs ->
the Pareto front of cycles per problem against LUTs.

1. Candidate tuples: one of the 14 entries (or unicast) per tensor: 15^3 for three tensors.
2. Pruning: an entry of a reuse dimension (rank) the tensor's access never has under the
   realisable maps; a direction systolic for one tensor and multicast for another (one axis is
   either in t1 or not); an output that cannot reduce (``REDUCIBLE``).
3. Solving: every map of the realisable family (``design``) on every array shape that fits
   (sub-arrays whose sides divide the loops they run) is classified by the reuse it builds
   (equal to the null-space entries unless the map offers more: ``Design.missed``); the maps
   of each tuple are its solutions. Tuples left without one need maps outside the family.
4. Costing (``cost``) and the Pareto front.
"""
import itertools
import time
from dataclasses import dataclass, field

from ..errors import HwgenError
from .cost import cost
from .design import Design, lacks, paddable
from .entries import UNICAST, entries

@dataclass
class Point:
    """A costed design point; ``id`` numbers the explored points in a fixed order."""
    id: int
    design: Design
    cost: object

    @property
    def tuple(self):
        """The access entry of each tensor (output first) as the hardware realises it."""
        return tuple(self.design.built[t].name for t in self.design.expr.tensors)


@dataclass
class Exploration:
    expr: object
    sizes: dict
    array: tuple
    points: list
    front: list
    tuples: dict = field(default_factory=dict)      # stage -> count
    pruned: dict = field(default_factory=dict)      # tuple pruning reason -> count
    pruned_maps: dict = field(default_factory=dict)     # why maps cannot be built -> count
    seconds: float = 0.0

    def find(self, key):
        """The point numbered ``key`` (int or digit string) or written as its map
        (``"x=j, y=i, t1=i+j+k"``, optionally ``"... on 4x4"``)."""
        text = str(key).strip()
        if text.isdigit():
            hits = [p for p in self.points if p.id == int(text)]
        else:
            norm = text.replace(" ", "")
            hits = [p for p in self.points
                    if str(p.design).replace(" ", "") == norm or
                    (p.design.spacetime_text().replace(" ", "") == norm and
                     p.design.array == self.array[:len(p.design.array)])]
        if not hits:
            raise HwgenError(f"no explored point {text!r}; run `make dse` to list them (ids "
                             f"0..{len(self.points) - 1} or maps like 'x=j, y=i, t1=i+j+k')")
        return hits[0]


def shapes(expr, array, design_sizes, space):
    """Array shapes for loops ``space``: every side from 2 up to the array's (or the loop's)
    that divides the loop it runs, and the array's whole side if the loop can be padded to a
    multiple of it (``paddable``; ``pipeline.load_point`` pads it)."""
    sides = []
    for axis, loop in enumerate(space):
        n, side = design_sizes[loop], min(array[axis], design_sizes[loop])
        sides.append([s for s in range(2, side + 1) if n % s == 0 or
                      (s == side and paddable(expr, loop))])
    return list(itertools.product(*sides))


def maps(expr, dims):
    """Every ``(space, inner, skew)`` of the family for a ``dims``-D array. A skew of 0 on an
    axis whose loop every tensor uses builds the same hardware as 1 (nothing moves along that
    axis), so only the skew-1 twin is kept."""
    for space in itertools.permutations(expr.loops, dims):
        for inner in expr.loops:
            for skew in itertools.product((1, 0), repeat=dims):
                if not any(s == 0 and not any(lacks(expr, a, l) for a in expr.accesses)
                           for s, l in zip(skew, space)):
                    yield space, inner, skew


def family(expr, sizes, array):
    """Every design of the family on ``array`` and the shapes that fit in it (2-D arrays also
    host 1-D ones), realisable or not."""
    spaces = [(len(array), array)]
    if len(array) == 2:
        spaces.append((1, (max(array),)))
    for dims, arr in spaces:
        by_space = {}           # ids number points by axis loops, then shape, then t1 and skew
        for space, inner, skew in maps(expr, dims):
            by_space.setdefault(space, []).append((inner, skew))
        for space, rest in by_space.items():
            for shape in shapes(expr, arr, sizes, space):
                for inner, skew in rest:
                    try:
                        yield Design(expr, sizes, shape, space, inner, skew)
                    except HwgenError:
                        continue


def _parts(name):
    """``(axis, kind)`` of every moving direction of an entry: ``X-systolic + Y-multicast``
    -> ``{("X", "systolic"), ("Y", "multicast")}``."""
    parts = set()
    for part in name.split(" + "):
        if part == "stationary" or part == UNICAST:
            continue
        axes, kind = part.rsplit("-", 1)
        for axis in (("X", "Y") if axes == "XY" else (axes,)):
            parts.add((axis, kind))
    return parts


# Output entries hwgen can reduce: in the PE (stationary), along a partial-sum chain
# (systolic), a chain plus accumulation over time, or no reduction in space-time at all.
REDUCIBLE = {UNICAST, "stationary", "X-systolic", "Y-systolic", "X-multicast + stationary",
             "Y-multicast + stationary"}


def prune(combo, ranks):
    """Why the entry tuple ``combo`` (output first) cannot be realised, or None. ``ranks``:
    per tensor, the reuse dimensions its access can have."""
    rank_of = {e.name: e.rank for e in entries(2)}
    rank_of[UNICAST] = 0
    if any(rank_of[name] not in rs for name, rs in zip(combo, ranks)):
        return "rank: the entry's reuse dimension is not the access's"
    seen = {}
    for name in combo:
        for axis, kind in _parts(name):
            if seen.setdefault(axis, kind) != kind:
                return "a direction systolic for one tensor and multicast for another"
    if combo[0] not in REDUCIBLE:
        return "the output cannot reduce (needs an adder tree or a 2-D reduction)"
    return None


def explore(expr, sizes, array, progress=None):
    """Explore ``expr`` at ``sizes`` on an array of at most ``array`` PEs; returns an
    ``Exploration``. ``progress`` wraps the costing loop (e.g. a tqdm bar)."""
    t0 = time.time()
    sizes = expr.check_sizes(sizes)
    designs = list(family(expr, sizes, tuple(array)))
    solved, pruned_maps, ranks = {}, {}, {t: set() for t in expr.tensors}
    for d in designs:
        reason = d.unrealisable
        if reason:
            reason = reason.split(" (")[0]
            pruned_maps[reason] = pruned_maps.get(reason, 0) + 1
            continue
        for t in expr.tensors:
            ranks[t].add(d.entries[t].rank)
        solved.setdefault(tuple(d.built[t].name for t in expr.tensors), []).append(d)
    names = [e.name for e in entries(2)] + [UNICAST]
    candidates = list(itertools.product(names, repeat=len(expr.tensors)))
    pruned, survivors = {}, []
    for combo in candidates:
        reason = prune(combo, [ranks[t] for t in expr.tensors])
        if reason:
            pruned[reason] = pruned.get(reason, 0) + 1
        else:
            survivors.append(combo)
    todo = [d for combo in survivors for d in solved.get(combo, [])]
    points = [Point(n, d, cost(d)) for n, d in enumerate(progress(todo) if progress else todo)]
    result = Exploration(expr, sizes, tuple(array), points, pareto(points), pruned=pruned,
                         pruned_maps=pruned_maps)
    result.tuples = {"candidate tuples": len(candidates), "pruned": len(candidates) -
                     len(survivors), "survivors": len(survivors),
                     "solved": sum(c in solved for c in survivors),
                     "maps": len(designs), "maps not realisable": sum(pruned_maps.values())}
    result.seconds = time.time() - t0
    return result


def pareto(points):
    """Points no other point beats on both cycles per problem and LUTs, fastest first (ties
    go to fewer block RAMs, then shorter latency)."""
    def key(p):
        return (p.cost.cycles, p.cost.resources["LUT"], p.cost.resources["BRAM"],
                p.cost.latency, p.id)
    front = []
    for p in sorted(points, key=key):
        if not front or p.cost.resources["LUT"] < front[-1].cost.resources["LUT"]:
            front.append(p)
    return front
