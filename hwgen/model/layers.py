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


@dataclass(frozen=True)
class Model:
    """A chain of layers from one quantized input to one quantized output. The host quantizes
    ``input`` (float) to ``layers[0]``'s x and dequantizes the last layer's y to ``output``."""
    name: str
    input: str
    output: str
    features: int                # elements of one sample's input
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
