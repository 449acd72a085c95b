"""The source lines of each layer's task in a model's hwgen program (``program``): a
``Dense`` layer's loops over outputs and inputs, a ``Conv`` layer's over output channels,
rows and columns and its window, pooling over each window; a later layer first collects its
input from its stream. Every float operation is float32 in onnxruntime's order
(``reference``), so hardware, interpreter and onnxruntime agree bit for bit.
"""
import functools
import itertools
import math
from dataclasses import replace

import numpy as np

from .layers import AveragePool, Conv, Dense, MaxPool
from .reference import average_scale
from .tables import bits, dense_tables, sum_bits, type_name, weighted


MAGIC = 12582912.0           # 1.5 * 2**23: adding it rounds a float32 below 2**22 to an integer


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
        lines += [f"    w: {type_name(max(8, bits(w)))}[{n}, {k}] = W{index}",
                  f"    c: {type_name(bits(c))}[{n}] = C{index}",
                  f"    m: float32[{n}] = M{index}"]
    lines += [f"    t{i}: {model.layers[i].y.dtype}[{max(layer.shape[1], 2)}, 256] = T{i}"
              for i in group[1:]]
    if _collects(layer, index):
        lines.append(f"    x: {layer.x.dtype}[{math.prod(_image(layer))}]")
    lines.append("    for b in range(B):")
    if padded(layer):
        lines += _padded_fill(layer, index)
    elif index:
        lines += _collect(layer, index)
    return lines


def padded(layer):
    """Whether ``layer`` is a window with pads around its image."""
    return not isinstance(layer, Dense) and any(layer.pads)


def _image(layer):
    """A sample as the layer reads it: (C, H, W) padded for a ``Conv`` or pooling layer, (K,)
    for a ``Dense`` layer."""
    return layer.padded if not isinstance(layer, Dense) else layer.input


def _collects(layer, index):
    """Whether the layer reads local ``x`` (a later layer, or a padded one) rather than
    tensor ``X``."""
    return index > 0 or padded(layer)


def _padded_fill(layer, index):
    """Lines that fill local ``x`` with the padded image: the pads hold the input's zero
    point (a ``Conv``) or the type's lowest value (a ``MaxPool``), the rest comes from
    stream ``s{index}`` (for the first layer, ``feed`` puts ``X`` on ``s0``: a read of ``X``
    under a condition would run on every iteration). The loops over channels, rows and
    columns sit at the levels of the layer's own nest where the phase pads its loops least,
    the others one trip."""
    (c, h, w), (_, hp, wp), (top, left, bottom, right) = layer.input, layer.padded, layer.pads
    levels = _nest(layer)

    def clocks(place):
        trips = dict(zip(place, (c, hp, wp)))
        return math.prod(max(level, trips.get(n, 1)) for n, level in enumerate(levels))
    place = min(itertools.combinations(range(len(levels)), 3), key=clocks)
    names, trips = dict(zip(place, ("pc", "pr", "pq"))), dict(zip(place, (c, hp, wp)))
    loops = [(names.get(n, f"z{n}"), trips.get(n, 1)) for n in range(len(levels))]
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
    """The line that starts a ``Dense`` or ``Conv`` output's sum at its folded bias, in the
    narrowest type that holds every sum."""
    w_bits, c_bits = max(8, bits(layer.rows)), bits(dense_tables(layer)[1])
    return [" " * indent + f"acc: {type_name(sum_bits(layer, w_bits, c_bits))} = c[o]"]


def _source(layer, index, at):
    """The read of input element ``at``: local ``x`` where the layer collects, else ``X``."""
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


def feed(model):
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


def task(model, group):
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
