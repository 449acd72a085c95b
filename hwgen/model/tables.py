"""What each layer of a ``layers.Model`` keeps on chip, and the number types of its program:
weights, sums and multipliers of a ``Dense`` or ``Conv`` layer, the lookup of an
``AddConst``, and how many multiply-accumulates a clock the first layer can do.
"""
import numpy as np

from ..errors import HwgenError
from .layers import Conv, Dense
from .reference import add_table, multiplier


def dense_tables(layer):
    """(weights [N, K] less their zero point, sums less the input's zero point times the
    weights [N], multipliers [N] float32) of a ``Dense`` or ``Conv`` layer (N its outputs or
    output channels, K the terms of each)."""
    w = layer.rows
    bias = layer.bias.astype(np.int64) - layer.x.zero * w.sum(axis=1)
    if np.abs(bias).max(initial=0) >= 2 ** 31:
        raise HwgenError(f"node {layer.node}: its folded bias does not fit int32")
    return w, bias, multiplier(layer)


def weighted(layer):
    """Whether ``layer`` has weights (a ``Dense`` or ``Conv`` layer)."""
    return isinstance(layer, (Dense, Conv))


def table_bytes(layer):
    """Bytes of a ``Dense`` or ``Conv`` layer's tables, each element at its width in the
    program."""
    w, c, m = dense_tables(layer)
    return w.size * -(-max(8, bits(w)) // 8) + c.size * -(-bits(c) // 8) + 4 * m.size


def lookup_table(layer):
    """An ``AddConst`` layer's outputs by constant element and input value
    (``reference.add_table``), at least two rows: a read-only table (more than 256 elements)."""
    table = add_table(layer)
    return np.concatenate([table, table[:2 - len(table)]]) if len(table) < 2 else table


def unrolls(layer):
    """The multiply-accumulates a clock the first layer can do (``U0``): a divisor of a
    ``Dense`` layer's inputs; for a ``Conv`` layer a divisor of its kernel's width, or the
    width times a divisor of its height; 1 for a pooling layer."""
    def divisors(n):
        return [d for d in range(1, n + 1) if n % d == 0]
    if isinstance(layer, Dense):
        return divisors(layer.shape[0])
    if isinstance(layer, Conv):
        kh, kw = layer.kernel
        return divisors(kw) + [kw * d for d in divisors(kh)[1:]]
    return [1]


def unrolls_text(layer):
    return (f"a divisor of its {layer.shape[0]} inputs" if isinstance(layer, Dense) else
            "one of " + ", ".join(map(str, unrolls(layer))))


def bits(values):
    """Bits of the narrowest signed type that holds ``values``."""
    top = max(int(np.max(values)), -int(np.min(values)) - 1, 1)
    return top.bit_length() + 1


def type_name(bits):
    return f"int{bits}" if bits in (8, 16, 32) else f"Int({bits})"


def sum_bits(layer, w_bits, c_bits):
    """Bits of a signed sum that holds a bias of ``c_bits`` plus K products of a
    ``w_bits`` weight and an input of the layer's type (what hwgen's width check assumes);
    the sum must fit int32, as onnxruntime's does."""
    k = layer.rows.shape[1]
    x_top = 255 if layer.x.dtype == "uint8" else 128
    top = (1 << c_bits - 1) + k * (1 << w_bits - 1) * x_top
    if top > 1 << 31:
        raise HwgenError(f"node {layer.node}: its sums can reach {top:,}, beyond the int32 "
                         "that onnxruntime accumulates in")
    return top.bit_length() + 1
