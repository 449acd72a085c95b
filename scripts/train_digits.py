"""Train and quantize the digit classifier of `hwgen/examples/digits.py`.

scikit-learn's bundled 8x8 digits (no download): 1,437 training images, the 360 others held out
(``split()``, the split the example's tests use). An MLP of 64 -> 32 -> 10 with ReLU is trained
in floats (scikit-learn's ``MLPClassifier``), then quantized to what the hardware computes:

    h = clip((W1 @ x + b1) >> SHIFT, 0, 127)          int8 weights, the pixels (0..16) as they are
    logits = W2 @ h + b2                               int8 weights, int32 logits; label = argmax

The weights are written to ``hwgen/examples/digits_model.npz`` (small enough to keep in the
repository, so nothing trains in a test). Run ``make digits`` or
``.venv/bin/python scripts/train_digits.py``.
"""
import argparse
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, os.pardir, "hwgen", "examples", "digits_model.npz")
HIDDEN, TEST = 32, 360


def split():
    """(train images, train labels, test images, test labels): pixels as int64 0..16."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    x = digits.data.astype(np.int64)
    return train_test_split(x, digits.target, test_size=TEST, random_state=0,
                            stratify=digits.target)


def quantize(w1, b1, w2, b2, x_train):
    """Integer weights, biases and the hidden layer's SHIFT from float ones: each layer's
    weights scaled to fill int8, the hidden activations to fill 0..127 on the training set."""
    s1 = 127 / np.abs(w1).max()
    q1, c1 = np.round(w1 * s1), np.round(b1 * s1)           # hidden sums at scale s1
    peak = np.percentile(np.maximum(x_train @ q1.T + c1, 0), 99.9)
    shift = max(0, int(np.ceil(np.log2(peak / 127))))
    scale_h = s1 / (1 << shift)                              # of the int8 hidden values
    s2 = 127 / np.abs(w2).max()
    q2, c2 = np.round(w2 * s2), np.round(b2 * s2 * scale_h)
    if max(np.abs(c1).max(), np.abs(c2).max()) > np.iinfo(np.int16).max:
        raise SystemExit("a bias does not fit int16 at these scales: train again (--seed)")
    return q1.astype(np.int8), c1.astype(np.int16), q2.astype(np.int8), c2.astype(np.int16), shift


def infer(x, w1, b1, w2, b2, shift):
    """The integer model (the example's numpy reference): logits and labels of images ``x``."""
    h = np.clip((x @ w1.T.astype(np.int64) + b1) >> shift, 0, 127)
    logits = h @ w2.T.astype(np.int64) + b2
    return logits, logits.argmax(axis=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=OUT, help="the .npz to write (default: the example's)")
    parser.add_argument("--seed", type=int, default=0, help="the training's random seed")
    args = parser.parse_args(argv)
    from sklearn.neural_network import MLPClassifier
    x_train, x_test, y_train, y_test = split()
    mlp = MLPClassifier(hidden_layer_sizes=(HIDDEN,), activation="relu", max_iter=2000,
                        random_state=args.seed).fit(x_train / 16, y_train)
    (w1, w2), (b1, b2) = mlp.coefs_, mlp.intercepts_
    model = quantize(w1.T / 16, b1, w2.T, b2, x_train)
    _, labels = infer(x_test, *model)
    print(f"float accuracy {mlp.score(x_test / 16, y_test):.3f}, "
          f"int8 accuracy {np.mean(labels == y_test):.3f} on the {len(y_test)} test images")
    w1, b1, w2, b2, shift = model
    np.savez_compressed(args.out, w1=w1, b1=b1, w2=w2, b2=b2, shift=shift)
    print(f"wrote {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
