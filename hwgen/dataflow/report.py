"""An exploration, shown: the summary of how the space was cut down, the Pareto table and a
plot of every point (cycles per problem against LUTs, the front highlighted)."""
import os

from ..errors import HwgenError

COLUMNS = ("id", "map", "array", "entries (output first)", "cycles", "latency", "util", "banks",
           "ports", "fan-out", "buffer", "LUT", "FF", "DSP", "BRAM", "note")


def summary(result):
    """Lines saying what was explored and what was cut, and how long it took."""
    t = result.tuples
    lines = [f"{result.expr.text}  sizes {' '.join(f'{k}={v}' for k, v in result.sizes.items())}"
             f"  array up to {'x'.join(map(str, result.array))}",
             f"entry tuples: {t['candidate tuples']} candidates, {t['pruned']} pruned, "
             f"{t['survivors']} left, {t['solved']} realised by a map",
             *(f"  pruned {n}: {reason}" for reason, n in sorted(result.pruned.items(),
                                                                  key=lambda kv: -kv[1])),
             f"maps: {t['maps']} in the realisable family, {t['maps not realisable']} cannot be "
             f"built here, {len(result.points)} costed points, {len(result.front)} on the "
             f"Pareto front ({result.seconds:.2f} s)",
             *(f"  not built ({n}): {reason}" for reason, n in sorted(
                 result.pruned_maps.items(), key=lambda kv: -kv[1]))]
    return lines


def details(point):
    """Everything about one point: map, tiles, time loops, entries with their data layouts
    (``A·T⁻¹ = L·E``), memory, interconnect, cycles and resources."""
    from .layout import describe
    d, c = point.design, point.cost
    expr, st = d.tiled
    skews = ", ".join(f"{a}={s}" for a, s in zip("xy", d.skew))
    lines = [f"point {point.id}: {d}   (skews {skews})",
             "  array loops: " + ", ".join(f"{p.name} on {p.trip} PEs" for p in d.spatial),
             "  time loops, outer to inner: " + ", ".join(f"{p.name}({p.trip})" for p in d.nest),
             f"  space-time map over the tiled nest: {st}",
             "  entries and data layouts (tiled nest coordinates):"]
    for a in expr.accesses:
        for line in describe(a, st, d.entries[a.tensor]):
            lines.append("    " + line)
        if a.tensor in d.missed:
            lines.append(f"    (built: {d.built[a.tensor].name}; the rest of the reuse is "
                         "reloaded)")
    lines += [f"  cycles: {c.cycles} per problem back to back ({c.array_cycles} in the array), "
              f"latency {c.latency}, utilization {c.utilization:.2f}",
              f"  memory: {c.banks} banks, {c.ports} read ports (fan-out up to {c.fanout}), "
              "distinct elements per tile " + ", ".join(f"{t} {n}" for t, n in c.buffer.items()),
              "  lanes: " + ", ".join(f"{t}={n}" for t, n in c.lanes.items()),
              "  resources (estimated, ECP5): " + ", ".join(f"{k} {v}" for k, v in
                                                            c.resources.items())]
    return lines


def row(point):
    d, c = point.design, point.cost
    entries = ", ".join(f"{t} {e}" for t, e in zip(d.expr.tensors, point.tuple))
    note = "; ".join(f"unexploited reuse {e}" for e in d.missed.values())
    buffer = " ".join(f"{t}:{n}" for t, n in c.buffer.items())
    r = c.resources
    return (str(point.id), d.spacetime_text(), "x".join(map(str, d.array)), entries,
            str(c.cycles), str(c.latency), f"{c.utilization:.2f}", str(c.banks), str(c.ports),
            str(c.fanout), buffer, str(r["LUT"]), str(r["FF"]), str(r["DSP"]), str(r["BRAM"]),
            note)


def table(points):
    """A Markdown table of ``points``."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row(p)) + " |" for p in points]
    return "\n".join(lines)


def plot(result, path):
    """Every point as cycles per problem against estimated LUTs; the front in colour."""
    from matplotlib.figure import Figure
    if os.path.splitext(path)[1].lower() not in (".png", ".svg"):
        raise HwgenError(f"cannot plot to {path!r}: use a .png or .svg file")
    fig = Figure(figsize=(8, 5.5), dpi=120)
    ax = fig.add_subplot()
    xs = [p.cost.resources["LUT"] for p in result.points]
    ys = [p.cost.cycles for p in result.points]
    ax.scatter(xs, ys, s=14, color="#b0b0b0", label=f"all {len(result.points)} points")
    front = sorted(result.front, key=lambda p: p.cost.resources["LUT"])
    ax.plot([p.cost.resources["LUT"] for p in front], [p.cost.cycles for p in front], "o-",
            color="#c0392b", label="Pareto front")
    for p in front:
        ax.annotate(f"#{p.id} {p.design.spacetime_text()} {'x'.join(map(str, p.design.array))}",
                    (p.cost.resources["LUT"], p.cost.cycles), fontsize=7,
                    xytext=(5, 4), textcoords="offset points")
    ax.set_xlabel("LUTs (estimated, ECP5)")
    ax.set_ylabel("cycles per problem (steady state)")
    ax.set_yscale("log")
    ax.set_title(f"{result.expr.text}   "
                 + " ".join(f"{k}={v}" for k, v in result.sizes.items())
                 + f"   array up to {'x'.join(map(str, result.array))}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path)
    return path
