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


def quantized(model, form, path):
    """``model`` quantized to int8 in ``form`` ("QDQ" or "QOperator"), written to ``path``."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    class Calibration(CalibrationDataReader):
        """The training images, one at a time."""

        def __init__(self):
            self.items = iter([{"x": x[None, :]} for x in (split()[0] / 16).astype(np.float32)])

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
    logits = session.run(None, {"x": (x_test / 16).astype(np.float32)})[0]
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
    model, score = float_mlp(args.seed)
    print(f"digits MLP: float accuracy {score:.3f} on the 360 test images")
    for form, name in (("QDQ", "digits_mlp.onnx"), ("QOperator", "digits_mlp_qop.onnx")):
        path = os.path.join(args.out, name)
        quantized(model, form, path)
        print(f"wrote {os.path.relpath(path)} ({form}, {os.path.getsize(path):,} bytes): "
              f"onnxruntime accuracy {accuracy(path):.3f}")


if __name__ == "__main__":
    main()
