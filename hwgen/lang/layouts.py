"""Layout inference: a tensor written without ``@ [...]`` gets the layout its tasks' accesses
imply, where that is unambiguous.

Dimension ``d`` is sharded over grid axis ``a`` (``S(a)``) when the grid has more than one
position on ``a``, the size divides evenly, and every access of every instance stays inside the
block of that dimension its own position on ``a`` owns (or, in a folded program, at the
indices ``p, p + P, ...`` position ``p`` of ``P`` owns: cyclic); when no axis (or more than
one) fits, the dimension is replicated (``R``). Tensors used by tasks on different grids stay
replicated.
"""
from dataclasses import replace

from ..ir.layout import access_bounds, cyclic_split, tensor_accesses
from ..ir.types import R, Sharded


def _owns(accesses, d, axis, extent, size):
    for _, inst, seg, index, _ in accesses:
        lo, hi = access_bounds(index[d], seg.trips, size)
        own = inst.pid[axis]
        if lo < own * extent or hi >= (own + 1) * extent:
            return False
    return True


def _owns_cyclic(accesses, d, axis, parts):
    """Whether every access to dimension ``d`` by the instance at position ``p`` on grid
    ``axis`` (of ``parts``) is at an index ``p + parts * x`` (a folded grid's rows)."""
    for _, inst, _, index, _ in accesses:
        split = cyclic_split(index[d], parts)
        if split is None or split[0] != inst.pid[axis]:
            return False
    return True


def infer_layouts(graph):
    """Give every tensor without a declared layout the one its uses imply (in place)."""
    uses = {}
    for access in tensor_accesses(graph):
        uses.setdefault(access[0], []).append(access)
    for name, accesses in uses.items():
        tensor = graph.tensors[name]
        grids = {inst.grid for _, inst, *_ in accesses}
        if tensor.type.layout is not None or len(grids) != 1:
            continue
        grid = grids.pop()
        layout, taken = [], set()
        for d, size in enumerate(tensor.shape):
            fits = [a for a, parts in enumerate(grid) if parts > 1 and a not in taken
                    and size % parts == 0 and _owns(accesses, d, a, size // parts, size)]
            cyclic = [a for a, parts in enumerate(grid) if parts > 1 and a not in taken
                      and size % parts == 0 and _owns_cyclic(accesses, d, a, parts)]
            if not fits and len(cyclic) == 1:
                layout.append(Sharded(cyclic[0], cyclic=True))
                taken.add(cyclic[0])
                continue
            layout.append(Sharded(fits[0]) if len(fits) == 1 else R)
            taken.update(fits[:1] if len(fits) == 1 else [])
        if any(isinstance(entry, Sharded) for entry in layout):
            tensor.type = replace(tensor.type, layout=tuple(layout))
            tensor.inferred = True
    return graph
