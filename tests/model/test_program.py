"""A model's hwgen program (``model.program``, ``model.design``) against onnxruntime: in the
interpreter, in the RTL under random gaps and back-pressure, and its streams as deep as the
schedule says, no deeper."""
from dataclasses import replace

import numpy as np
import pytest

from hwgen.model import compare, design, onnx_import
from hwgen.model.compare import Samples
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.model.conftest import DIGITS, onnx_model, saved, shipped


def _design(path, tmp_path, batch):
    model = onnx_import.load(path)
    return model, design.build(model, path, str(tmp_path), batch)


def _agree(path, model, built, samples, batch, rtl=0):
    want = compare.onnxruntime_outputs(path, model, samples)
    runs = [compare.agreement("interpreter", model, samples,
                              compare.interpreted(built.graph, model, samples, batch), want)]
    if rtl:
        few = samples.first(rtl)
        runs.append(compare.agreement("RTL", model, few, compare.simulated(
            built.built, model, few, batch, seed=3), want[:rtl]))
    return runs


@pytest.mark.parametrize("name, images, batch, rtl", [
    ("digits_mlp", 160, 8, 3), ("digits_mlp_qop", 40, 8, 3),
    ("digits_cnn", 48, 2, 2), ("digits_cnn_qop", 12, 2, 0)])   # QOperator convs: a user's CNN
def test_the_shipped_models_equal_onnxruntime_on_the_held_out_digits(tmp_path, name, images,
                                                                     batch, rtl):
    model, built = _design(shipped(name), tmp_path, batch)
    samples = compare.load_samples(model, DIGITS, images)
    runs = _agree(shipped(name), model, built, samples, batch, rtl)
    assert all(run.exact for run in runs), [run.line() for run in runs]
    want = compare.onnxruntime_outputs(shipped(name), model, samples)
    assert runs[0].accuracy == np.mean(want.argmax(axis=1) == samples.labels) > 0.9


@pytest.mark.parametrize("layers, form, per_channel, gemm", [
    ([7, 5, 3], "QOperator", True, True),
    ([9, 4, 6, 2], "QDQ", False, False),
    ([3, 1], "QDQ", True, True)])
def test_a_users_model_equals_onnxruntime(tmp_path, user_model, layers, form, per_channel,
                                          gemm):
    path = user_model(layers, form, per_channel, gemm)
    model, built = _design(path, tmp_path, 3)
    runs = _agree(path, model, built, compare.load_samples(model, None, 60, seed=1), 3, rtl=4)
    assert all(run.exact for run in runs), [run.line() for run in runs]


@pytest.mark.parametrize("shape, layers, form, per_channel", [
    # two convolutions (the second collects its input), overlapping pooling windows
    ((2, 7, 6), [("conv", 3, (3, 2), (2, 1)), ("conv", 2, (2, 2), (1, 1)),
                 ("pool", (2, 2), (1, 1))], "QOperator", True),
    # a pool first in the task chain after a one-column kernel, odd sizes
    ((1, 5, 5), [("conv", 2, (3, 1), (1, 1)), ("pool", (3, 2), (1, 2))], "QDQ", False),
    # averages: a window's, in floats as onnxruntime's, and the whole image's, in integers
    ((2, 6, 5), [("conv", 3, (2, 2), (1, 1)), ("average", (2, 2), (2, 1)),
                 ("average", (2, 3), (1, 1))], "QDQ", False),
    # padded: the first convolution ("same"), a second one on one side, a pool
    ((1, 4, 3), [("conv", 2, (3, 3), (1, 1), (1, 1, 1, 1)),
                 ("conv", 2, (2, 2), (2, 1), (0, 1, 1, 0)),
                 ("pool", (2, 2), (1, 1), (1, 0, 0, 1))], "QDQ", True)])
def test_a_users_cnn_equals_onnxruntime(tmp_path, user_cnn, shape, layers, form, per_channel):
    path = user_cnn(shape, layers, form, per_channel)
    model, built = _design(path, tmp_path, 2)
    runs = _agree(path, model, built, compare.load_samples(model, None, 12, seed=1), 2, rtl=4)
    assert all(run.exact for run in runs), [run.line() for run in runs]


def test_each_stream_is_as_deep_as_the_schedule_needs_and_no_deeper(tmp_path):
    """Back to back in simulation, problems come every interval_cycles at the chosen depth
    and later with one entry fewer: the producer stalls on the full stream."""
    model, built = _design(shipped("digits_mlp"), tmp_path, 2)
    (name, depth), = built.depths.items()
    rng = np.random.default_rng(0)
    problems = [{"X": rng.integers(0, 256, (2, 64))} for _ in range(4)]

    def intervals(graph):
        _, _, done = run_top(Top(plan(graph)), problems)
        return set(np.diff(done).tolist())

    assert intervals(built.graph) == {built.built.interval_cycles}
    channel = built.graph.channels[name]
    fewer = replace(channel, type=replace(channel.type, depth=depth - 1))
    shallow = built.graph.with_(channels={**built.graph.channels, name: fewer})
    assert min(intervals(shallow)) > built.built.interval_cycles


@pytest.mark.parametrize("y_scale", [1e-7, 3e-5, 0.5])
def test_requantization_clamps_like_onnxruntime_far_beyond_the_range(tmp_path, y_scale):
    """Sums whose scaled value reaches 2**22 and beyond (a tiny output scale) saturate as
    onnxruntime's do; the program rounds before it clamps."""
    from onnx import TensorProto, helper
    rng = np.random.default_rng(5)
    consts = {"s": np.float32(0.01), "z": np.int8(3), "w": rng.integers(-128, 128, (6, 4))
              .astype(np.int8), "ws": np.float32(0.02), "wz": np.int8(0),
              "ys": np.float32(y_scale), "yz": np.int8(-7)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("QLinearMatMul", ["q", "s", "z", "w", "ws", "wz", "ys", "yz"],
                              ["m"], name="mm"),
             helper.make_node("DequantizeLinear", ["m", "ys", "yz"], ["y"])]
    path = saved(onnx_model(
        nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 4])], consts),
        tmp_path / "wide.onnx")
    model, built = _design(path, tmp_path, 2)
    samples = Samples(np.concatenate([rng.uniform(-1.3, 1.3, (40, 6)), np.full((1, 6), 1.3),
                                      np.full((1, 6), -1.3)]).astype(np.float32))
    runs = _agree(path, model, built, samples, 2, rtl=4)
    assert all(run.exact for run in runs), [run.line() for run in runs]


def test_the_design_runs_as_the_model_through_the_driver(tmp_path):
    """Floats in and out through ``Accelerator.simulate`` and the bridge: onnxruntime's."""
    from hwgen import HwgenError
    from hwgen.driver import Accelerator
    from hwgen.model.host import Inference
    model, built = _design(shipped("digits_mlp_qop"), tmp_path, 3)
    samples = compare.load_samples(model, DIGITS, 4)
    want = compare.onnxruntime_outputs(shipped("digits_mlp_qop"), model, samples)
    with Accelerator.simulate(built.path, built.params) as acc:
        got = Inference(acc, model)(samples.inputs)
        with pytest.raises(HwgenError, match=r"shape \(samples, 64\), not \[4, 8\]"):
            Inference(acc, model)(samples.inputs[:, :8])
    assert np.array_equal(got.view(np.int32), want.view(np.int32))
