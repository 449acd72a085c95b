"""``model.onnx_import``: the shipped models and a user's, as typed layers; every model it
cannot take is an error naming the node, its operator and what is supported."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from hwgen import HwgenError
from hwgen.model.layers import AddConst, Conv, Dense, MaxPool
from hwgen.model.onnx_import import load
from tests.model.conftest import float_model, onnx_model, quantized, saved, shipped


def test_the_shipped_qdq_model_is_what_onnxruntime_runs_on_x86():
    """onnxruntime fuses DequantizeLinear, MatMul, QuantizeLinear into QLinearMatMul and runs
    int8 activations as uint8 (zero point + 128); the Add of the bias stays in floats."""
    model = load(shipped("digits_mlp"))
    assert [type(layer) for layer in model.layers] == [Dense, AddConst, Dense, AddConst]
    assert [layer.shape for layer in model.layers] == [(64, 32), (32, 32), (32, 10), (10, 10)]
    assert model.x.dtype == "uint8" and all(layer.float_path for layer in model.layers[1::2])
    assert (model.input, model.features, model.outputs) == ("x", 64, 10)


def test_the_shipped_qoperator_model_keeps_int8_and_qlinear_add():
    model = load(shipped("digits_mlp_qop"))
    assert model.x.dtype == "int8" and model.x.zero == -128
    assert not any(layer.float_path for layer in model.layers[1::2])


def test_gemm_with_per_channel_weights_is_one_dense_layer_with_its_bias(tmp_path):
    source = float_model(str(tmp_path / "f.onnx"), [7, 5, 3])
    model = load(quantized(source, str(tmp_path / "q.onnx"), 7, "QOperator", per_channel=True))
    first = model.layers[0]
    assert [type(layer) for layer in model.layers] == [Dense, Dense]
    assert first.weight.shape == (7, 5) and len(set(first.w_scale.tolist())) == 5
    assert first.bias.any()


def _save(tmp_path, nodes, inputs, outputs, consts):
    return saved(onnx_model(nodes, inputs, outputs, consts, "bad"), tmp_path / "bad.onnx")


def _io(*names, shape=(None, 4)):
    return [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(shape)) for n in names]


QUANT = {"s": np.float32(0.1), "z": np.int8(0)}


def test_unsupported_operators_name_the_node_and_what_is_supported(tmp_path):
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"]),
             helper.make_node("Tanh", ["d"], ["t"], name="squash"),
             helper.make_node("QuantizeLinear", ["t", "s", "z"], ["q2"]),
             helper.make_node("DequantizeLinear", ["q2", "s", "z"], ["y"])]
    with pytest.raises(HwgenError, match=r"node squash \(Tanh\).*supports the Add of a "
                       "constant alone"):
        load(_save(tmp_path, nodes, _io("x"), _io("y"), QUANT))
    nodes[2] = helper.make_node("Softmax", ["d"], ["t"], name="probabilities")
    with pytest.raises(HwgenError, match=r"node probabilities \((QLinear)?Softmax\).*"
                       "supports QuantizeLinear, DequantizeLinear, QLinearMatMul"):
        load(_save(tmp_path, nodes, _io("x"), _io("y"), QUANT))


def test_models_hwgen_cannot_take_are_clear_errors(tmp_path):
    with pytest.raises(HwgenError, match="not found"):
        load(str(tmp_path / "none.onnx"))
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(HwgenError, match="onnxruntime cannot load"):
        load(str(tmp_path / "junk.onnx"))
    floats = float_model(str(tmp_path / "f.onnx"), [4, 3])
    with pytest.raises(HwgenError, match=r"\(Gemm\).*must be quantized first"):
        load(floats)
    two = [helper.make_node("Add", ["x", "w"], ["y"])]
    with pytest.raises(HwgenError, match="one input and one output, this one has 2 and 1"):
        load(_save(tmp_path, two, _io("x", "w"), _io("y"), {}))
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"])]
    with pytest.raises(HwgenError, match="output 'q' is quantized"):
        load(_save(tmp_path, nodes, _io("x"), [helper.make_tensor_value_info(
            "q", TensorProto.INT8, [None, 4])], QUANT))
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
    with pytest.raises(HwgenError, match="no quantized layer"):
        load(_save(tmp_path, nodes, _io("x"), _io("y"), QUANT))
    with pytest.raises(HwgenError, match=r"shape \[0, 0\].*every feature dimension known"):
        load(_save(tmp_path, nodes, _io("x", shape=(None, None)), _io("y"), QUANT))


def test_a_scalar_constant_is_added_to_every_value_as_onnxruntime_adds_it(tmp_path):
    from hwgen.model import compare, reference
    rng = np.random.default_rng(2)
    consts = {**QUANT, "w": rng.integers(-128, 128, (4, 3)).astype(np.int8),
              "ws": np.float32(0.05), "wz": np.int8(0), "ms": np.float32(0.3),
              "mz": np.int8(5), "c": np.array([17], np.int8), "cs": np.float32(0.02),
              "cz": np.int8(-3), "ys": np.float32(0.25), "yz": np.int8(1)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("QLinearMatMul", ["q", "s", "z", "w", "ws", "wz", "ms", "mz"],
                              ["m"]),
             helper.make_node("QLinearAdd", ["c", "cs", "cz", "m", "ms", "mz", "ys", "yz"],
                              ["a"], domain="com.microsoft", name="plus"),
             helper.make_node("DequantizeLinear", ["a", "ys", "yz"], ["y"])]
    path = saved(onnx_model(nodes, _io("x"), _io("y", shape=(None, 3)), consts),
                 tmp_path / "scalar.onnx")
    loaded = load(path)
    add = loaded.layers[1]
    assert add.const.tolist() == [17, 17, 17] and not add.const_first
    samples = compare.load_samples(loaded, None, 500)
    got = reference.run(loaded, reference.quantize(samples.inputs, loaded.x))[-1]
    want = compare.onnxruntime_outputs(path, loaded, samples)
    assert compare.agreement("reference", loaded, samples, got, want).exact


def test_the_shipped_cnn_is_a_conv_a_pool_and_a_dense_layer():
    for name in ("digits_cnn", "digits_cnn_qop"):
        model = load(shipped(name))
        assert [type(layer) for layer in model.layers] == [Conv, MaxPool, Dense]
        assert model.input_shape == (1, 8, 8) and model.features == 64
        assert [layer.output for layer in model.layers] == [(8, 6, 6), (8, 3, 3), (10,)]
        assert model.layers[1].x == model.layers[0].y


def _conv_model(tmp_path, conv=None, pool=None, image=(1, 4, 4), after="Flatten", features=8):
    """QuantizeLinear, a QLinearConv of 2 filters 2x2 (``conv``: its attributes; default
    strides 2), a MaxPool (``pool``: its attributes; None: none), ``after`` (Flatten, or a
    Reshape to 8 values), QLinearMatMul of ``features`` to 3, DequantizeLinear."""
    conv = {"kernel_shape": [2, 2], "strides": [2, 2], **(conv or {})}
    rng = np.random.default_rng(0)
    consts = {**QUANT, "w": rng.integers(-9, 9, (2, image[0], 2, 2)).astype(np.int8),
              "cs": np.float32(0.2), "cz": np.int8(0), "m": rng.integers(-9, 9, (features, 3)).astype(
                  np.int8), "ys": np.float32(0.5), "shape": np.array([-1, 8], np.int64)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("QLinearConv", ["q", "s", "z", "w", "s", "z", "cs", "cz"],
                              ["c"], name="conv", **conv)]
    name = "c"
    if pool is not None:
        nodes.append(helper.make_node("MaxPool", ["c"], ["p"], name="pool", **pool))
        name = "p"
    args = ["shape"] if after == "Reshape" else []
    nodes += [helper.make_node(after, [name, *args], ["f"], name="flat"),
              helper.make_node("QLinearMatMul", ["f", "cs", "cz", "m", "s", "z", "ys", "z"],
                               ["mm"], name="dense"),
              helper.make_node("DequantizeLinear", ["mm", "ys", "z"], ["y"])]
    return load(_save(tmp_path, nodes, _io("x", shape=(None, *image)), _io("y", shape=(None, 3)),
                      consts))


def test_a_conv_and_pool_through_flatten_or_reshape_are_layers(tmp_path):
    model = _conv_model(tmp_path)
    assert [layer.text for layer in model.layers] == ["Conv 2x2 1x4x4 -> 2x2x2",
                                                      "MatMul 8 -> 3"]
    model = _conv_model(tmp_path, {"strides": [1, 1]}, after="Reshape", image=(1, 5, 5),
                        pool={"kernel_shape": [2, 2], "strides": [2, 2]})
    assert [layer.text for layer in model.layers] == [
        "Conv 2x2 1x5x5 -> 2x4x4", "MaxPool 2x2 2x4x4 -> 2x2x2", "MatMul 8 -> 3"]
    padded = _conv_model(tmp_path, {"strides": [1, 1], "auto_pad": "SAME_UPPER"}, features=32)
    assert padded.layers[0].pads == (0, 0, 1, 1) and padded.layers[0].output == (2, 4, 4)
    padded = _conv_model(tmp_path, {"pads": [1, 0, 1, 2]}, features=18)
    assert padded.layers[0].text == "Conv 2x2 1x4x4 -> 2x3x3" and padded.layers[0].pads == (
        1, 0, 1, 2)
    with pytest.raises(HwgenError, match=r"node flat \(Reshape\): reshapes a sample of shape "
                       r"\[2, 3, 3\] to \[8\]"):
        _conv_model(tmp_path, {"strides": [1, 1]}, after="Reshape")


@pytest.mark.parametrize("conv, pool, after, features, message", [
    ({"dilations": [2, 2]}, None, "Flatten", 2, "dilation and groups are not supported"),
    ({"strides": [1, 1]}, {"kernel_shape": [2, 2], "ceil_mode": 1}, "Flatten", 8,
     r"node pool \(MaxPool\): ceil_mode"),
    (None, None, "Identity", 2, r"node dense multiplies a sample of shape \[2, 2, 2\]: "
     "flatten"),
])
def test_convolutions_hwgen_cannot_take_are_clear_errors(tmp_path, conv, pool, after, features,
                                                         message):
    with pytest.raises(HwgenError, match=message):
        _conv_model(tmp_path, conv, pool, after=after, features=features)


def test_an_average_over_a_padded_window_is_a_clear_error(user_cnn):
    path = user_cnn((1, 4, 4), [("conv", 2, (1, 1), (1, 1)),
                                ("average", (2, 2), (2, 2), (1, 1, 1, 1))])
    with pytest.raises(HwgenError, match=r"node pool1 \(QLinearAveragePool\): padding is not "
                       "supported yet for an average"):
        load(path)


def test_a_clip_between_layers_is_folded_into_the_quantization(tmp_path):
    """``quantize_static`` gives the clipped tensor the clip's range: onnxruntime then drops
    the Clip, and hwgen computes what it runs."""
    from hwgen.model import compare, reference
    rng = np.random.default_rng(0)
    consts = {"w0": rng.normal(0, .5, (6, 5)).astype(np.float32), "lo": np.float32(0),
              "w1": rng.normal(0, .5, (5, 3)).astype(np.float32), "hi": np.float32(1)}
    nodes = [helper.make_node("MatMul", ["x", "w0"], ["m0"]),
             helper.make_node("Clip", ["m0", "lo", "hi"], ["c0"], name="clip"),
             helper.make_node("MatMul", ["c0", "w1"], ["y"])]
    source = _save(tmp_path, nodes, _io("x", shape=(None, 6)), _io("y", shape=(None, 3)), consts)
    path = quantized(source, str(tmp_path / "q.onnx"), 6)
    model = load(path)
    assert [type(layer) for layer in model.layers] == [Dense, Dense]
    samples = compare.load_samples(model, None, 200, seed=1)
    got = reference.run(model, reference.quantize(samples.inputs, model.x))[-1]
    want = compare.onnxruntime_outputs(path, model, samples)
    assert compare.agreement("reference", model, samples, got, want).exact
