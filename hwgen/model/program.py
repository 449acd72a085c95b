"""A ``layers.Model`` as a hwgen program: one task per ``Dense`` layer, which also applies the
elementwise layers after it (``AddConst``), 8-bit streams between the tasks.

The program is Python source a user can read and change: its tables (weights, biases with the
input's zero point folded in, multipliers, lookups) come from ``dense_tables`` and
``lookup_table`` applied to the model the ONNX file beside it gives; zero points and bounds
are literals. Every float operation is
float32 in onnxruntime's order (``reference``), so hardware, interpreter and onnxruntime agree
bit for bit.
"""
import functools
import itertools
import math
import os
import shutil
from dataclasses import replace

import numpy as np

from ..errors import HwgenError
from .layers import AddConst, AveragePool, Conv, Dense, MaxPool
from .reference import add_table, average_scale, multiplier

MAGIC = 12582912.0           # 1.5 * 2**23: adding it rounds a float32 below 2**22 to an integer


def dense_tables(layer):
    """(weights [N, K] less their zero point, sums less the input's zero point times the
    weights [N], multipliers [N] float32) of a ``Dense`` or ``Conv`` layer (N its outputs or
    output channels, K the terms of each)."""
    w = layer.rows
    bias = layer.bias.astype(np.int64) - layer.x.zero * w.sum(axis=1)
    if np.abs(bias).max(initial=0) >= 2 ** 31:
        raise HwgenError(f"node {layer.node}: its folded bias does not fit int32")
    return w, bias, multiplier(layer)


def weighted(layer):
    """Whether ``layer`` has weights (a ``Dense`` or ``Conv`` layer)."""
    return isinstance(layer, (Dense, Conv))


def table_bytes(layer):
    """Bytes of a ``Dense`` or ``Conv`` layer's tables, each element at its width in the
    program."""
    w, c, m = dense_tables(layer)
    return w.size * -(-max(8, _bits(w)) // 8) + c.size * -(-_bits(c) // 8) + 4 * m.size


def lookup_table(layer):
    """An ``AddConst`` layer's outputs by constant element and input value
    (``reference.add_table``), at least two rows: a read-only table (more than 256 elements)."""
    table = add_table(layer)
    return np.concatenate([table, table[:2 - len(table)]]) if len(table) < 2 else table


def _groups(model):
    """The layers as tasks: each ``Dense``, ``Conv`` or pooling layer with the ``AddConst``
    layers after it."""
    groups = []
    for index, layer in enumerate(model.layers):
        if not isinstance(layer, AddConst):
            groups.append([index])
        elif not groups:
            raise HwgenError(f"node {layer.node}: an Add before the first MatMul, Gemm or "
                             "Conv is not supported yet")
        else:
            groups[-1].append(index)
    return groups


def _minus(value):
    """`` - value`` as source text (nothing for 0)."""
    return "" if value == 0 else f" - {value}" if value > 0 else f" + {-value}"


def _round(step, value, q, indent):
    """Lines that round float32 ``value`` to nearest even, clamp it to ``q``'s range less its
    zero point and add the zero point: the result in local ``q{step}``. As onnxruntime
    clamps before rounding: the bounds are integers, and a value of 2**22 or more in
    magnitude, which adding `MAGIC` does not round, lands beyond them on its own side. The
    integer is 10 bits, saturated: enough for the bounds, short compares."""
    lo, hi = q.bounds
    pad = " " * indent
    return [f"{pad}n{step}: Int(10) = {value} + {MAGIC} - {MAGIC}",
            f"{pad}q{step}: {q.dtype} = min(max(n{step}, {lo - q.zero}), {hi - q.zero})"
            f"{_minus(-q.zero)}"]


def _elementwise(model, index, flat, indent):
    """Lines of the ``AddConst`` layer ``index`` on local ``q{index - 1}``, output ``flat``
    of the sample: a lookup."""
    layer, pad = model.layers[index], " " * indent
    kind = "in float32" if layer.float_path else "QLinearAdd"
    at = f"q{index - 1}{_minus(layer.x.bounds[0])}"
    return [f"{pad}q{index}: {layer.y.dtype} = t{index}[{flat}, {at}]"
            f"    # {layer.node}: + a constant ({kind})"]


def unrolls(layer):
    """The multiply-accumulates a clock the first layer can do (``U0``): a divisor of a
    ``Dense`` layer's inputs; for a ``Conv`` layer a divisor of its kernel's width, or the
    width times a divisor of its height; 1 for a pooling layer."""
    def divisors(n):
        return [d for d in range(1, n + 1) if n % d == 0]
    if isinstance(layer, Dense):
        return divisors(layer.shape[0])
    if isinstance(layer, Conv):
        kh, kw = layer.kernel
        return divisors(kw) + [kw * d for d in divisors(kh)[1:]]
    return [1]


def unrolls_text(layer):
    return (f"a divisor of its {layer.shape[0]} inputs" if isinstance(layer, Dense) else
            "one of " + ", ".join(map(str, unrolls(layer))))


def _bits(values):
    """Bits of the narrowest signed type that holds ``values``."""
    top = max(int(np.max(values)), -int(np.min(values)) - 1, 1)
    return top.bit_length() + 1


def _type(bits):
    return f"int{bits}" if bits in (8, 16, 32) else f"Int({bits})"


def _sum_bits(layer, w_bits, c_bits):
    """Bits of a signed sum that holds a bias of ``c_bits`` plus K products of a
    ``w_bits`` weight and an input of the layer's type (what hwgen's width check assumes);
    the sum must fit int32, as onnxruntime's does."""
    k = layer.rows.shape[1]
    x_top = 255 if layer.x.dtype == "uint8" else 128
    top = (1 << c_bits - 1) + k * (1 << w_bits - 1) * x_top
    if top > 1 << 31:
        raise HwgenError(f"node {layer.node}: its sums can reach {top:,}, beyond the int32 "
                         "that onnxruntime accumulates in")
    return top.bit_length() + 1


def _affine(*terms):
    """``(coefficient, expression)`` terms as source text, those of a number added up."""
    constant = sum(k * int(v) for k, v in terms if v.isdigit())
    text = [v if k == 1 else f"{k} * ({v})" if " " in v else f"{k} * {v}"
            for k, v in terms if not v.isdigit()] + [str(constant)] * bool(constant)
    return " + ".join(text) or "0"


def _loops(ranges, indent):
    """Nested ``for`` lines over ``(name, trips)`` from ``indent``; the indent inside."""
    lines = []
    for name, trips in ranges:
        lines.append(" " * indent + f"for {name} in range({trips}):")
        indent += 4
    return lines, indent


def _header(model, group):
    """The task's name, tables, local input and the loop over the problem's samples (a
    later layer collects a sample from its stream first)."""
    index, layer = group[0], model.layers[group[0]]
    lines = ["@hwgen.task",
             f"def layer{index}():                    # {layer.node}: {layer.text}"]
    if weighted(layer):
        (n, k), (w, c, _) = layer.rows.shape, dense_tables(layer)
        lines += [f"    w: {_type(max(8, _bits(w)))}[{n}, {k}] = W{index}",
                  f"    c: {_type(_bits(c))}[{n}] = C{index}",
                  f"    m: float32[{n}] = M{index}"]
    lines += [f"    t{i}: {model.layers[i].y.dtype}[{max(layer.shape[1], 2)}, 256] = T{i}"
              for i in group[1:]]
    if _collects(layer, index):
        lines.append(f"    x: {layer.x.dtype}[{math.prod(_image(layer))}]")
    lines.append("    for b in range(B):")
    if _padded(layer):
        lines += _padded_fill(layer, index)
    elif index:
        lines += _collect(layer, index)
    return lines


def _padded(layer):
    return not isinstance(layer, Dense) and any(layer.pads)


def _image(layer):
    """A sample as the layer reads it: (C, H, W) padded for a ``Conv`` or pooling layer, (K,)
    for a ``Dense`` layer."""
    return layer.padded if not isinstance(layer, Dense) else layer.input


def _collects(layer, index):
    """Whether the layer reads local ``x`` (a later layer, or a padded one) rather than
    tensor ``X``."""
    return index > 0 or _padded(layer)


def _padded_fill(layer, index):
    """Lines that fill local ``x`` with the padded image: the pads hold the input's zero
    point (a ``Conv``) or the type's lowest value (a ``MaxPool``), the rest comes from
    stream ``s{index}`` (for the first layer, ``_feed`` puts ``X`` on ``s0``: a read of
    ``X`` under a condition would run on every iteration). The loops over channels, rows and columns sit at
    the levels of the layer's own nest where the phase pads its loops least, the others
    one trip."""
    (c, h, w), (_, hp, wp), (top, left, bottom, right) = layer.input, layer.padded, layer.pads
    levels = _nest(layer)

    def clocks(place):
        trips = dict(zip(place, (c, hp, wp)))
        return math.prod(max(level, trips.get(n, 1)) for n, level in enumerate(levels))
    place = min(itertools.combinations(range(len(levels)), 3), key=clocks)
    names = dict(zip(place, ("pc", "pr", "pq")))
    loops = [(names.get(n, f"z{n}"), dict(zip(place, (c, hp, wp))).get(n, 1))
             for n in range(len(levels))]
    lines, indent = _loops(loops, 8)
    fill = layer.x.zero if isinstance(layer, Conv) else layer.x.bounds[0]
    write = f"x[{_affine((hp * wp, 'pc'), (wp, 'pr'), (1, 'pq'))}] = "
    body = [write + f"s{index}.get()"]
    for parts in ([f"pq >= {left}"] * bool(left) + [f"pq < {w + left}"] * bool(right),
                  [f"pr >= {top}"] * bool(top) + [f"pr < {h + top}"] * bool(bottom)):
        if parts:               # nested ifs: an else of conditions on two loops is refused
            body = [f"if {' and '.join(parts)}:"] + ["    " + line for line in body] + \
                ["else:", f"    {write}{fill}"]
    return lines + [" " * indent + line for line in body]


def _nest(layer):
    """The trip counts of a ``Conv`` or pooling layer's loops over a sample, outermost
    first."""
    if isinstance(layer, AveragePool) and not layer.whole:
        return layer.output
    channels = (layer.input[0],) if isinstance(layer, Conv) else ()
    return layer.output + channels + tuple(layer.kernel)


def _collect(layer, index):
    """Lines that fill local ``x`` from stream ``s{index}``, element by element. A
    ``Dense`` layer's fill runs on its first output's pass; another's runs before its loops
    as a phase (``docs/language.md``, Loops) in a nest as deep as theirs, shaped so that the
    two phases pad each other least (``_fill_nest``)."""
    size = layer.shape[0]
    if isinstance(layer, Dense):
        return [f"        for i in range({size}):", f"            x[i] = s{index}.get()"]
    trips = _fill_nest(size, _nest(layer))
    names = [f"i{n}" for n in range(len(trips))]
    lines, indent = _loops(list(zip(names, trips)), 8)
    at = _affine(*((math.prod(trips[n + 1:]), name) for n, name in enumerate(names)))
    return lines + [" " * indent + f"x[{at}] = s{index}.get()"]


def _fill_nest(size, levels):
    """Trip counts, one per level of ``levels``, whose product is ``size`` and whose
    level-wise maximum with ``levels`` (what each phase then takes) is least."""
    @functools.cache
    def best(level, left):                 # (clocks, trips) of levels[level:] filling left
        if level == len(levels) - 1:
            return max(left, levels[level]), (left,)
        options = []
        for d in (d for d in range(1, left + 1) if left % d == 0):
            clocks, trips = best(level + 1, left // d)
            options.append((max(d, levels[level]) * clocks, (d,) + trips))
        return min(options)
    return list(best(0, size)[1])


def _sum(layer, indent):
    w_bits, c_bits = max(8, _bits(layer.rows)), _bits(dense_tables(layer)[1])
    return [" " * indent + f"acc: {_type(_sum_bits(layer, w_bits, c_bits))} = c[o]"]


def _source(layer, index, at):
    return f"x[{at}]" if _collects(layer, index) else f"X[b, {at}]"


def _dense_body(layer, index):
    """The output's index in the sample, the loops of ``Dense`` layer ``index`` (its result
    in local ``q{index}``) and their indent."""
    k, n = layer.shape
    lines = [f"        for o in range({n}):"] + _sum(layer, 12)
    if index == 0:
        lines += [f"            for i in range({k} // U0):",
                  "                with hwgen.meta_for(U0) as u:",
                  "                    acc += w[o, U0 * i + u] * X[b, U0 * i + u]"]
    else:
        lines += [f"            for i in range({k}):", "                acc += w[o, i] * x[i]"]
    return "o", lines + _round(index, "acc * m[o]", layer.y, 12), 12


def _window(layer, channel, row, column):
    """The index of window element (``channel``, ``row``, ``column``) of output (oy, ox) of
    a ``Conv`` or pooling layer in its flat input."""
    (_, h, w), (sh, sw) = layer.padded, layer.stride
    return _affine((h * w, channel), (w * sh, "oy"), (w, row), (sw, "ox"), (1, column))


def _outputs(layer):
    """The output loops (o, oy, ox) of a ``Conv`` or pooling layer and the output's
    index in the sample, channel-major as ONNX lays it out."""
    f, oh, ow = layer.output
    lines, indent = _loops([("o", f), ("oy", oh), ("ox", ow)], 8)
    return _affine((oh * ow, "o"), (ow, "oy"), (1, "ox")), lines, indent


def _conv_body(layer, index):
    """As ``_dense_body`` for a ``Conv`` layer; the first layer does ``U0`` elements of a
    window a clock: ``UR`` rows of ``UC`` columns."""
    (c, (kh, kw)), first = (layer.input[0], layer.kernel), index == 0
    flat, lines, indent = _outputs(layer)
    lines += _sum(layer, indent)
    if first:
        loops = [("ci", c), ("ky", f"{kh} // UR"), ("kx", f"{kw} // UC")]
        row, column = "UR * ky + v", "UC * kx + u"
        metas = ["with hwgen.meta_for(UR) as v:", "with hwgen.meta_for(UC) as u:"]
    else:
        loops, row, column, metas = [("ci", c), ("ky", kh), ("kx", kw)], "ky", "kx", []
    inner, inside = _loops(loops, indent)
    for meta in metas:
        inner.append(" " * inside + meta)
        inside += 4
    weight = _affine((kh * kw, "ci"), (kw, row), (1, column))
    lines += inner + [" " * inside + f"acc += w[o, {weight}] * "
                      f"{_source(layer, index, _window(layer, 'ci', row, column))}"]
    return flat, lines + _round(index, "acc * m[o]", layer.y, indent), indent


def _pool_body(layer, index):
    """As ``_dense_body`` for a ``MaxPool`` layer: the largest of each window."""
    flat, lines, indent = _outputs(layer)
    q = f"q{index}"
    lines.append(" " * indent + f"{q}: {layer.y.dtype} = {layer.x.bounds[0]}")
    inner, inside = _loops([("ky", layer.kernel[0]), ("kx", layer.kernel[1])], indent)
    lines += inner
    at = _source(layer, index, _window(layer, "o", "ky", "kx"))
    lines.append(" " * inside + f"{q} = max({q}, {at})")
    return flat, lines, indent


def _feed(model):
    """The lines of the task that puts each sample of ``X`` on stream ``s0`` (for a padded
    first layer)."""
    return ["@hwgen.task", "def feed():", "    for b in range(B):",
            f"        for i in range({model.features}):", "            s0.put(X[b, i])"]


def _float(value):
    """A float32 value as a literal that reads back as it."""
    return repr(float(np.float32(value)))


def _average_body(layer, index):
    """As ``_dense_body`` for an ``AveragePool`` layer, in onnxruntime's order: over the whole
    image an integer sum requantized; otherwise the window's dequantized values added one
    after another in float32, divided by their count and by y's scale, y's zero point
    added, rounded."""
    flat, lines, indent = _outputs(layer)
    pad, z = " " * indent, layer.x.zero
    if layer.whole:
        inner, inside = _loops([("ky", layer.kernel[0]), ("kx", layer.kernel[1])], indent)
        at = _source(layer, index, _window(layer, "o", "ky", "kx"))
        lines += [f"{pad}acc: int32 = {-z * math.prod(layer.kernel)}"] + inner + \
            [" " * inside + f"acc += {at}"]
        return flat, lines + _round(index, f"acc * {_float(average_scale(layer))}", layer.y,
                                    indent), indent
    terms = [f"({_source(layer, index, _window(layer, 'o', str(i), str(j)))}{_minus(z)}) * "
             f"{_float(layer.x.scale)}" for i in range(layer.kernel[0])
             for j in range(layer.kernel[1])]
    total = terms[0]
    for term in terms[1:]:
        total = f"({total} + {term})"
    unzeroed = replace(layer.y, zero=0)
    value = (f"a{index} / {_float(math.prod(layer.kernel))} / {_float(layer.y.scale)}" +
             f" + {_float(layer.y.zero)}" * bool(layer.y.zero))
    return flat, lines + [f"{pad}a{index}: float32 = {total}"] + _round(
        index, value, unzeroed, indent), indent


def _task(model, group):
    """The source lines of the task computing the layers of ``group`` (one sample at a
    time)."""
    index, last = group[0], group[-1] == len(model.layers) - 1
    layer = model.layers[index]
    flat, body, indent = _BODIES[type(layer)](layer, index)
    lines = _header(model, group) + body
    for i in group[1:]:
        lines += _elementwise(model, i, flat, indent)
    result, pad = f"q{group[-1]}", " " * indent
    lines.append(pad + (f"Y[b, {flat}] = {result}" if last else
                        f"s{group[-1] + 1}.put({result})"))
    return lines


_BODIES = {Dense: _dense_body, Conv: _conv_body, MaxPool: _pool_body,
           AveragePool: _average_body}


def _identifier(name):
    text = "".join(ch if ch.isalnum() else "_" for ch in name).strip("_") or "model"
    return text if not text[0].isdigit() else f"model_{text}"


def _tables(model, groups):
    lines = []
    for group in groups:
        if weighted(model.layers[group[0]]):
            lines.append(f"W{group[0]}, C{group[0]}, M{group[0]} = "
                         f"program.dense_tables(MODEL.layers[{group[0]}])")
        lines += [f"T{i} = program.lookup_table(MODEL.layers[{i}])" for i in group[1:]]
    return lines


def source(model, onnx_name, depths=None):
    """The text of the hwgen program computing ``model`` (read from ``onnx_name``, a file
    beside the program); ``depths``: entries of each stream ``s{i}`` (default 2)."""
    groups, name = _groups(model), _identifier(model.name)
    depths = depths or {}
    k, n = model.features, model.outputs
    head = [f'"""{model.name}: generated by `hwgen model` from {onnx_name} (edit freely).',
            "",
            "One task per MatMul/Gemm, Conv and pooling layer, the elementwise layers after it",
            "in the same task; the host quantizes the inputs to X and dequantizes Y",
            "(hwgen.model.reference). U0: multiply-accumulates per clock in the first layer",
            f"({unrolls_text(model.layers[0])}).",
            '"""',
            "import os", "",
            "import hwgen",
            "from hwgen import Int, Stream, float32, int8, int16, int32, uint8",
            "from hwgen.model import onnx_import, program",
            "from hwgen.model import reference as model_reference", "",
            f'MODEL = onnx_import.load(os.path.join(os.path.dirname(__file__), "{onnx_name}"))']
    head += _tables(model, groups)
    head += ['TEST_SIZES = [{"B": 1}, {"B": 3}]', "", "",
             "def build(B: int = 1, U0: int = 1):"]
    head += [f"    if U0 not in {unrolls(model.layers[0])}:",
             f"        raise hwgen.HwgenError(f\"U0={{U0}}: layer 0's multiply-accumulates a "
             f"clock must be {unrolls_text(model.layers[0])}\")"]
    if isinstance(model.layers[0], Conv):
        head.append(f"    UR, UC = max(1, U0 // {model.layers[0].kernel[1]}), "
                    f"min(U0, {model.layers[0].kernel[1]})    # window rows, columns a clock")
    head += ["", "    @hwgen.region",
             f"    def {name}(X: {model.x.dtype}[B, {k}], Y: {model.y.dtype}[B, {n}]):"]
    fed = _padded(model.layers[0])
    for g in groups[0 if fed else 1:]:
        head.append(f"        s{g[0]} = Stream[{model.layers[g[0]].x.dtype}, "
                    f"{depths.get(f's{g[0]}', 2)}]")
    if fed:
        head += [""] + ["        " + line for line in _feed(model)]
    for g in groups:
        head.append("")
        head += ["        " + line for line in _task(model, g)]
    head += ["", f"    return {name}", "", "",
             "def reference(X):",
             '    return {"Y": model_reference.run(MODEL, X)[-1]}']
    return "\n".join(head) + "\n"


def write(model, onnx_path, out_dir, depths=None):
    """The program of ``model`` in ``out_dir`` (``<name>.py``, with the ONNX file beside it):
    its path."""
    os.makedirs(out_dir, exist_ok=True)
    onnx_name = os.path.basename(onnx_path)
    if os.path.abspath(os.path.join(out_dir, onnx_name)) != os.path.abspath(onnx_path):
        shutil.copyfile(onnx_path, os.path.join(out_dir, onnx_name))
    path = os.path.join(out_dir, f"{_identifier(model.name)}.py")
    with open(path, "w") as f:
        f.write(source(model, onnx_name, depths))
    return path
