"""Which tasks fold onto a PE array budget, and onto what grid.

A task written on a grid larger than the array (one instance per output tile, as many as the
problem needs) runs on at most the array's PEs along each axis: ``lang.fold`` then gives each
physical instance the virtual instances ``pid, pid + P, pid + 2P, ...`` of that axis, so the
streams between neighbours stay between neighbours and the ones leaving the array's edge come
back in at the other edge. Where the array's size does not divide the grid, the PEs with
fewer positions idle on their last turn, so that all share one controller.
"""
import math

from ..errors import HwgenError


def fold_onto(grids, array):
    """Task name -> the physical grid it folds onto, for the tasks whose grid ``grids[task]``
    does not fit ``array`` (``(rows, cols)``, or ``(pes,)``): on each axis the fewest PEs
    that take as few turns as the array's size allows (a grid of 6 on 4 PEs takes 2 turns,
    as on 3: 3 PEs; 256 on 12 takes 22 turns on 12); a 1-D grid may use all of the array's
    PEs, and the axes past the array's run one after another on each PE."""
    if not array or any(not isinstance(n, int) or n < 1 for n in array) or len(array) > 2:
        raise HwgenError(f"a PE array is one or two positive sizes, like 4x4 or 16; got "
                         f"{list(array)}")
    out = {}
    for task, grid in grids.items():
        if not grid:
            continue
        limits = (math.prod(array),) if len(grid) == 1 else \
            tuple(array) + (1,) * (len(grid) - len(array))
        phys = tuple(-(-g // -(-g // n)) for g, n in zip(grid, limits))
        if phys != tuple(grid):
            out[task] = phys
    return out
