"""Where integers and floats meet in a task body: the type of an expression, float arithmetic
and comparisons (``FloatOp``), and the conversions (``Convert``) a store or a mixed operation
implies.

Integer expressions stay untyped, as before: they are wrapped to the type they are stored in.
A float expression has a format, taken from the local, tensor, stream or array it reads. A
Python float literal takes the format of the other operand or of the place it is stored in.
Mixing formats widens to the larger one (float32 over bfloat16 and float16); an integer meeting
a float is converted to the float's format, as in C and Allo.
"""
import ast
from dataclasses import dataclass

from ..ir import floats
from ..ir.graph import ArrayRead, Const, Convert, FloatOp, Get, Read, Select, VarRef
from ..ir.types import FloatType, float32

FLOAT_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


@dataclass(frozen=True)
class Literal:
    """A Python float constant, before it meets the format it is used in (frontend only)."""
    value: float


def _wider(a, b):
    if a is None or a == b:
        return b
    if b is None:
        return a
    return a if a.bits > b.bits else b if b.bits > a.bits else float32


class NumericLowerer:
    """The float side of a task body's expressions (``exprs.ExprLowerer`` calls it); the types
    of locals, tensors, arrays and streams come from the task's ``context.TaskContext``."""

    def __init__(self, ctx):
        self.ctx = ctx

    def ftype(self, e):
        """The float format of IR expression ``e``, or None for an integer (or a Literal)."""
        if isinstance(e, VarRef):
            t = self.ctx.vars[e.name]
        elif isinstance(e, Read):
            t = next(t.dtype for t in self.ctx.tensors.values() if t.name == e.tensor)
        elif isinstance(e, Get):
            t = self.ctx.channels[e.channel].dtype
        elif isinstance(e, ArrayRead):
            t = self.ctx.arrays[e.array].dtype
        elif isinstance(e, FloatOp):
            t = None if e.op in floats.COMPARE else e.fmt
        elif isinstance(e, Convert):
            t = e.dst
        elif isinstance(e, Select):
            t = _wider(self.ftype(e.a), self.ftype(e.b))
        else:
            t = None
        return t if isinstance(t, FloatType) else None

    def is_float(self, e):
        return isinstance(e, Literal) or self.ftype(e) is not None

    def float_binary(self, op, lhs, rhs, node):
        """``lhs op rhs`` where one side is a float: both sides in the wider format."""
        if op not in floats.ARITH and op not in floats.COMPARE:
            self.ctx.error(f"`{ast.unparse(node)}`: this operator is not defined on float values; "
                           "floats take + - * / and comparisons", node)
        if isinstance(lhs, Literal) and isinstance(rhs, Literal):
            if op in floats.COMPARE:
                return Const(int(floats.COMPARE[op](lhs.value, rhs.value)))
            return Literal(float(floats.ARITH[op](lhs.value, rhs.value)))
        fmt = _wider(self.ftype(lhs), self.ftype(rhs)) or float32     # an int and a literal
        return FloatOp(op, self.to_type(lhs, fmt, node), self.to_type(rhs, fmt, node), fmt)

    def common(self, a, b, node):
        """``a`` and ``b`` in one type where either is a float (the two sides of a select)."""
        if not (self.is_float(a) or self.is_float(b)):
            return a, b
        fmt = _wider(self.ftype(a), self.ftype(b)) or float32
        return self.to_type(a, fmt, node), self.to_type(b, fmt, node)

    def float_unary(self, kind, e):
        """``-e`` or ``abs(e)`` of a float: the sign bit flipped or cleared."""
        if isinstance(e, Literal):
            return Literal(-e.value if kind == "neg" else abs(e.value))
        return FloatOp(kind, e, None, self.ftype(e))

    def to_type(self, e, dtype, node):
        """``e`` as a value of ``dtype``: float literals encoded, integers and other formats
        converted; a float stored in an integer is truncated toward zero (``Convert``)."""
        src = self.ftype(e)
        if isinstance(e, Literal):
            if isinstance(dtype, FloatType):
                return Const(floats.encode(e.value, dtype))
            if not float(e.value).is_integer():
                self.ctx.error(f"the float constant {e.value!r} is used as an integer "
                               f"({dtype.name}); write an integer, or declare the value as a float "
                               "type such as float32", node)
            return Const(int(e.value))
        if src == dtype or (src is None and not isinstance(dtype, FloatType)):
            return e
        if isinstance(e, Const) and src is None:
            return Const(floats.convert(e.value, None, dtype))
        return Convert(e, src, dtype)

    def concrete(self, e, node):
        """``e`` where no format decides a literal's (a comparison with an integer, a run-time
        condition): an integer literal becomes a Const; any other is an error."""
        if not isinstance(e, Literal):
            return e
        if not float(e.value).is_integer():
            self.ctx.error(f"the float constant {e.value!r} needs a float operand here; compare or "
                           "combine it with a float value", node)
        return Const(int(e.value))
