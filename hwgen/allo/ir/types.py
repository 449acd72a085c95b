"""Allo's ``allo.ir.types``: element types and ``Stream``, as hwgen's."""
from ...ir.types import (Int, Stream, UInt, bfloat16, float16, float32,  # noqa: F401
                         int1, int2, int4, int8, int16, int32, int64, uint1, uint8, uint16, uint32,
                         uint64)

bool = uint1            # noqa: A001 -- Allo's name for a one-bit value
int128, uint128 = Int(128), UInt(128)   # as wide as Allo's packed words
index = int32           # loop indices and address arithmetic, as Allo's `index`


class _ConstExpr:
    """Allo's compile-time constant annotation, ``x: ConstExpr[int32] = M // P0``: the type
    itself; hwgen folds constants on its own."""

    def __getitem__(self, dtype):
        return dtype

    def __call__(self, dtype):
        return dtype


ConstExpr = _ConstExpr()
