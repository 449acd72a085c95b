"""``hwgen model``: the table, the comparisons with onnxruntime, and bad input as errors."""
import numpy as np

from hwgen.cli import main
from tests.model.conftest import DIGITS, shipped


def test_model_prints_its_layers_and_agrees_with_onnxruntime(tmp_path, capsys):
    assert main(["model", shipped("digits_mlp"), "--data", DIGITS, "--images", "24",
                 "--sim", "3", "--batch", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "MatMul 64 -> 32" in out and "s2 (" in out
    assert "layer 0 does 8 multiply-accumulates a clock: the fewest it can (a divisor of its 64 " \
        "inputs) that keep it within layer 2's 320 clocks a sample" in out
    assert "s2 holds " in out and "one fewer stalls its producer" in out
    assert "onnxruntime: 24 samples, accuracy" in out
    assert "interpreter: 24 samples, every output equals onnxruntime's, accuracy" in out
    assert "RTL: 3 samples, every output equals onnxruntime's" in out
    assert (tmp_path / "digits_mlp.py").is_file() and (tmp_path / "digits_mlp.onnx").is_file()


def test_model_without_data_draws_inputs_in_the_input_range(tmp_path, capsys):
    assert main(["model", shipped("digits_mlp_qop"), "--images", "5", "--out",
                 str(tmp_path)]) == 0
    assert "interpreter: 5 samples, every output equals" in capsys.readouterr().out


def test_model_bad_input_is_a_clear_error(tmp_path, capsys):
    assert main(["model", str(tmp_path / "none.onnx")]) == 2
    assert "not found" in capsys.readouterr().err
    np.savez(tmp_path / "wrong.npz", pixels=np.zeros((3, 64), np.float32))
    assert main(["model", shipped("digits_mlp"), "--data", str(tmp_path / "wrong.npz"),
                 "--out", str(tmp_path)]) == 2
    assert "has no array 'x' (the model's input); it has ['pixels']" in capsys.readouterr().err
    np.save(tmp_path / "one.npy", np.zeros((3, 64), np.float32))
    assert main(["model", shipped("digits_mlp"), "--data", str(tmp_path / "one.npy"),
                 "--out", str(tmp_path)]) == 2
    assert "np.savez(path, x=samples)" in capsys.readouterr().err
    (tmp_path / "junk.npz").write_bytes(b"junk")
    assert main(["model", shipped("digits_mlp"), "--data", str(tmp_path / "junk.npz"),
                 "--out", str(tmp_path)]) == 2
    assert "is not an .npz of arrays" in capsys.readouterr().err
    np.savez(tmp_path / "short.npz", x=np.zeros((3, 60), np.float32))
    assert main(["model", shipped("digits_mlp"), "--data", str(tmp_path / "short.npz"),
                 "--out", str(tmp_path)]) == 2
    assert "the model takes (samples, 64)" in capsys.readouterr().err
    assert main(["model", shipped("digits_mlp"), "--batch", "0"]) == 2
    assert "--batch and --images take a positive number" in capsys.readouterr().err
    assert main(["model", shipped("digits_mlp"), "--unroll", "5", "--out", str(tmp_path)]) == 2
    assert "U0=5: layer 0's multiply-accumulates a clock must be a divisor of its 64 inputs" in \
        capsys.readouterr().err


def test_a_lower_rate_gets_fewer_multipliers_and_an_unreachable_one_an_error(tmp_path, capsys):
    from hwgen.model import design, onnx_import
    model = onnx_import.load(shipped("digits_mlp"))
    assert design.unroll_for_rate(model, "max", 70) == 8              # 256 clocks <= 320
    assert design.unroll_for_rate(model, "100000", 70) == 4           # 700 clocks a sample
    assert design.unroll_for_rate(model, "40000", 70) == 2            # 1,750
    cnn = onnx_import.load(shipped("digits_cnn"))                      # 2,592 MACs a sample
    assert [design.unroll_for_rate(cnn, rate, 70) for rate in ("max", "60000", "20000")] == \
        [9, 3, 1]                   # window elements a clock: within 720, 1,167, 3,500 clocks
    assert main(["model", shipped("digits_mlp"), "--rate", "40000", "--images", "3",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "layer 0 does 2 multiply-accumulates a clock (the rate asked" in out
    assert main(["model", shipped("digits_mlp"), "--rate", "300000"]) == 2
    assert "leaves 233 clocks a sample; the layers after the first take 320" in \
        capsys.readouterr().err
    assert main(["model", shipped("digits_mlp"), "--rate", "fast"]) == 2
    assert "not 'fast'" in capsys.readouterr().err
