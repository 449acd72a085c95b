"""A quantized network as hwgen computes it: typed layers on 8-bit tensors, each with the
quantization parameters (scale, zero point) of what it reads and writes.

``onnx_import`` builds these from an ONNX model; ``reference`` computes them as onnxruntime
does, bit for bit; ``program`` writes them as a hwgen program.
"""
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Quant:
    """A quantized tensor's parameters: real value = (q - zero) * scale, q in ``dtype``."""
    scale: float                 # a float32 value
    zero: int
    dtype: str                   # "int8" or "uint8"

    @property
    def bounds(self):
        return (-128, 127) if self.dtype == "int8" else (0, 255)


@dataclass(frozen=True, eq=False)
class Dense:
    """y = requantize(sum_k (x[k] - x.zero) * (w[k, n] - w_zero[n]) + bias[n]), as
    ``QLinearMatMul`` (no bias) and ``QGemm`` compute it: the multiplier x.scale * w_scale[n]
    / y.scale in float32."""
    node: str
    weight: np.ndarray           # [K, N] int8 or uint8
    w_scale: np.ndarray          # [N] float32 (a per-tensor scale repeated)
    w_zero: np.ndarray           # [N] int32
    bias: np.ndarray             # [N] int32 (zeros without one)
    x: Quant
    y: Quant

    @property
    def shape(self):
        return self.weight.shape

    @property
    def input(self):
        return (self.shape[0],)

    @property
    def output(self):
        return (self.shape[1],)

    @property
    def rows(self):
        """The weights less their zero points, a row per output: [N, K] int64."""
        return self.weight.astype(np.int64).T - self.w_zero[:, None]

    @property
    def clocks(self):
        return self.shape[0] * self.shape[1]

    @property
    def text(self):
        return f"MatMul {self.shape[0]} -> {self.shape[1]}"


def _window_count(size, kernel, stride):
    return (size - kernel) // stride + 1


class _Window:
    """The shapes of a layer that slides a ``kernel`` over (C, H, W) images (``input``) with
    ``stride`` and ``pads`` (top, left, bottom, right), giving ``channels`` outputs at each
    position; ``op`` names it."""

    @property
    def padded(self):
        (c, h, w), (top, left, bottom, right) = self.input, self.pads
        return (c, h + top + bottom, w + left + right)

    @property
    def channels(self):
        return self.input[0]

    @property
    def output(self):
        (_, h, w), (kh, kw), (sh, sw) = self.padded, self.kernel, self.stride
        return (self.channels, _window_count(h, kh, sh), _window_count(w, kw, sw))

    @property
    def shape(self):
        return (int(np.prod(self.input)), int(np.prod(self.output)))

    @property
    def text(self):
        return f"{self.op} {_dims(self.kernel)} {_dims(self.input)} -> {_dims(self.output)}"


def _dims(dims):
    return "x".join(str(d) for d in dims)


@dataclass(frozen=True, eq=False)
class Conv(_Window):
    """``QLinearConv`` without dilation or groups: output channel f at (p, q) is
    requantize(sum over c, i, j of (x[c, p*sh + i, q*sw + j] - x.zero) * (w[f, c, i, j]
    - w_zero[f]) + bias[f]) on the padded image, the multiplier as ``Dense``'s."""
    node: str
    weight: np.ndarray           # [F, C, KH, KW] int8 or uint8
    w_scale: np.ndarray          # [F] float32
    w_zero: np.ndarray           # [F] int32
    bias: np.ndarray             # [F] int32
    x: Quant
    y: Quant
    input: tuple                 # (C, H, W)
    stride: tuple                # (sh, sw)
    pads: tuple = (0, 0, 0, 0)   # top, left, bottom, right: the input's zero point there
    op = "Conv"

    @property
    def kernel(self):
        return self.weight.shape[2:]

    @property
    def channels(self):
        return self.weight.shape[0]

    @property
    def rows(self):
        """The weights less their zero points, a row per output channel: [F, C*KH*KW]."""
        return self.weight.reshape(len(self.weight), -1).astype(np.int64) - self.w_zero[:, None]

    @property
    def clocks(self):
        return self.shape[1] * self.rows.shape[1]


@dataclass(frozen=True, eq=False)
class MaxPool(_Window):
    """``MaxPool`` without dilation on 8-bit values: y has x's quantization."""
    node: str
    x: Quant
    input: tuple                 # (C, H, W)
    kernel: tuple                # (KH, KW)
    stride: tuple                # (sh, sw)
    pads: tuple = (0, 0, 0, 0)   # top, left, bottom, right: ignored (the type's lowest there)
    op = "MaxPool"

    @property
    def y(self):
        return self.x

    @property
    def clocks(self):
        return self.shape[0] + self.shape[1] * int(np.prod(self.kernel))


@dataclass(frozen=True, eq=False)
class AveragePool(_Window):
    """``QLinearAveragePool`` without padding, as onnxruntime computes it: each window's
    values dequantized, added in float32 row by row, divided by their count, divided by y's
    scale, y's zero point added, rounded to nearest even and saturated (a window of the whole
    image: ``whole``)."""
    node: str
    x: Quant
    y: Quant
    input: tuple                 # (C, H, W)
    kernel: tuple                # (KH, KW)
    stride: tuple                # (sh, sw)
    pads = (0, 0, 0, 0)
    op = "AveragePool"

    @property
    def whole(self):
        """Whether the window is the whole image: onnxruntime then sums in integers and
        requantizes by x.scale / (y.scale * count) (its global average)."""
        return tuple(self.kernel) == tuple(self.input[1:])

    @property
    def clocks(self):
        return self.shape[0] + self.shape[1] * (int(np.prod(self.kernel)) if self.whole else 1)


@dataclass(frozen=True, eq=False)
class AddConst:
    """y = x + c for a constant vector c, each with its own quantization: as
    ``QLinearAdd`` computes it (``float_path`` False; ``const_first``: c is its first input),
    or as dequantize, float add, quantize (an ``Add`` between ``DequantizeLinear`` and
    ``QuantizeLinear``, ``float_path`` True)."""
    node: str
    const: np.ndarray            # [N] int8 or uint8
    x: Quant
    c: Quant
    y: Quant
    float_path: bool
    const_first: bool = False

    @property
    def shape(self):
        return (len(self.const), len(self.const))

    @property
    def input(self):
        return (len(self.const),)

    output = input
    clocks = 0

    @property
    def text(self):
        return f"+ constant ({len(self.const)})"


@dataclass(frozen=True)
class Model:
    """A chain of layers from one quantized input to one quantized output. The host quantizes
    ``input`` (float) to ``layers[0]``'s x and dequantizes the last layer's y to ``output``."""
    name: str
    input: str
    output: str
    features: int                # elements of one sample's input
    input_shape: tuple           # one sample's input as the model takes it, (features,) or more
    layers: tuple = field(default_factory=tuple)

    @property
    def x(self):
        return self.layers[0].x

    @property
    def y(self):
        return self.layers[-1].y

    @property
    def outputs(self):
        return self.layers[-1].shape[1]
