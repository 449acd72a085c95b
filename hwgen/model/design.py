"""A model's hwgen program at its sizes: the first layer's multiply-accumulates per clock so
that it is not the slowest layer, and each stream between layers as deep as the schedule
says it must be to never stall its producer in steady state."""
from dataclasses import dataclass

from ..pipeline import load_design
from ..schedule import plan
from ..schedule.depths import least_depth
from . import program
from .layers import Dense


@dataclass(frozen=True)
class Design:
    """The program at ``path`` built at ``params``, its checked graph and plan, the stream
    depths chosen, and a row per layer for the table ``rows`` prints."""
    path: str
    params: dict
    graph: object
    built: object
    depths: dict


def first_unroll(model):
    """The fewest multiply-accumulates per clock of the first layer (dividing its inputs)
    that make it no slower than the slowest other layer (every other layer does one)."""
    k, n = model.layers[0].shape
    others = [layer.shape[0] * layer.shape[1] for layer in model.layers[1:]
              if isinstance(layer, Dense)]
    if not others:
        return 1
    return next(u for u in range(1, k + 1) if k % u == 0 and k * n // u <= max(others))


def build(model, onnx_path, out_dir, batch=1, unroll=None):
    """Write the program of ``model`` to ``out_dir`` and choose its stream depths: a
    ``Design``."""
    params = {"B": batch, "U0": unroll or first_unroll(model)}
    depths = {}
    path = program.write(model, onnx_path, out_dir)
    graph = load_design(path, params)
    for name in sorted(graph.channels):
        found = least_depth(graph, name)
        if found is not None:
            depths[name] = found[0]
    if depths:
        path = program.write(model, onnx_path, out_dir, depths)
        graph = load_design(path, params)
    return Design(path, params, graph, plan(graph), depths)


def rows(model, design):
    """The per-layer table: node, operation, sizes, multiply-accumulates per clock, clocks
    per sample, on-chip tables (bytes) and the depth of the stream into it."""
    out = [("layer", "node", "computes", "MAC/clock", "clocks/sample", "tables (bytes)",
            "stream in")]
    for index, layer in enumerate(model.layers):
        k, n = layer.shape
        if isinstance(layer, Dense):
            unroll = design.params["U0"] if index == 0 else 1
            w, c, m = program.dense_tables(layer)
            size = w.size * (1 if w.dtype.itemsize == 1 or abs(w).max() < 128 else 2) \
                + 4 * c.size + 4 * m.size
            stream = f"s{index}" if index else "X"
            out.append((str(index), layer.node, f"MatMul {k} -> {n}", str(unroll),
                        str(k * n // unroll), f"{size:,}",
                        f"{stream} ({design.depths.get(stream, 'port')})" if index else "X"))
        else:
            out.append((str(index), layer.node, f"+ constant ({n})", "-", "(in the layer above)",
                        f"{256 * max(n, 2):,}", "-"))
    return out
