"""Element types, tensor types and layouts: the vocabulary of the task graph.

``int8[M, K]`` builds a tensor type; ``int8[M, K] @ [S(0), R]`` adds a layout that shards
dimension 0 over grid axis 0 and replicates dimension 1.
"""
import dataclasses
from dataclasses import dataclass

from ..errors import HwgenError


@dataclass(frozen=True)
class IntType:
    """A two's-complement (``signed``) or unsigned integer of ``bits`` bits."""
    bits: int
    signed: bool

    @property
    def name(self):
        return f"{'int' if self.signed else 'uint'}{self.bits}"

    @property
    def min(self):
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self):
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def wrap(self, value):
        """``value`` reduced to this type, as hardware truncation does."""
        value &= (1 << self.bits) - 1
        if self.signed and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value

    def __getitem__(self, shape):
        shape = shape if isinstance(shape, tuple) else (shape,)
        return TensorType(self, tuple(shape))

    def __repr__(self):
        return self.name


@dataclass(frozen=True, repr=False)
class FloatType(IntType):
    """IEEE-754 binary floating point: 1 sign, ``exp`` exponent and ``man`` fraction bits.
    A float value is held as its bit pattern, an unsigned integer of ``bits`` bits
    (``ir.floats`` defines the arithmetic on it)."""
    exp: int = 8
    man: int = 23
    label: str = "float32"

    @property
    def name(self):
        return self.label


def _float(label, exp, man):
    return FloatType(1 + exp + man, False, exp, man, label)


float32, bfloat16, float16 = (_float("float32", 8, 23), _float("bfloat16", 8, 7),
                              _float("float16", 5, 10))


@dataclass(frozen=True)
class Sharded:
    """A tensor dimension split over grid axis ``axis``: one bank per shard. Blocks of
    consecutive indices; ``cyclic``: index ``i`` in shard ``i % P`` (a grid folded onto ``P``
    positions on that axis runs indices ``p, p + P, ...`` on position ``p``)."""
    axis: int
    cyclic: bool = False

    def __repr__(self):
        return f"S({self.axis}{', cyclic' if self.cyclic else ''})"


class _Replicated:
    """A tensor dimension every task instance sees whole."""

    def __repr__(self):
        return "R"


S = Sharded
R = _Replicated()


@dataclass(frozen=True)
class TensorType:
    """An element type, a shape and (optionally) a layout with one entry per dimension;
    ``resident``: an input the host loads once for many problems (`resident`)."""
    dtype: IntType
    shape: tuple
    layout: tuple = None
    resident: bool = False

    def __matmul__(self, layout):
        layout = tuple(layout) if isinstance(layout, (list, tuple)) else (layout,)
        return TensorType(self.dtype, self.shape, layout, self.resident)

    def __repr__(self):
        text = f"{self.dtype.name}{list(self.shape)}"
        text += f" @ {list(self.layout)}" if self.layout else ""
        return f"resident({text})" if self.resident else text


def resident(ttype):
    """``W: resident(int8[H, N])``: an input tensor that stays on chip. The host loads it once
    (``Accelerator.load``) and every problem after reads it, until the host loads it again;
    problems send only the other inputs. Tasks only read it."""
    if not isinstance(ttype, TensorType):
        raise HwgenError(f"resident() takes a tensor type such as int8[H, N], not {ttype!r}")
    return dataclasses.replace(ttype, resident=True)


@dataclass(frozen=True)
class StreamType:
    """A FIFO channel carrying ``dtype`` with room for ``depth`` elements. A stream of blocks
    (``Stream[int16[4, 4], 2]``) carries each block packed into one element: ``block`` is the
    block's type and ``dtype`` the packed word (element 0 in the low bits, row-major).
    A stream with a ``bound`` (``Stream[int8, 4, 256]``) is closed: its producer puts up to
    ``bound`` values per problem, as many as the data decide, and then ``close()``s it; its
    consumer reads it with ``for v in s:`` until the close."""
    dtype: IntType
    depth: int
    shape: tuple = ()
    block: TensorType = None
    bound: int = None

    def __getitem__(self, shape):
        shape = shape if isinstance(shape, tuple) else (shape,)
        return dataclasses.replace(self, shape=tuple(shape))

    def packed(self):
        """This type with a block element type replaced by its packed word."""
        if not isinstance(self.dtype, TensorType):
            return self
        n = 1
        for d in self.dtype.shape:
            n *= d
        return StreamType(IntType(n * self.dtype.dtype.bits, False), self.depth, self.shape,
                          self.dtype, self.bound)


class _StreamFactory:
    """``Stream[int8, 2]`` is a stream type; ``Stream[int8, 2][P0, P1]`` an array of them;
    ``Stream[int8, 2, 256]`` a closed stream of at most 256 values per problem."""

    def __getitem__(self, args):
        args = args if isinstance(args, tuple) else (args,)
        if len(args) > 3:
            raise HwgenError(f"Stream takes an element type, a depth and a bound, as "
                             f"Stream[int8, 4, 256]; got {len(args)} arguments")
        dtype, depth, bound = (args + (2, None)[len(args) - 1:])[:3]
        return StreamType(dtype, depth, bound=bound)


Stream = _StreamFactory()


def _int(bits, signed):
    return IntType(bits, signed)


int1, int2, int4, int8, int16, int32, int64 = (_int(b, True) for b in (1, 2, 4, 8, 16, 32, 64))
uint1, uint2, uint4, uint8, uint16, uint32, uint64 = (_int(b, False) for b in (1, 2, 4, 8, 16, 32, 64))


def Int(bits):
    """A signed integer type of any width."""
    return IntType(bits, True)


def UInt(bits):
    """An unsigned integer type of any width."""
    return IntType(bits, False)
