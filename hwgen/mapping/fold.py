"""Which tasks fold onto a PE array budget, and onto what grid.

A task written on a grid larger than the array (one instance per output tile, as many as the
problem needs) runs on at most the array's PEs along each axis: ``lang.fold`` then gives each
physical instance the virtual instances ``pid, pid + P, pid + 2P, ...`` of that axis, so the
streams between neighbours stay between neighbours and the ones leaving the array's edge come
back in at the other edge. (A grid folded unevenly builds PEs with different loop counts that
cannot share a controller; their independent stalls can deadlock a systolic ring, so sizes
are chosen to divide the grid.)
"""
import math

from ..errors import HwgenError


def fold_onto(grids, array):
    """Task name -> the physical grid it folds onto, for the tasks whose grid ``grids[task]``
    does not fit ``array`` (``(rows, cols)``, or ``(pes,)``): each axis is cut to the largest
    size that divides it and fits the array's on that axis (a 1-D grid: all of the array's
    PEs; the axes past the array's run one after another on each PE), so that every PE runs
    as many grid positions as its neighbours and all of them share one controller."""
    if not array or any(not isinstance(n, int) or n < 1 for n in array) or len(array) > 2:
        raise HwgenError(f"a PE array is one or two positive sizes, like 4x4 or 16; got "
                         f"{list(array)}")
    out = {}
    for task, grid in grids.items():
        if not grid:
            continue
        limits = (math.prod(array),) if len(grid) == 1 else \
            tuple(array) + (1,) * (len(grid) - len(array))
        phys = tuple(max(p for p in range(1, min(g, n) + 1) if g % p == 0)
                     for g, n in zip(grid, limits))
        if phys != tuple(grid):
            out[task] = phys
    return out
