"""Train and quantize the ONNX models shipped in `hwgen/examples/models/` (`make model`).

scikit-learn's bundled 8x8 digits (no download; the split of `train_digits.split()`), pixels
scaled to 0..1. An MLP of 64 -> 32 -> 10 with ReLU is trained in floats (scikit-learn's
``MLPClassifier``), written as ONNX by skl2onnx up to its logits (the Softmax and label
operators after them are left out: the argmax of the logits is the label), and quantized to 8
bits by onnxruntime's ``quantize_static`` calibrated on the training images, in both of its
forms:

    digits_mlp.onnx       QDQ: QuantizeLinear / DequantizeLinear around float operators
    digits_mlp_qop.onnx   QOperator: QLinearMatMul, QLinearAdd
    digits_test.npz       the 360 held-out images as the models take them ("x") and their
                          "labels": `make model`'s DATA for these models

The files are small enough to keep in the repository, so that nothing trains in a test. Run
``.venv/bin/python scripts/train_models.py``.
"""
import argparse
import os
import tempfile

import numpy as np

from train_digits import split

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, os.pardir, "hwgen", "examples", "models")
HIDDEN = 32
FILTERS = 8


def float_mlp(seed):
    """The trained MLP as a float ONNX model whose output is the logits, and its accuracy."""
    import onnx
    from onnx import TensorProto, helper
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import FloatTensorType
    from sklearn.neural_network import MLPClassifier
    x_train, x_test, y_train, y_test = split()
    mlp = MLPClassifier(hidden_layer_sizes=(HIDDEN,), activation="relu", max_iter=2000,
                        random_state=seed).fit(x_train / 16, y_train)
    full = convert_sklearn(mlp, initial_types=[("x", FloatTensorType([None, 64]))],
                           target_opset=17, options={id(mlp): {"zipmap": False}})
    nodes, wanted = [], None
    for node in full.graph.node:            # from the first MatMul to the Add before Softmax
        if node.op_type == "Softmax":
            wanted = node.input[0]
            break
        if node.op_type != "Cast":
            nodes.append(node)
    nodes[0].input[0] = "x"
    used = {name for node in nodes for name in node.input}
    graph = helper.make_graph(nodes, "digits_mlp", [full.graph.input[0]],
                              [helper.make_tensor_value_info(wanted, TensorProto.FLOAT,
                                                             [None, 10])],
                              [t for t in full.graph.initializer if t.name in used])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8                        # what onnxruntime of pyproject.toml reads
    onnx.checker.check_model(model)
    return model, mlp.score(x_test / 16, y_test)


def _windows(x):
    """The 3x3 windows of 8x8 images ``x`` [N, 64]: [N, 36, 9], window (oh, ow) row-major."""
    images = x.reshape(-1, 8, 8)
    return np.lib.stride_tricks.sliding_window_view(images, (3, 3), axis=(1, 2)).reshape(
        len(x), 36, 9)


def _cnn_forward(params, x):
    """Logits of the CNN, and what the backward pass needs."""
    wc, bc, wd, bd = params
    patches = _windows(x)
    z = patches @ wc + bc                                    # [N, 36, F] before ReLU
    blocks = np.maximum(z, 0).reshape(len(x), 3, 2, 3, 2, FILTERS)
    pooled = blocks.max(axis=(2, 4))                         # [N, 3, 3, F]
    flat = pooled.transpose(0, 3, 1, 2).reshape(len(x), -1)  # channel-major, as ONNX flattens
    return flat @ wd + bd, (patches, z, blocks, pooled, flat)


def _cnn_grads(params, x, y):
    wc, bc, wd, bd = params
    logits, (patches, z, blocks, pooled, flat) = _cnn_forward(params, x)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    g = p / p.sum(axis=1, keepdims=True)
    g[np.arange(len(y)), y] -= 1
    g /= len(y)
    d_pooled = (g @ wd.T).reshape(len(x), FILTERS, 3, 3).transpose(0, 2, 3, 1)
    winners = blocks == pooled[:, :, None, :, None, :]
    d_blocks = winners * d_pooled[:, :, None, :, None, :] / winners.sum(axis=(2, 4),
                                                                        keepdims=True)
    dz = d_blocks.reshape(len(x), 36, FILTERS) * (z > 0)
    return (patches.reshape(-1, 9).T @ dz.reshape(-1, FILTERS), dz.sum(axis=(0, 1)),
            flat.T @ g, g.sum(axis=0))


def float_cnn(seed, epochs=60, batch=32, rate=0.01):
    """A CNN of one 3x3 convolution to ``FILTERS`` channels, ReLU, 2x2 max-pooling and a dense
    layer to the 10 logits, trained in numpy (Adam on the cross-entropy), as a float ONNX
    model of input (N, 1, 8, 8); and its accuracy."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    x_train, x_test, y_train, y_test = split()
    x_train, x_test = x_train / 16, x_test / 16
    rng = np.random.default_rng(seed)
    params = [rng.normal(0, 1 / 3, (9, FILTERS)), np.zeros(FILTERS),
              rng.normal(0, 1 / np.sqrt(9 * FILTERS), (9 * FILTERS, 10)), np.zeros(10)]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(x_train))
        for start in range(0, len(order), batch):
            chosen = order[start:start + batch]
            step += 1
            for p, m, grad in zip(params, moments, _cnn_grads(params, x_train[chosen],
                                                              y_train[chosen])):
                m[0][:] = 0.9 * m[0] + 0.1 * grad
                m[1][:] = 0.999 * m[1] + 0.001 * grad ** 2
                p -= rate * (m[0] / (1 - 0.9 ** step)) / (
                    np.sqrt(m[1] / (1 - 0.999 ** step)) + 1e-8)
    score = np.mean(_cnn_forward(params, x_test)[0].argmax(axis=1) == y_test)
    wc, bc, wd, bd = (p.astype(np.float32) for p in params)
    weights = [numpy_helper.from_array(wc.T.reshape(FILTERS, 1, 3, 3), "conv_w"),
               numpy_helper.from_array(bc, "conv_b"), numpy_helper.from_array(wd, "dense_w"),
               numpy_helper.from_array(bd, "dense_b")]
    nodes = [helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["conv"], "conv",
                              kernel_shape=[3, 3]),
             helper.make_node("Relu", ["conv"], ["relu"], "relu"),
             helper.make_node("MaxPool", ["relu"], ["pool"], "pool", kernel_shape=[2, 2],
                              strides=[2, 2]),
             helper.make_node("Flatten", ["pool"], ["flat"], "flatten"),
             helper.make_node("Gemm", ["flat", "dense_w", "dense_b"], ["logits"], "dense")]
    graph = helper.make_graph(
        nodes, "digits_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                            [None, 1, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [None, 10])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, score


def quantized(model, form, path):
    """``model`` quantized to int8 in ``form`` ("QDQ" or "QOperator"), written to ``path``."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    class Calibration(CalibrationDataReader):
        """The training images, one at a time."""

        def __init__(self):
            shape = [1, *(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim[1:])]
            self.items = iter([{"x": x.reshape(shape)}
                               for x in (split()[0] / 16).astype(np.float32)])

        def get_next(self):
            return next(self.items, None)

    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "float.onnx")
        onnx.save(model, source)
        quantize_static(source, path, Calibration(), quant_format=getattr(QuantFormat, form))


def accuracy(path):
    import onnxruntime as ort
    _, x_test, _, y_test = split()
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    shape = [d if isinstance(d, int) else -1 for d in session.get_inputs()[0].shape]
    logits = session.run(None, {"x": (x_test / 16).astype(np.float32).reshape(shape)})[0]
    return np.mean(logits.argmax(axis=1) == y_test)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=OUT, help="the folder to write (default: the "
                        "examples' models)")
    parser.add_argument("--seed", type=int, default=0, help="the training's random seed")
    args = parser.parse_args(argv)
    import logging
    logging.getLogger().setLevel(logging.ERROR)        # quantize_static's advice on x64
    os.makedirs(args.out, exist_ok=True)
    _, x_test, _, y_test = split()
    data = os.path.join(args.out, "digits_test.npz")
    np.savez_compressed(data, x=(x_test / 16).astype(np.float32), labels=y_test)
    print(f"wrote {os.path.relpath(data)}")
    for kind, train in (("mlp", float_mlp), ("cnn", float_cnn)):
        model, score = train(args.seed)
        print(f"digits {kind.upper()}: float accuracy {score:.3f} on the 360 test images")
        for form, name in (("QDQ", f"digits_{kind}.onnx"),
                           ("QOperator", f"digits_{kind}_qop.onnx")):
            path = os.path.join(args.out, name)
            quantized(model, form, path)
            print(f"wrote {os.path.relpath(path)} ({form}, {os.path.getsize(path):,} bytes): "
                  f"onnxruntime accuracy {accuracy(path):.3f}")


if __name__ == "__main__":
    main()
