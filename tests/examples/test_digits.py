"""The shipped digit classifier: its quantized weights classify the held-out digits as the
training script says, and `scripts/classify_digits.py` runs images through the simulated bridge
with outputs equal to numpy's."""
import os
import sys

import numpy as np
import pytest

from tests.conftest import example

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "scripts"))
import classify_digits  # noqa: E402
import train_digits  # noqa: E402


def test_the_shipped_weights_classify_the_held_out_digits():
    from hwgen.pipeline import load_module
    digits = load_module(example("digits"))
    _, images, _, labels = train_digits.split()
    assert images.shape == (360, 64) and 0 <= images.min() and images.max() <= 16
    got = digits.reference(images)["label"]
    want = train_digits.infer(images, digits.W1, digits.B1, digits.W2, digits.B2, digits.SHIFT)
    assert np.array_equal(got, want[1]) and np.mean(got == labels) >= 0.95


def test_classify_runs_images_through_the_simulated_bridge(capsys):
    assert classify_digits.main(["--images", "5", "--batch", "2", "--fmax", "100"]) == 0
    out = capsys.readouterr().out
    assert "5 images: logits and labels equal numpy" in out and "at 100 MHz:" in out


def test_classify_refuses_bad_arguments(capsys):
    with pytest.raises(SystemExit) as stop:
        classify_digits.main(["--images", "0"])
    assert stop.value.code == 2 and "--images takes 1..360" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        classify_digits.main(["--port", "/dev/ttyUSB9"])
    assert "needs --design-json" in capsys.readouterr().err


@pytest.mark.slow
def test_all_held_out_images_classify_exactly(capsys):
    assert classify_digits.main([]) == 0
    assert "360 images: logits and labels equal numpy" in capsys.readouterr().out
