"""A model's design run as a model: float samples in, float outputs out, through any
``driver.Accelerator`` (a board, or its simulation)."""
import numpy as np

from ..errors import HwgenError
from . import reference


class Inference:
    """``Inference(acc, model)(samples)``: the float outputs of ``samples`` (samples x
    features) on ``acc``, a design of ``model``'s program: the host quantizes the inputs and
    dequantizes the outputs as the model's own ``QuantizeLinear`` and ``DequantizeLinear``
    do, and sends the samples ``B`` a problem (the last padded, its padding dropped)."""

    def __init__(self, acc, model):
        self.acc, self.model = acc, model
        self.batch, features = acc.manifest.whole_shape("X")
        if features != model.features:
            raise HwgenError(f"the design takes {features} values a sample, the model "
                             f"{model.features}: is it this model's program?")

    def __call__(self, samples):
        samples = np.asarray(samples, np.float32)
        if samples.ndim != 2 or samples.shape[1] != self.model.features or not len(samples):
            raise HwgenError(f"give the samples as an array of shape (samples, "
                             f"{self.model.features}), not {list(samples.shape)}")
        outs = self.acc.run_many(problems(self.model, samples, self.batch))
        y = np.concatenate([np.asarray(o["Y"]) for o in outs])[:len(samples)]
        return reference.dequantize(y, self.model.y)


def problems(model, samples, batch):
    """Float ``samples`` (samples x features) quantized as the model's input, in problems of
    ``batch`` (``{"X": ...}``, the last padded with the zero point)."""
    x = reference.quantize(samples, model.x)
    pad = -len(x) % batch
    x = np.concatenate([x, np.full((pad, x.shape[1]), model.x.zero, np.int64)])
    return [{"X": x[k:k + batch]} for k in range(0, len(x), batch)]
