"""``model.reference`` against onnxruntime itself, on every input value where it can."""
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from hwgen.model import reference
from hwgen.model.layers import AddConst, Quant
from tests.model.conftest import onnx_model

TYPES = {"int8": (np.int8, TensorProto.INT8), "uint8": (np.uint8, TensorProto.UINT8)}


def _session(nodes, inputs, outputs, consts):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(onnx_model(nodes, inputs, outputs, consts).SerializeToString(),
                                options, providers=["CPUExecutionProvider"])


def _quant(rng, dtype):
    lo, hi = (-128, 127) if dtype == "int8" else (0, 255)
    return Quant(float(np.float32(rng.uniform(1e-3, 0.2))), int(rng.integers(lo, hi + 1)), dtype)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("const_first", [False, True])
def test_qlinear_add_equals_onnxruntime_on_every_pair_of_values(dtype, const_first):
    """All 256 x 256 (input, constant) pairs at random scales and zero points: onnxruntime's
    kernel fuses its multiply-adds, so a plain float32 formula differs on a few of them."""
    np_type, proto = TYPES[dtype]
    rng = np.random.default_rng(7)
    values = np.arange(*((-128, 128) if dtype == "int8" else (0, 256)))
    for _ in range(8):
        x, c, y = (_quant(rng, dtype) for _ in range(3))
        layer = AddConst("add", values.astype(np_type), x, c, y, float_path=False,
                         const_first=const_first)
        consts = {"xs": np.float32(x.scale), "xz": np_type(x.zero), "cv": layer.const[None, :],
                  "cs": np.float32(c.scale), "cz": np_type(c.zero), "ys": np.float32(y.scale),
                  "yz": np_type(y.zero)}
        operands = ["cv", "cs", "cz", "x", "xs", "xz"] if const_first else \
            ["x", "xs", "xz", "cv", "cs", "cz"]
        node = helper.make_node("QLinearAdd", operands + ["ys", "yz"], ["y"],
                                domain="com.microsoft")
        session = _session([node], [helper.make_tensor_value_info("x", proto, [256, 256])],
                           [helper.make_tensor_value_info("y", proto, [256, 256])], consts)
        inputs = np.repeat(values[:, None], 256, axis=1)       # row v: every element v
        want = session.run(None, {"x": inputs.astype(np_type)})[0]
        assert np.array_equal(reference.add_const(layer, inputs), want)


def test_quantize_and_dequantize_equal_onnxruntime():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(0, 3, 100_000), rng.uniform(-40, 40, 100_000),
                             np.arange(-300, 300) * 0.0625]).astype(np.float32)
    for dtype in ("int8", "uint8"):
        np_type, proto = TYPES[dtype]
        q = _quant(rng, dtype)
        consts = {"s": np.float32(q.scale), "z": np_type(q.zero)}
        nodes = [helper.make_node("QuantizeLinear", ["v", "s", "z"], ["q"]),
                 helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"])]
        session = _session(nodes, [helper.make_tensor_value_info("v", TensorProto.FLOAT, [
            len(values)])], [helper.make_tensor_value_info("q", proto, [len(values)]),
                             helper.make_tensor_value_info("d", TensorProto.FLOAT,
                                                           [len(values)])], consts)
        got_q, got_d = session.run(None, {"v": values})
        assert np.array_equal(reference.quantize(values, q), got_q)
        assert np.array_equal(reference.dequantize(got_q, q).view(np.int32), got_d.view(np.int32))
