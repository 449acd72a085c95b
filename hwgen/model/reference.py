"""A ``layers.Model`` computed in numpy as onnxruntime's CPU kernels compute it, bit for bit:
float32 arithmetic in their order, round to nearest even, clamps where they clamp."""
from weakref import WeakKeyDictionary

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .layers import AddConst, AveragePool, Conv, Dense, MaxPool

_F = np.float32
_TABLES = WeakKeyDictionary()        # AddConst layer -> its add_table


def quantize(values, q):
    """``QuantizeLinear``: values / scale, rounded to nearest even, plus the zero point,
    saturated to the type."""
    lo, hi = q.bounds
    scaled = np.asarray(values, _F) / _F(q.scale)
    return np.clip(np.rint(scaled) + q.zero, lo, hi).astype(np.int64)


def dequantize(values, q):
    """``DequantizeLinear``: (q - zero) in integers, times scale in float32."""
    return (np.asarray(values, np.int64) - q.zero).astype(_F) * _F(q.scale)


def requantize(values, multiplier, q):
    """An integer sum to ``q``'s type: float32(sum) * multiplier, clamped in floats to the
    type's range less the zero point, rounded to nearest even, plus the zero point."""
    lo, hi = q.bounds
    scaled = np.asarray(values).astype(_F) * np.asarray(multiplier, _F)
    scaled = np.minimum(np.maximum(scaled, _F(lo - q.zero)), _F(hi - q.zero))
    return np.rint(scaled).astype(np.int64) + q.zero


def multiplier(layer):
    """A ``Dense`` layer's requantization multiplier per output: x.scale * w_scale / y.scale
    in float32."""
    return (_F(layer.x.scale) * layer.w_scale.astype(_F)) / _F(layer.y.scale)


def dense(layer, x):
    acc = (np.asarray(x, np.int64) - layer.x.zero) @ layer.rows.T + layer.bias
    return requantize(acc, multiplier(layer), layer.y)


def _windows(layer, x, fill):
    """The windows of ``layer`` (``Conv``, ``MaxPool``) on flat samples ``x`` padded with
    ``fill``: [samples, C, OH, OW, KH, KW]."""
    (c, h, w), (sh, sw), (top, left, bottom, right) = layer.input, layer.stride, layer.pads
    images = np.pad(np.asarray(x, np.int64).reshape(-1, c, h, w),
                    ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=fill)
    return sliding_window_view(images, tuple(layer.kernel), axis=(2, 3))[:, :, ::sh, ::sw]


def conv(layer, x):
    windows = _windows(layer, np.asarray(x, np.int64) - layer.x.zero, 0)
    count, _, oh, ow = windows.shape[:4]
    patches = windows.transpose(0, 2, 3, 1, 4, 5).reshape(count, oh * ow, -1)
    acc = patches @ layer.rows.T + layer.bias                     # [samples, OH*OW, F]
    return requantize(acc, multiplier(layer), layer.y).transpose(0, 2, 1).reshape(count, -1)


def max_pool(layer, x):
    windows = _windows(layer, x, layer.x.bounds[0])
    return windows.max(axis=(4, 5)).reshape(len(windows), -1)


def _fma(a, b, c):
    """a * b + c of float32 arrays rounded once to float32, as the FMA instruction does: the
    product is exact in float64, the sum exact as float64 ``s + err`` (Knuth's two-sum), and
    ``s`` rounds to the float32 that ``s + err`` rounds to unless ``s`` lies halfway between
    two float32 values, where ``err`` decides."""
    p = np.asarray(a, _F).astype(np.float64) * np.asarray(b, _F).astype(np.float64)
    c = np.asarray(c, _F).astype(np.float64)
    s = p + c
    back = s - p
    err = (p - (s - back)) + (c - back)
    r = s.astype(_F)
    d = s - r.astype(np.float64)
    other = np.nextafter(r, np.where(d > 0, _F(np.inf), _F(-np.inf)))
    halfway = (d != 0) & (np.abs(other.astype(np.float64) - r) == 2 * np.abs(d))
    return np.where(halfway & (np.sign(err) == np.sign(d)), other, r)


def _qlinear_add(layer, a, b):
    """``QLinearAdd`` of quantized values ``a`` (first input) and ``b`` as onnxruntime's AVX2
    kernel computes it: ratios of the scales to the output's, the zero points folded into a
    constant, two fused multiply-adds, round to nearest even, saturate."""
    qa, qb = (layer.c, layer.x) if layer.const_first else (layer.x, layer.c)
    ra, rb = _F(qa.scale) / _F(layer.y.scale), _F(qb.scale) / _F(layer.y.scale)
    fixed = _F(layer.y.zero) - _fma(ra, _F(qa.zero), rb * _F(qb.zero))
    t = _fma(np.asarray(a, _F), ra, _fma(np.asarray(b, _F), rb, fixed))
    lo, hi = layer.y.bounds
    return np.clip(np.rint(t), lo, hi).astype(np.int64)


def add_table(layer):
    """Every output of an ``AddConst`` layer: ``[N, 256]``, row n for the constant's element
    n, column v for the input ``v + lowest`` of its type (computed once a layer)."""
    if layer not in _TABLES:
        _TABLES[layer] = _add_table(layer)
    return _TABLES[layer]


def _add_table(layer):
    lo, hi = layer.x.bounds
    values = np.arange(lo, hi + 1)[None, :]
    const = layer.const.astype(np.int64)[:, None]
    if layer.float_path:
        return quantize(dequantize(values, layer.x) + dequantize(const, layer.c), layer.y)
    if layer.const_first:
        return _qlinear_add(layer, const, values)
    return _qlinear_add(layer, values, const)


def add_const(layer, x):
    x = np.asarray(x, np.int64)
    return add_table(layer)[np.arange(x.shape[-1]), x - layer.x.bounds[0]]


def average_scale(layer):
    """The multiplier of a whole-image ``AveragePool``: x.scale / (y.scale * count)."""
    return _F(layer.x.scale) / (_F(layer.y.scale) * _F(np.prod(layer.kernel)))


def average_pool(layer, x):
    """onnxruntime's ``QLinearAveragePool``: float32 throughout, the window's values added in
    row-major order from 0; over the whole image, an integer sum requantized."""
    if layer.whole:
        acc = np.asarray(x, np.int64).reshape(len(x), layer.input[0], -1) - layer.x.zero
        return requantize(acc.sum(axis=2), average_scale(layer), layer.y)
    windows = dequantize(_windows(layer, x, layer.x.zero), layer.x)
    count, c, oh, ow = windows.shape[:4]
    total = np.zeros((count, c, oh, ow), _F)
    for value in windows.reshape(count, c, oh, ow, -1).transpose(4, 0, 1, 2, 3):
        total = total + value
    y = total / _F(windows.shape[4] * windows.shape[5]) / _F(layer.y.scale) + _F(layer.y.zero)
    lo, hi = layer.y.bounds
    return np.clip(np.rint(y), lo, hi).astype(np.int64).reshape(count, -1)


_COMPUTE = {Dense: dense, Conv: conv, MaxPool: max_pool, AveragePool: average_pool,
            AddConst: add_const}


def run(model, x):
    """Every layer's output for the quantized inputs ``x`` (samples x features)."""
    outs = []
    for layer in model.layers:
        x = _COMPUTE[type(layer)](layer, x)
        outs.append(x)
    return outs

