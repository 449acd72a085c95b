"""A ``layers.Model`` as a hwgen program: one task per ``Dense`` layer, which also applies the
elementwise layers after it (``AddConst``), 8-bit streams between the tasks.

The program is Python source a user can read and change: its tables (weights, biases with the
input's zero point folded in, multipliers, lookups) come from ``dense_tables`` and
``lookup_table`` applied to the model the ONNX file beside it gives; zero points and bounds
are literals. Every float operation is
float32 in onnxruntime's order (``reference``), so hardware, interpreter and onnxruntime agree
bit for bit.
"""
import os
import shutil

import numpy as np

from ..errors import HwgenError
from .layers import Dense
from .reference import add_table, multiplier

MAGIC = 12582912.0           # 1.5 * 2**23: adding it rounds a float32 below 2**22 to an integer


def dense_tables(layer):
    """(weights [N, K] less their zero point, sums less the input's zero point times the
    weights [N], multipliers [N] float32) of a ``Dense`` layer."""
    w = layer.weight.astype(np.int64).T - layer.w_zero[:, None]
    bias = layer.bias.astype(np.int64) - layer.x.zero * w.sum(axis=1)
    if np.abs(bias).max(initial=0) >= 2 ** 31:
        raise HwgenError(f"node {layer.node}: its folded bias does not fit int32")
    return w, bias, multiplier(layer)


def table_bytes(layer):
    """Bytes of a ``Dense`` layer's tables, each element at its width in the program."""
    w, c, m = dense_tables(layer)
    return w.size * -(-max(8, _bits(w)) // 8) + c.size * -(-_bits(c) // 8) + 4 * m.size


def lookup_table(layer):
    """An ``AddConst`` layer's outputs by constant element and input value
    (``reference.add_table``), at least two rows: a read-only table (more than 256 elements)."""
    table = add_table(layer)
    return np.concatenate([table, table[:2 - len(table)]]) if len(table) < 2 else table


def _groups(model):
    """The layers as tasks: each ``Dense`` with the ``AddConst`` layers after it."""
    groups = []
    for index, layer in enumerate(model.layers):
        if isinstance(layer, Dense):
            groups.append([index])
        elif not groups:
            raise HwgenError(f"node {layer.node}: an Add before the first MatMul or Gemm is "
                             "not supported yet")
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


def _elementwise(model, index, indent):
    """Lines of the ``AddConst`` layer ``index`` on local ``q{index - 1}``: a lookup."""
    layer, pad = model.layers[index], " " * indent
    kind = "in float32" if layer.float_path else "QLinearAdd"
    at = f"q{index - 1}{_minus(layer.x.bounds[0])}"
    return [f"{pad}q{index}: {layer.y.dtype} = t{index}[o, {at}]"
            f"    # {layer.node}: + a constant ({kind})"]


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
    k = layer.shape[0]
    x_top = 255 if layer.x.dtype == "uint8" else 128
    top = (1 << c_bits - 1) + k * (1 << w_bits - 1) * x_top
    if top > 1 << 31:
        raise HwgenError(f"node {layer.node}: its sums can reach {top:,}, beyond the int32 "
                         "that onnxruntime accumulates in")
    return top.bit_length() + 1


def _task(model, group):
    """The source lines of the task computing the layers of ``group``: the first layer's
    reads ``U0`` inputs a clock from the tensor, another's collects its inputs from its
    stream on the first output's pass (``docs/language.md``, Loops) and does one."""
    index = group[0]
    dense, first, last = model.layers[index], index == 0, group[-1] == len(model.layers) - 1
    (k, n), (w, c, _) = dense.shape, dense_tables(dense)
    w_bits, c_bits = max(8, _bits(w)), _bits(c)
    lines = ["@hwgen.task",
             f"def layer{index}():                    # {dense.node}: {k} -> {n}",
             f"    w: {_type(w_bits)}[{n}, {k}] = W{index}",
             f"    c: {_type(c_bits)}[{n}] = C{index}",
             f"    m: float32[{n}] = M{index}"]
    lines += [f"    t{i}: {model.layers[i].y.dtype}[{max(n, 2)}, 256] = T{i}" for i in group[1:]]
    if not first:
        lines.append(f"    x: {dense.x.dtype}[{k}]")
    lines.append("    for b in range(B):")
    if not first:
        lines += [f"        for i in range({k}):", f"            x[i] = s{index}.get()"]
    lines += [f"        for o in range({n}):",
              f"            acc: {_type(_sum_bits(dense, w_bits, c_bits))} = c[o]"]
    if first:
        lines += [f"            for i in range({k} // U0):",
                  "                with hwgen.meta_for(U0) as u:",
                  "                    acc += w[o, U0 * i + u] * X[b, U0 * i + u]"]
    else:
        lines += [f"            for i in range({k}):", "                acc += w[o, i] * x[i]"]
    lines += _round(index, "acc * m[o]", dense.y, 12)
    for i in group[1:]:
        lines += _elementwise(model, i, 12)
    result = f"q{group[-1]}"
    lines.append(f"            Y[b, o] = {result}" if last else
                 f"            s{group[-1] + 1}.put({result})")
    return lines


def _identifier(name):
    text = "".join(ch if ch.isalnum() else "_" for ch in name).strip("_") or "model"
    return text if not text[0].isdigit() else f"model_{text}"


def _tables(model, groups):
    lines = []
    for group in groups:
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
            "One task per MatMul/Gemm layer, the elementwise layers after it in the same task;",
            "the host quantizes the inputs to X and dequantizes Y (hwgen.model.reference).",
            "U0: multiply-accumulates per clock in the first layer (divides its inputs).",
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
    head += [f"    if {k} % U0:",
             f"        raise hwgen.HwgenError(f\"U0={{U0}} must divide the {k} inputs\")"]
    head += ["", "    @hwgen.region",
             f"    def {name}(X: {model.x.dtype}[B, {k}], Y: {model.y.dtype}[B, {n}]):"]
    for g in groups[1:]:
        head.append(f"        s{g[0]} = Stream[{model.layers[g[0]].x.dtype}, "
                    f"{depths.get(f's{g[0]}', 2)}]")
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
