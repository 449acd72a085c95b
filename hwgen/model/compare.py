"""A model's hwgen program against onnxruntime: the same samples through onnxruntime, through
hwgen's interpreter and through the generated RTL in Amaranth's simulator (random input gaps
and output back-pressure), every output integer and float compared."""
import os
from dataclasses import dataclass

import numpy as np

from ..errors import HwgenError
from . import reference
from .host import problems


@dataclass(frozen=True)
class Samples:
    """Float inputs (samples x features), and their labels where known."""
    inputs: np.ndarray
    labels: np.ndarray = None

    def first(self, count):
        """The first ``count`` samples (all of them for None)."""
        return Samples(self.inputs[:count],
                       None if self.labels is None else self.labels[:count])


@dataclass(frozen=True)
class Agreement:
    """How ``samples`` outputs of one run compare with onnxruntime's: ``integers`` and
    ``floats`` count the samples whose quantized (dequantized) outputs equal it, bit for bit;
    ``accuracy``: the share whose argmax is the label (None without labels)."""
    where: str
    samples: int
    integers: int
    floats: int
    accuracy: float = None

    @property
    def exact(self):
        return self.integers == self.floats == self.samples

    def line(self):
        acc = "" if self.accuracy is None else f", accuracy {self.accuracy:.3f}"
        verdict = "every output equals onnxruntime's" if self.exact else \
            f"{self.samples - min(self.integers, self.floats)} differ from onnxruntime's"
        return f"{self.where}: {self.samples} samples, {verdict}{acc}"


def load_samples(model, data=None, count=None, seed=0):
    """``Samples`` from the ``.npz`` at ``data`` (an array named after the model's input, first
    axis the samples; ``labels`` optional), or ``count`` random ones in the input's range."""
    if data is None:
        lo, hi = (np.float32(v - model.x.zero) * np.float32(model.x.scale)
                  for v in model.x.bounds)
        rng = np.random.default_rng(seed)
        return Samples(rng.uniform(lo, hi, (count or 100, model.features)).astype(np.float32))
    if not os.path.isfile(data):
        raise HwgenError(f"data file {data!r} not found")
    try:
        arrays = np.load(data)
    except (OSError, ValueError) as e:
        raise HwgenError(f"{data} is not an .npz of arrays ({e})") from None
    if not isinstance(arrays, np.lib.npyio.NpzFile):
        raise HwgenError(f"{data} holds one array, not an .npz of arrays named after the "
                         f"model's inputs: np.savez(path, {model.input}=samples)")
    with arrays:
        found = dict(arrays)
    if model.input not in found:
        raise HwgenError(f"{data} has no array {model.input!r} (the model's input); it has "
                         f"{sorted(found) or 'none'}")
    inputs = np.asarray(found[model.input], np.float32)
    inputs = inputs.reshape(len(inputs), -1) if inputs.ndim else inputs
    if inputs.ndim != 2 or inputs.shape[1] != model.features:
        raise HwgenError(f"{data}: {model.input!r} has shape {list(found[model.input].shape)}; "
                         f"the model takes (samples, {model.features})")
    labels = found.get("labels")
    if labels is not None and len(labels) != len(inputs):
        raise HwgenError(f"{data}: {len(labels)} labels for {len(inputs)} samples")
    return Samples(inputs, None if labels is None else np.asarray(labels)).first(count)


def onnxruntime_outputs(path, model, samples):
    """onnxruntime's float outputs for ``samples`` (its default session options)."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    inputs = samples.inputs.reshape(len(samples.inputs), *model.input_shape)
    out = session.run(None, {model.input: inputs})[0]
    return np.asarray(out, np.float32).reshape(len(samples.inputs), -1)


def agreement(where, model, samples, got, want):
    """An ``Agreement`` of quantized outputs ``got`` (samples x outputs) with onnxruntime's
    float outputs ``want``."""
    got = np.asarray(got, np.int64)
    floats = reference.dequantize(got, model.y)
    integers = reference.quantize(want, model.y)
    accuracy = None
    if samples.labels is not None:
        accuracy = float(np.mean(got.argmax(axis=1) == samples.labels[:len(got)]))
    return Agreement(where, len(got), int(np.sum(np.all(got == integers, axis=1))),
                     int(np.sum(np.all(floats.view(np.int32) == want.view(np.int32), axis=1))),
                     accuracy)


def interpreted(graph, model, samples, batch, progress=False):
    """The program's quantized outputs for ``samples`` in hwgen's interpreter (``progress``:
    a bar of the problems on stderr)."""
    from tqdm import tqdm

    from ..ir.interp import run
    bar = tqdm(problems(model, samples.inputs, batch), "interpreter", unit="problem",
               disable=not progress, leave=False)
    outs = [run(graph, problem)["Y"] for problem in bar]
    return np.concatenate(outs)[:len(samples.inputs)]


def simulated(built, model, samples, batch, seed=0):
    """The program's quantized outputs for ``samples`` from its RTL (``Top`` of the plan
    ``built``) in Amaranth's simulator, inputs with random gaps and outputs with random
    back-pressure, problems back to back."""
    from ..rtl.simhelpers import run_top
    from ..rtl.top import Top
    outs, _, _ = run_top(Top(built), problems(model, samples.inputs, batch), in_gap=0.3,
                         out_gap=0.3, seed=seed)
    return np.concatenate([o["Y"] for o in outs])[:len(samples.inputs)]
