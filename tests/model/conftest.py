import os

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.conftest import EXAMPLES

MODELS = os.path.join(EXAMPLES, "models")
DIGITS = os.path.join(MODELS, "digits_test.npz")


def shipped(name):
    return os.path.join(MODELS, f"{name}.onnx")


def onnx_model(nodes, inputs, outputs, consts, name="model"):
    """A model of ``nodes`` (the ONNX and com.microsoft operator sets, the IR version
    onnxruntime of pyproject.toml reads), ``consts`` its initializers by name."""
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in consts.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    return model


def saved(model, path):
    """``model`` written to ``path``: the path."""
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return str(path)


def float_model(path, layers, seed=0, gemm=True, relu=True):
    """A float MLP of random weights (``layers``: the sizes, input first) written to
    ``path``: Gemm nodes with their bias, or MatMul and Add; Relu between layers."""
    rng = np.random.default_rng(seed)
    nodes, inits, name = [], {}, "x"
    for k, (n_in, n_out) in enumerate(zip(layers, layers[1:])):
        w, b = f"w{k}", f"b{k}"
        inits[w] = rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)).astype(np.float32)
        inits[b] = rng.normal(0, 0.3, n_out).astype(np.float32)
        if gemm:
            nodes.append(helper.make_node("Gemm", [name, w, b], [f"g{k}"], name=f"gemm{k}"))
        else:
            nodes += [helper.make_node("MatMul", [name, w], [f"m{k}"], name=f"matmul{k}"),
                      helper.make_node("Add", [f"m{k}", b], [f"g{k}"], name=f"add{k}")]
        name = f"g{k}"
        if relu and k < len(layers) - 2:
            nodes.append(helper.make_node("Relu", [name], [f"r{k}"], name=f"relu{k}"))
            name = f"r{k}"
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, layers[0]])]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [None, layers[-1]])]
    return saved(onnx_model(nodes, inputs, outputs, inits, "mlp"), path)


def float_cnn(path, shape, layers, outputs=10, seed=0):
    """A float CNN of random weights on samples of ``shape`` (C, H, W) written to ``path``:
    ``layers`` of ``("conv", F, (KH, KW), (SH, SW)[, pads])`` (a Conv and a Relu) and
    ``("pool", (KH, KW), (SH, SW)[, pads])`` (a MaxPool; ``"average"``: an AveragePool),
    then Flatten and a Gemm to ``outputs``; pads (top, left, bottom, right)."""
    rng = np.random.default_rng(seed)
    nodes, inits, name, (c, h, w) = [], {}, "x", shape
    for k, (kind, *args) in enumerate(layers):
        pads = list(args.pop()) if len(args) == (4 if kind == "conv" else 3) else [0] * 4
        if kind == "conv":
            f, (kh, kw), stride = args
            inits[f"w{k}"] = rng.normal(0, 1 / np.sqrt(c * kh * kw), (f, c, kh, kw)).astype(
                np.float32)
            inits[f"b{k}"] = rng.normal(0, 0.3, f).astype(np.float32)
            nodes += [helper.make_node("Conv", [name, f"w{k}", f"b{k}"], [f"c{k}"], f"conv{k}",
                                       kernel_shape=[kh, kw], strides=list(stride), pads=pads),
                      helper.make_node("Relu", [f"c{k}"], [f"r{k}"], f"relu{k}")]
            name, c = f"r{k}", f
        else:
            (kh, kw), stride = args
            op = "MaxPool" if kind == "pool" else "AveragePool"
            nodes.append(helper.make_node(op, [name], [f"p{k}"], f"pool{k}",
                                          kernel_shape=[kh, kw], strides=list(stride),
                                          pads=pads))
            name = f"p{k}"
        h = (h + pads[0] + pads[2] - kh) // stride[0] + 1
        w = (w + pads[1] + pads[3] - kw) // stride[1] + 1
    inits["wd"] = rng.normal(0, 1 / np.sqrt(c * h * w), (c * h * w, outputs)).astype(np.float32)
    inits["bd"] = rng.normal(0, 0.3, outputs).astype(np.float32)
    nodes += [helper.make_node("Flatten", [name], ["flat"], "flatten"),
              helper.make_node("Gemm", ["flat", "wd", "bd"], ["y"], "dense")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, *shape])]
    out = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, outputs])]
    return saved(onnx_model(nodes, inputs, out, inits, "cnn"), path)


def quantized(source, path, features, form="QDQ", per_channel=False, seed=0):
    """``source`` quantized by onnxruntime's ``quantize_static`` on random inputs of
    ``features`` (a number, or a sample's shape)."""
    import logging
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static
    logging.getLogger().setLevel(logging.ERROR)
    rng = np.random.default_rng(seed)

    class Calibration(CalibrationDataReader):
        def __init__(self):
            self.items = iter({"x": rng.uniform(-1, 1, (1, *np.atleast_1d(features))).astype(
                np.float32)}
                              for _ in range(64))

        def get_next(self):
            return next(self.items, None)

    quantize_static(source, path, Calibration(), quant_format=getattr(QuantFormat, form),
                    per_channel=per_channel)
    return path


@pytest.fixture
def user_model(tmp_path):
    """``user_model(layers, **options)``: a random MLP quantized as a user would."""
    def make(layers, form="QDQ", per_channel=False, gemm=True, seed=0):
        source = float_model(str(tmp_path / f"float{seed}.onnx"), layers, seed, gemm)
        return quantized(source, str(tmp_path / f"q{seed}_{form}.onnx"), layers[0], form,
                         per_channel, seed)
    return make


@pytest.fixture
def user_cnn(tmp_path):
    """``user_cnn(shape, layers, **options)``: a random CNN (``float_cnn``) quantized as a
    user would."""
    def make(shape, layers, form="QDQ", per_channel=False, seed=0):
        source = float_cnn(str(tmp_path / f"cnn{seed}.onnx"), shape, layers, seed=seed)
        return quantized(source, str(tmp_path / f"qcnn{seed}_{form}.onnx"), shape, form,
                         per_channel, seed)
    return make
