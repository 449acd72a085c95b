"""Public layer tables through the cost model: the best dataflow of each layer on a fixed array.

VGG-16's 13 convolution layers (224x224 input, 3x3 kernels, stride 1, same padding: the
output is H x W) and the ResNet-50 GEMMs Timeloop uses. Each layer is explored on exactly the
given array: loops on an axis are padded up to a multiple of the array side (the padding is
wasted work, which utilization counts), every map of the realisable family is costed and the
one with the fewest array cycles per layer wins (ties: fewer LUTs).

Utilization is the useful multiply-accumulates per PE per cycle of array time. A whole layer's
tensors do not fit in an FPGA's block RAM: a deployment streams tiles from DRAM, so the array
cycles (compute, fill and drain) are the figure to compare; ``host-bound`` gives the cycles per
layer if every tensor crossed hwgen's host ports at the lanes the model picks.
"""
import math

from ..errors import HwgenError
from .cost import cost
from .design import Design, paddable
from .explore import maps
from .expr import parse_expr

CONV = "O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]"
GEMM = "C[m,n] += A[m,k] * B[k,n]"

# (name, input channels, output channels, output height = width)
VGG16 = [("conv1_1", 3, 64, 224), ("conv1_2", 64, 64, 224), ("conv2_1", 64, 128, 112),
         ("conv2_2", 128, 128, 112), ("conv3_1", 128, 256, 56), ("conv3_2", 256, 256, 56),
         ("conv3_3", 256, 256, 56), ("conv4_1", 256, 512, 28), ("conv4_2", 512, 512, 28),
         ("conv4_3", 512, 512, 28), ("conv5_1", 512, 512, 14), ("conv5_2", 512, 512, 14),
         ("conv5_3", 512, 512, 14)]
# (name, M, K, N) as in Timeloop's ResNet-50 GEMM examples.
RESNET50 = [("M1024-K512-N256", 1024, 512, 256), ("M512-K128-N1024", 512, 128, 1024),
            ("M512-K256-N1024", 512, 256, 1024)]


def tables():
    """``{table: [(layer name, expression text, sizes)]}``."""
    return {
        "vgg16": [(n, CONV, {"k": k, "c": c, "p": h, "q": h, "r": 3, "s": 3})
                  for n, c, k, h in VGG16],
        "resnet50": [(n, GEMM, {"m": m, "k": k, "n": nn}) for n, m, k, nn in RESNET50],
    }


def padded(sizes, space, array):
    """``sizes`` with each spatial loop rounded up to a multiple of its axis's PEs."""
    out = dict(sizes)
    for loop, pes in zip(space, array):
        side = min(pes, sizes[loop])
        out[loop] = -(-sizes[loop] // side) * side
    return out


def best(expr, sizes, array):
    """``(design, cost, utilization)`` of the map with the fewest array cycles on ``array``."""
    macs = math.prod(sizes[l] for l in expr.loops)
    found = None
    for space, inner, skew in maps(expr, len(array)):
        try:
            d = Design(expr, padded(sizes, space, array), tuple(array), space, inner, skew)
        except HwgenError:
            continue
        if d.unrealisable:
            continue
        c = cost(d)
        key = (c.array_cycles, c.resources["LUT"])
        if found is None or key < found[0]:
            found = (key, d, c)
    if found is None:
        raise HwgenError(f"no realisable dataflow for {expr.text} on {array}")
    _, d, c = found
    return d, c, macs / (c.pes * c.array_cycles)


def evaluate(table, array=(12, 12), progress=None):
    """Rows ``(layer, sizes, design, cost, utilization)`` of one table."""
    if table not in tables():
        raise HwgenError(f"unknown layer table {table!r}; use one of {', '.join(tables())}")
    layers = tables()[table]
    rows = []
    for name, text, sizes in (progress(layers) if progress else layers):
        d, c, util = best(parse_expr(text), sizes, array)
        rows.append((name, sizes, d, c, util))
    return rows


def format_rows(rows):
    """A Markdown table of ``evaluate``'s rows."""
    lines = ["| layer | sizes | best dataflow | entries (output first) | array cycles | "
             "utilization | host-bound cycles |", "|---|---|---|---|---|---|---|"]
    for name, sizes, d, c, util in rows:
        entries = ", ".join(f"{t} {d.built[t].name}" for t in d.expr.tensors)
        lines.append(f"| {name} | {' '.join(f'{k}={v}' for k, v in sizes.items())} | "
                     f"{d.spacetime_text()} | {entries} | {c.array_cycles:,} | {util:.3f} | "
                     f"{c.cycles:,} |")
    return "\n".join(lines)


def build_lines(rows, array):
    """Per layer, the make command that builds its best dataflow, folded and tiled to the
    device's block RAM (``pipeline.load_point``), or why it cannot be built: tiles of a loop
    that indexes an input with an offset (``I[c,p+r,q+s]``) would need halos."""
    lines = []
    for name, sizes, d, _, _ in rows:
        halo = [l for l in d.expr.loops if not paddable(d.expr, l)]
        if halo:
            lines.append(f"{name}: not built: its tiles along {', '.join(halo)} would need "
                         "halos (an input indexed with an offset), which hwgen does not tile")
            continue
        lines.append(f"{name}: make verilog DESIGN=\"dse:{d}\" EXPR=\"{d.expr.text}\" "
                     f"SIZES=\"{' '.join(f'{k}={v}' for k, v in sizes.items())}\" "
                     f"ARRAY={'x'.join(map(str, array))}")
    return lines
