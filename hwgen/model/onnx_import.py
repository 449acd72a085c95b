"""Read a quantized ONNX model into ``layers.Model``.

The model goes through onnxruntime's own graph optimiser first (basic and extended levels, the
CPU provider), so that a QDQ model becomes the operators onnxruntime runs (``DequantizeLinear``,
``MatMul``, ``QuantizeLinear`` fused into ``QLinearMatMul``, ...) and hwgen computes exactly
what onnxruntime computes. What remains must be a chain from one float input through
``QuantizeLinear``, 8-bit layers, and ``DequantizeLinear`` to one float output.
"""
import os
import tempfile
from dataclasses import replace

import numpy as np

from ..errors import HwgenError
from .layers import AddConst, AveragePool, Conv, Dense, MaxPool, Model, Quant

SUPPORTED = ("QuantizeLinear, DequantizeLinear, QLinearMatMul, QGemm, QLinearConv, MaxPool, "
             "QLinearAveragePool, QLinearAdd, MatMul, Gemm, Conv, AveragePool and Add between "
             "DequantizeLinear and QuantizeLinear, Relu and Clip folded into quantization, "
             "Flatten, Reshape and Identity")
_SHAPES = {"Flatten", "Reshape", "Identity"}
_DTYPES = {np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8"}


def _optimized(path):
    """The model as onnxruntime's graph optimiser leaves it (an ``onnx.ModelProto``)."""
    import onnx
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.log_severity_level = 3
    with tempfile.TemporaryDirectory() as tmp:
        options.optimized_model_filepath = os.path.join(tmp, "optimized.onnx")
        try:
            ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        except Exception as e:          # onnxruntime's own message says what is wrong
            raise HwgenError(f"onnxruntime cannot load {path}: {str(e).strip()}") from None
        return onnx.load(options.optimized_model_filepath)


class _Graph:
    """The nodes of a model by the tensors they read, and its constants."""

    def __init__(self, proto, path):
        from onnx import numpy_helper
        self.path = path
        self.consts = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer}
        self.readers, self.producer = {}, {}
        for node in proto.graph.node:
            if node.op_type == "Constant":
                self.consts[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
                continue
            for name in node.input:
                self.readers.setdefault(name, []).append(node)
            self.producer.update((name, node) for name in node.output)
        self.inputs = [i for i in proto.graph.input if i.name not in self.consts]
        self.outputs = [o.name for o in proto.graph.output]

    def const(self, node, index):
        name = node.input[index] if index < len(node.input) else ""
        if name not in self.consts:
            raise self.error(node, f"its input {index} ({name or 'absent'}) must be a constant "
                             "(an initializer)")
        return self.consts[name]

    def quant(self, node, scale, zero):
        s, z = self.const(node, scale), self.const(node, zero)
        if s.size != 1 or z.size != 1:
            raise self.error(node, "a per-channel activation scale or zero point is not "
                             "supported (quantize activations per tensor)")
        if z.dtype not in _DTYPES:
            raise self.error(node, f"{z.dtype} activations are not supported (int8 or uint8)")
        return Quant(float(np.float32(s.item())), int(z.item()), _DTYPES[z.dtype])

    def only_reader(self, name):
        readers = self.readers.get(name, [])
        if len(readers) != 1:
            where = ", ".join(f"{n.name or n.op_type}" for n in readers) or "nothing"
            raise HwgenError(f"{self.path}: tensor {name!r} is read by {where}: hwgen takes a "
                             "chain of layers, each tensor read by the next layer alone")
        return readers[0]

    def error(self, node, message):
        return HwgenError(f"{self.path}: node {node.name or '(unnamed)'} ({node.op_type}): "
                          f"{message}")


def load(path):
    """The ``Model`` of the quantized ONNX file at ``path``."""
    if not os.path.isfile(path):
        raise HwgenError(f"model file {path!r} not found (try hwgen/examples/models/"
                         "digits_mlp.onnx)")
    graph = _Graph(_optimized(path), path)
    if len(graph.inputs) != 1 or len(graph.outputs) != 1:
        raise HwgenError(f"{path}: hwgen takes a model of one input and one output, this one "
                         f"has {len(graph.inputs)} and {len(graph.outputs)}")
    source = graph.inputs[0]
    dims = [d.dim_value for d in source.type.tensor_type.shape.dim]
    features = int(np.prod(dims[1:])) if len(dims) >= 2 and all(dims[1:]) else 0
    if not features:
        raise HwgenError(f"{path}: input {source.name!r} has shape {dims}: hwgen takes "
                         "(batch, features...) with every feature dimension known")
    layers, name = _chain(graph, source.name, tuple(dims[1:]))
    if not layers:
        raise HwgenError(f"{path}: no quantized layer between the input and the output")
    return Model(os.path.splitext(os.path.basename(path))[0], source.name, name, features,
                 tuple(dims[1:]), tuple(layers))


def _chain(graph, name, dims):
    """The layers from the float input ``name`` of a sample's shape ``dims`` to the float
    output, and its name."""
    node = graph.only_reader(name)
    if node.op_type != "QuantizeLinear":
        raise graph.error(node, "the input must be quantized first (QuantizeLinear): hwgen "
                          "runs 8-bit models")
    x, name, layers = graph.quant(node, 1, 2), node.output[0], []
    while name not in graph.outputs:
        node = graph.only_reader(name)
        if node.op_type in _SHAPES:
            dims, name = _reshaped(graph, node, dims), node.output[0]
            continue
        if node.op_type == "DequantizeLinear":
            _same_quant(graph, node, x, 1, 2)
            if node.output[0] in graph.outputs:
                return layers, node.output[0]
            layer, name = _float_add(graph, node.output[0], x)
        else:
            layer, name = _layer(graph, node, x, dims), node.output[0]
        layer = _fitted(graph, layer, dims)
        layers.append(layer)
        x = layer.y
        dims = dims if isinstance(layer, AddConst) else layer.output
    raise HwgenError(f"{graph.path}: the output {name!r} is quantized: hwgen takes a model "
                     "whose output is dequantized (DequantizeLinear)")


def _reshaped(graph, node, dims):
    """A sample's shape after ``Flatten``, ``Reshape`` or ``Identity`` of one of ``dims``."""
    size = int(np.prod(dims))
    if node.op_type == "Identity":
        return dims
    if node.op_type == "Flatten":
        axis = _attributes(node).get("axis", 1)
        if axis != 1:
            raise graph.error(node, f"axis {axis}: hwgen flattens to (batch, features), axis 1")
        return (size,)
    shape = [int(d) for d in graph.const(node, 1)]
    rest = [dims[i] if d == 0 and i < len(dims) else d for i, d in enumerate(shape[1:])]
    if rest.count(-1) == 1:
        known = int(np.prod([d for d in rest if d != -1]))
        rest[rest.index(-1)] = size // known if known and size % known == 0 else -1
    if not rest or int(np.prod(rest)) != size or min(rest) < 1:
        raise graph.error(node, f"reshapes a sample of shape {list(dims)} to {shape[1:]}: "
                          "hwgen keeps the batch as the first axis and each sample whole")
    return tuple(rest)


def _attributes(node):
    """A node's attributes by name, as Python values."""
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _layer(graph, node, x, dims):
    op = node.op_type
    if op == "QLinearConv":
        return _conv(graph, node, x, dims)
    if op == "MaxPool":
        return _max_pool(graph, node, x, dims)
    if op == "QLinearAveragePool":
        return _average_pool(graph, node, x, dims)
    if op == "QLinearMatMul":
        return _dense(graph, node, x, weight=3, w_quant=(4, 5), y_quant=(6, 7), bias=None)
    if op == "QGemm":
        attrs = {a.name: a for a in node.attribute}
        if "alpha" in attrs and attrs["alpha"].f != 1.0 or "transA" in attrs and attrs["transA"].i:
            raise graph.error(node, "alpha other than 1 or transA is not supported")
        if len(node.input) < 8:
            raise graph.error(node, "a QGemm with a float output is not supported")
        return _dense(graph, node, x, weight=3, w_quant=(4, 5), y_quant=(7, 8), bias=6,
                      transposed="transB" in attrs and attrs["transB"].i)
    if op == "QLinearAdd":
        first = node.input[0] in graph.consts
        mine, other = (3, 0) if first else (0, 3)
        _same_quant(graph, node, x, mine + 1, mine + 2)
        const = graph.const(node, other).reshape(-1)
        # onnxruntime takes a scalar first input as the second
        return AddConst(node.name, const, x, graph.quant(node, other + 1, other + 2),
                        graph.quant(node, 6, 7), float_path=False,
                        const_first=first and const.size > 1)
    raise graph.error(node, f"not supported; hwgen supports {SUPPORTED}")


def _fitted(graph, layer, dims):
    """``layer`` where it reads a sample of shape ``dims`` (a constant of one value added to
    each), or an error."""
    width = int(np.prod(dims))
    if isinstance(layer, AddConst) and layer.const.size == 1:
        layer = replace(layer, const=np.repeat(layer.const, width))
    if isinstance(layer, Dense) and len(dims) != 1:
        raise HwgenError(f"{graph.path}: node {layer.node} multiplies a sample of shape "
                         f"{list(dims)}: flatten it first (Flatten)")
    if layer.shape[0] != width:
        raise HwgenError(f"{graph.path}: node {layer.node} takes {layer.shape[0]} values a "
                         f"sample where the layer before it gives {width}")
    return layer


def _window(graph, node, dims, kernel):
    """The strides and pads of a ``Conv`` or ``MaxPool`` ``node`` of ``kernel`` on a sample
    of ``dims``, or an error for what hwgen does not compute."""
    attrs = _attributes(node)
    if len(dims) != 3:
        raise graph.error(node, f"takes a sample of shape {list(dims)}: hwgen takes 2-D "
                          "images (channels, height, width)")
    if any(d != 1 for d in attrs.get("dilations", [1])) or attrs.get("group", 1) != 1:
        raise graph.error(node, "dilation and groups are not supported (dilations 1, group 1)")
    if attrs.get("ceil_mode", 0) or len(node.output) > 1 and node.output[1]:
        raise graph.error(node, "ceil_mode and the indices output are not supported")
    stride = tuple(attrs.get("strides", [1, 1]))
    if len(kernel) != 2 or len(stride) != 2 or min(stride) < 1:
        raise graph.error(node, f"a {list(kernel)} window with strides {list(stride)}: hwgen "
                          "takes 2-D windows")
    pads = _pads(graph, node, attrs, dims[1:], kernel, stride)
    if any(k > d + p + q for k, d, p, q in zip(kernel, dims[1:], pads[:2], pads[2:])):
        raise graph.error(node, f"a {list(kernel)} window on {list(dims)} padded by "
                          f"{list(pads)}: hwgen takes a window within the padded image")
    return stride, pads


def _pads(graph, node, attrs, sizes, kernel, stride):
    """(top, left, bottom, right) from ``pads`` or ``auto_pad``."""
    auto = attrs.get("auto_pad", b"NOTSET")
    if auto in (b"SAME_UPPER", b"SAME_LOWER"):
        total = [max((-(-d // s) - 1) * s + k - d, 0) for d, k, s in zip(sizes, kernel, stride)]
        less = [t // 2 for t in total]
        more = [t - t // 2 for t in total]
        before, after = (less, more) if auto == b"SAME_UPPER" else (more, less)
        return tuple(before + after)
    if auto not in (b"NOTSET", b"VALID"):
        raise graph.error(node, f"auto_pad {auto.decode()} is not supported")
    pads = tuple(attrs.get("pads", [0, 0, 0, 0])) if auto == b"NOTSET" else (0, 0, 0, 0)
    if len(pads) != 4 or min(pads) < 0:
        raise graph.error(node, f"pads {list(pads)}: hwgen takes four (top, left, bottom, right)")
    return pads


def _conv(graph, node, x, dims):
    _same_quant(graph, node, x, 1, 2)
    w = graph.const(node, 3)
    if w.ndim != 4 or w.dtype not in _DTYPES or len(dims) == 3 and w.shape[1] != dims[0]:
        raise graph.error(node, f"weights of shape {list(w.shape)} and type {w.dtype} for a "
                          f"sample of {list(dims)}: hwgen takes int8 or uint8 [F, C, KH, KW]")
    stride, pads = _window(graph, node, dims, w.shape[2:])
    f = w.shape[0]
    s, z = graph.const(node, 4), graph.const(node, 5)
    if s.size not in (1, f) or z.size not in (1, f):
        raise graph.error(node, f"weight scale of {s.size} and zero point of {z.size} values "
                          f"for {f} output channels")
    b = np.zeros(f, np.int32)
    if len(node.input) > 8 and node.input[8]:
        b = graph.const(node, 8).reshape(-1).astype(np.int32)
    return Conv(node.name, w, np.broadcast_to(s.astype(np.float32).reshape(-1), f).copy(),
                np.broadcast_to(z.astype(np.int32).reshape(-1), f).copy(), b, x,
                graph.quant(node, 6, 7), tuple(dims), stride, pads)


def _average_pool(graph, node, x, dims):
    _same_quant(graph, node, x, 1, 2)
    attrs = _attributes(node)
    if attrs.get("channels_last", 0):
        raise graph.error(node, "channels_last is not supported (channels first, as ONNX)")
    kernel = tuple(attrs.get("kernel_shape", ()))
    stride, pads = _window(graph, node, dims, kernel)
    if any(pads):
        raise graph.error(node, "padding is not supported yet for an average (pads 0)")
    return AveragePool(node.name, x, graph.quant(node, 3, 4), tuple(dims), kernel, stride)


def _max_pool(graph, node, x, dims):
    kernel = tuple(_attributes(node).get("kernel_shape", ()))
    return MaxPool(node.name, x, tuple(dims), kernel, *_window(graph, node, dims, kernel))


def _same_quant(graph, node, x, scale, zero):
    got = graph.quant(node, scale, zero)
    if got != x:
        raise graph.error(node, f"reads its input as {got}, written as {x}")


def _dense(graph, node, x, weight, w_quant, y_quant, bias, transposed=False):
    _same_quant(graph, node, x, 1, 2)
    w = graph.const(node, weight)
    if w.ndim != 2 or w.dtype not in _DTYPES:
        raise graph.error(node, f"weights of shape {list(w.shape)} and type {w.dtype}: hwgen "
                          "takes a 2-D int8 or uint8 matrix")
    w = w.T if transposed else w
    n = w.shape[1]
    s, z = graph.const(node, w_quant[0]), graph.const(node, w_quant[1])
    if s.size not in (1, n) or z.size not in (1, n):
        raise graph.error(node, f"weight scale of {s.size} and zero point of {z.size} values "
                          f"for {n} outputs")
    b = np.zeros(n, np.int32)
    if bias is not None and len(node.input) > bias and node.input[bias]:
        b = graph.const(node, bias).reshape(-1).astype(np.int32)
    return Dense(node.name, np.ascontiguousarray(w),
                 np.broadcast_to(s.astype(np.float32).reshape(-1), n).copy(),
                 np.broadcast_to(z.astype(np.int32).reshape(-1), n).copy(), b, x,
                 graph.quant(node, *y_quant))


def _float_add(graph, name, x):
    """The ``Add`` of the dequantized ``name`` and a dequantized constant in floats, quantized
    after it: the layer and the tensor it writes."""
    add = graph.only_reader(name)
    if add.op_type != "Add":
        raise graph.error(add, "between DequantizeLinear and QuantizeLinear hwgen supports the "
                          "Add of a constant alone (onnxruntime fuses the other operators)")
    dq = graph.producer.get(add.input[1] if add.input[0] == name else add.input[0])
    if dq is None or dq.op_type != "DequantizeLinear" or dq.input[0] not in graph.consts:
        raise graph.error(add, "its other operand must be a dequantized constant")
    quant = graph.only_reader(add.output[0])
    if quant.op_type != "QuantizeLinear":
        raise graph.error(quant, "an Add in floats must be quantized after it")
    const = graph.const(dq, 0).reshape(-1)
    return AddConst(add.name, const, x, graph.quant(dq, 1, 2), graph.quant(quant, 1, 2),
                    float_path=True), quant.output[0]
