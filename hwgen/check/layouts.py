"""Layout rules: sharded dimensions divide evenly over the grid, and every task instance touches
only the shard its grid position owns."""
from ..errors import HwgenError
from ..ir.layout import access_bounds, banking, cyclic_split, tensor_accesses
from ..ir.types import Sharded


def check_layouts(graph):
    grids = {}
    for name, inst, seg, index, loc in tensor_accesses(graph):
        tensor = graph.tensors[name]
        layout = tensor.type.layout
        if not layout or not any(isinstance(l, Sharded) for l in layout):
            continue
        grid = grids.setdefault(name, (inst.grid, inst.task))
        if grid[0] != inst.grid:
            raise HwgenError(f"tensor '{name}' is sharded but used by tasks on different grids "
                             f"({grid[1]} on {list(grid[0])}, {inst.task} on {list(inst.grid)}); "
                             "replicate it (R) or use one grid", loc)
        for d, l in enumerate(layout):
            if not isinstance(l, Sharded):
                continue
            if not 0 <= l.axis < len(inst.grid):
                raise HwgenError(f"tensor '{name}' dimension {d} is sharded on grid axis {l.axis}, "
                                 f"but task {inst.task} has a {len(inst.grid)}-D grid "
                                 f"{list(inst.grid)}", tensor.loc)
            parts = inst.grid[l.axis]
            if tensor.shape[d] % parts:
                raise HwgenError(f"tensor '{name}' dimension {d} has size {tensor.shape[d]}, not "
                                 f"divisible by grid axis {l.axis} of size {parts} that shards it; "
                                 "change the size or the layout", tensor.loc)
        plan = banking(tensor, inst.grid)
        for d, l in enumerate(layout):
            if not isinstance(l, Sharded):
                continue
            if l.cyclic:
                split = cyclic_split(index[d], plan.shards[d])
                if split is None or split[0] != inst.pid[l.axis]:
                    raise HwgenError(f"{inst.name} accesses {name} dimension {d} outside the "
                                     f"indices {inst.pid[l.axis]} + {plan.shards[d]}k its grid "
                                     f"position owns (layout {l!r})", loc)
                continue
            lo, hi = access_bounds(index[d], seg.trips, tensor.shape[d])
            own = inst.pid[l.axis]
            first, last = own * plan.extent[d], (own + 1) * plan.extent[d] - 1
            if lo < first or hi > last:
                raise HwgenError(f"{inst.name} accesses {name} dimension {d} at {lo}..{hi}, "
                                 f"outside its shard {first}..{last} (layout S({l.axis})); "
                                 "index by the grid position or replicate the dimension (R)", loc)
