"""A model's hwgen program at its sizes: the first layer's multiply-accumulates per clock so
that it is not the slowest layer, and each stream between layers as deep as the schedule
says it must be to never stall its producer in steady state."""
from dataclasses import dataclass, replace

from ..errors import HwgenError
from ..pipeline import load_design
from ..schedule import plan
from ..schedule.depths import least_depth
from . import program, tables
from .layers import AddConst


@dataclass(frozen=True)
class Design:
    """The program at ``path`` built at ``params``: its checked graph, its plan, and the depth
    chosen for each stream between layers."""
    path: str
    params: dict
    graph: object
    built: object
    depths: dict


def _slowest(model):
    """(clocks a sample, index) of the slowest layer after the first (each does one
    multiply-accumulate or comparison a clock), or None where there is none."""
    others = [(layer.clocks, index) for index, layer in enumerate(model.layers)
              if index and layer.clocks]
    return max(others) if others else None


def fastest(model):
    """The fewest clocks a sample the layers after the first allow, or None."""
    slowest = _slowest(model)
    return slowest and slowest[0]


def first_unroll(model, clocks=None):
    """The fewest multiply-accumulates per clock of the first layer (dividing
    ``tables.unrolls``) that take it through a sample in ``clocks`` or fewer (default:
    no slower than the slowest other layer, or one where there is none)."""
    layer = model.layers[0]
    choices, clocks = tables.unrolls(layer), clocks or fastest(model)
    if clocks is None:
        return 1
    fits = [u for u in choices if layer.clocks // u <= clocks]
    return fits[0] if fits else choices[-1]


def unroll_for_rate(model, rate, clock_mhz):
    """``first_unroll`` for ``rate`` inferences a second at ``clock_mhz`` ("max": as fast as
    the later layers allow); an error where the later layers cannot keep that rate."""
    if rate == "max":
        return first_unroll(model)
    try:
        rate = float(rate)
    except ValueError:
        raise HwgenError(f"a rate is a number of inferences a second or 'max', not {rate!r}") \
            from None
    if rate <= 0 or clock_mhz <= 0:
        raise HwgenError("the rate and the clock must be positive")
    clocks = clock_mhz * 1e6 / rate
    floor = fastest(model)
    if floor is not None and clocks < floor:
        raise HwgenError(f"{rate:,.0f} inferences/s at {clock_mhz:g} MHz leaves {clocks:,.0f} "
                         f"clocks a sample; the layers after the first take {floor:,} (one "
                         f"multiply-accumulate a clock): at most {clock_mhz * 1e6 / floor:,.0f}"
                         "/s, or RATE=max")
    return first_unroll(model, clocks)


def build(model, onnx_path, out_dir, batch=1, unroll=None):
    """Write the program of ``model`` to ``out_dir``, each stream deepened until its producer
    never stalls (one at a time, again until none changes): a ``Design``."""
    params = {"B": batch, "U0": unroll or first_unroll(model)}
    graph = load_design(program.write(model, onnx_path, out_dir), params)
    depths, changed = {}, True
    while changed:
        changed = False
        for name, channel in sorted(graph.channels.items()):
            found = least_depth(graph, name)
            if found and found[0] != channel.depth:
                deeper = replace(channel, type=replace(channel.type, depth=found[0]))
                graph = graph.with_(channels={**graph.channels, name: deeper})
                depths[name], changed = found[0], True
    path = program.write(model, onnx_path, out_dir, depths)
    graph = load_design(path, params)
    return Design(path, params, graph, plan(graph), depths)


def rows(model, design):
    """The per-layer table: node, operation, sizes, multiply-accumulates per clock, clocks
    per sample (its task's, from the schedule), on-chip tables (bytes) and the depth of the
    stream into it."""
    out = [("layer", "node", "computes", "MAC/clock", "clocks/sample", "tables (bytes)",
            "stream in")]
    iterations = {member: group.iterations for group in design.built.schedule.groups
                  for member in group.members}
    for index, layer in enumerate(model.layers):
        n = layer.shape[1]
        if isinstance(layer, AddConst):
            out.append((str(index), layer.node, layer.text, "-", "(in the layer above)",
                        f"{256 * max(n, 2):,}", "-"))
            continue
        unroll = design.params["U0"] if index == 0 else 1
        stream = f"s{index} ({design.depths.get(f's{index}', 2)})" if index else "X"
        stored = f"{tables.table_bytes(layer):,}" if tables.weighted(layer) else "-"
        out.append((str(index), layer.node, layer.text,
                    str(unroll) if tables.weighted(layer) else "-",
                    f"{iterations[f'layer{index}'] / design.params['B']:,.0f}", stored, stream))
    return out


def reasons(model, design):
    """Why the table's choices are what they are, a sentence each."""
    unroll, slowest = design.params["U0"], _slowest(model)
    line = f"layer 0 does {unroll} multiply-accumulates a clock"
    if slowest and unroll == first_unroll(model):
        clocks, index = slowest
        within = model.layers[0].clocks // unroll <= clocks
        line += (f": the {'fewest' if within else 'most'} it can "
                 f"({tables.unrolls_text(model.layers[0])})" +
                 (" that keep it" if within else ", short of keeping it") +
                 f" within layer {index}'s {clocks:,} clocks a sample (each later layer does one "
                 "operation a clock: it collects its inputs from its stream)")
    elif slowest:
        line += " (the rate asked, or --unroll)"
    lines = [line]
    for name, depth in sorted(design.depths.items()):
        lines.append(f"{name} holds {depth}: the fewest entries at which problems come every "
                     f"{design.built.interval_cycles:,} clocks, as with any deeper stream; one "
                     "fewer stalls its producer")
    return lines
