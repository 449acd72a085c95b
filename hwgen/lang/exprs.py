"""Expressions of a task body: Python AST -> IR expressions, specialised to one grid position.

Names resolve, in order, to loop variables, run-time locals, local arrays, compile-time
constants of the task (grid indices, ``meta_for`` variables, constant locals) and finally the
scope that defined the region (sizes, types). Anything built only from constants folds to a
``Const``, which is how branches on grid indices become compile-time decisions.
"""
import ast
import inspect
import warnings

from ..errors import HwgenWarning
from ..ir.graph import (BINARY, ArrayRead, BinOp, Const, FloatOp, Get, LoopIndex, More, Neg,
                        Read, Select, Slice, VarRef, subexprs)
from ..ir.layout import TensorView, index_bounds
from ..ir.types import float32
from . import slices
from .numeric import FLOAT_OPS, Literal
from .row_major import row_major

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|",
          ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.FloorDiv: "//", ast.Mod: "%"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
CONSTRUCT_NAMES = {ast.While: "while loop", ast.Return: "return", ast.Break: "break",
                   ast.Continue: "continue", ast.Try: "try", ast.With: "with",
                   ast.FunctionDef: "nested function", ast.Lambda: "lambda",
                   ast.ListComp: "list comprehension", ast.Dict: "dict", ast.List: "list",
                   ast.Raise: "raise", ast.Global: "global", ast.Nonlocal: "nonlocal",
                   ast.Delete: "del", ast.Import: "import", ast.ImportFrom: "import",
                   ast.ClassDef: "class", ast.Assert: "assert",
                   ast.GeneratorExp: "generator expression"}
# What to write instead, where the construct names alone do not say it.
LIST_HINT = "; instead of a list comprehension, accumulate in a loop: `acc: int32 = 0` then " \
    "`for k in range(N): acc += ...`, or keep values in a local array `buf: int8[N]`"
CONSTRUCT_HINTS = {ast.ListComp: LIST_HINT, ast.GeneratorExp: LIST_HINT,
                   ast.List: "; keep several values in a local array: `buf: int8[N]`"}


def is_call_to(node, name):
    """``node`` calls ``name`` or ``<anything>.name``."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == name) or \
           (isinstance(f, ast.Attribute) and f.attr == name)


class NotConst(Exception):
    """Raised while folding a compile-time expression that turns out to need run-time values."""


class ExprLowerer:
    """Lowers the expressions of a task body against the names of the task's
    ``context.TaskContext``; floats go to the ``task``'s ``numeric`` lowerer, helper calls to
    its ``helpers`` and the streams a get names to its ``streams`` (``body.TaskLowerer``)."""

    def __init__(self, ctx, task):
        self.ctx, self.task = ctx, task

    def const_value(self, node):
        """The value of a compile-time expression, or None if it depends on run-time values."""
        try:
            e = self.expr(node, const_only=True)
        except NotConst:
            return None
        return e.value if isinstance(e, Const) else None

    def var_ref(self, name, node):
        if name not in self.ctx.assigned:
            self.ctx.error(f"'{name}' is read before it is assigned", node)
        return VarRef(name)

    def expr(self, node, const_only=False):
        method = getattr(self, f"_expr_{type(node).__name__}", None)
        if method is None:
            name = CONSTRUCT_NAMES.get(type(node), type(node).__name__)
            self.ctx.error(f"unsupported Python construct in a task body: {name} "
                           f"(`{ast.unparse(node)}`){CONSTRUCT_HINTS.get(type(node), '')}", node)
        return method(node, const_only)

    def _expr_Constant(self, node, const_only):
        if isinstance(node.value, (bool, int)):
            return Const(int(node.value))
        if isinstance(node.value, float):
            if const_only:
                raise NotConst()
            return Literal(node.value)
        self.ctx.error(f"only integer constants are supported, got {node.value!r}", node)

    def _expr_Name(self, node, const_only):
        name = self.ctx.pid_alias.get(node.id, node.id)
        if self.ctx.inline_env and name in self.ctx.inline_env[-1]:
            value = self.ctx.inline_env[-1][name]
            if const_only and not isinstance(value, Const):
                raise NotConst()
            return value
        if name in self.ctx.loops:
            if const_only:
                raise NotConst()
            depth = self.ctx.loops.index(name)
            start, step = self.ctx.loop_values[depth]
            e = LoopIndex(depth)
            if step != 1:
                e = BinOp("*", Const(step), e)
            if start:
                e = BinOp("+", Const(start), e)
            return e
        if name in self.ctx.vars:
            if const_only:
                raise NotConst()
            return self.var_ref(name, node)
        if name in self.ctx.arrays:
            self.ctx.error(f"local array '{name}' must be indexed: `{name}[i]`", node)
        if name in self.ctx.consts:
            return Const(self.ctx.consts[name])
        if name in self.ctx.parser.ns:
            v = self.ctx.parser.ns[name]
            if isinstance(v, (bool, int)):
                return Const(int(v))
            if isinstance(v, float):
                if const_only:
                    raise NotConst()
                return Literal(v)
            self.ctx.error(f"'{name}' is a {type(v).__name__}, not a value usable here", node)
        self.ctx.error(f"unknown name '{name}'", node)

    def _expr_BinOp(self, node, const_only):
        op = BINOPS.get(type(node.op))
        lhs = self.expr(node.left, const_only)
        rhs = self.expr(node.right, const_only)
        num = self.task.numeric
        if num.is_float(lhs) or num.is_float(rhs):
            op = FLOAT_OPS.get(type(node.op), type(node.op).__name__)
            return num.float_binary(op, lhs, rhs, node)
        if isinstance(lhs, Const) and isinstance(rhs, Const) and op is not None and \
                not (op in ("//", "%") and rhs.value == 0):
            return Const(BINARY[op](lhs.value, rhs.value))
        if op is None:
            self.ctx.error(f"operator `{ast.unparse(node)}` is not supported on integer values",
                           node)
        if op in ("//", "%") and not (isinstance(rhs, Const) and rhs.value > 0):
            self.ctx.error(f"`{ast.unparse(node)}`: run-time values are divided only by a "
                           "positive compile-time constant (a size, a grid index expression)",
                           node)
        if op in ("<<", ">>") and not isinstance(rhs, Const):
            self.ctx.error("shift amounts must be compile-time constants", node)
        return BinOp(op, lhs, rhs)

    def _expr_UnaryOp(self, node, const_only):
        v = self.expr(node.operand, const_only)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.USub):
            if self.task.numeric.is_float(v):
                return self.task.numeric.float_unary("neg", v)
            return Const(-v.value) if isinstance(v, Const) else Neg(v)
        if isinstance(node.op, ast.Invert):
            return Const(~v.value) if isinstance(v, Const) else BinOp("-", Neg(v), Const(1))
        if isinstance(node.op, ast.Not):
            return Const(int(not v.value)) if isinstance(v, Const) else BinOp("==", v, Const(0))
        self.ctx.error(f"unsupported operator in `{ast.unparse(node)}`", node)

    def _expr_Compare(self, node, const_only):
        if len(node.ops) != 1:
            self.ctx.error("chained comparisons are not supported; write `a < b and b < c`",
                           node)
        if isinstance(node.ops[0], (ast.In, ast.NotIn)):
            return self.membership(node, const_only)
        op = _CMPOPS.get(type(node.ops[0]))
        if op is None:
            self.ctx.error(f"unsupported comparison in `{ast.unparse(node)}`", node)
        lhs = self.expr(node.left, const_only)
        rhs = self.expr(node.comparators[0], const_only)
        num = self.task.numeric
        if num.is_float(lhs) or num.is_float(rhs):
            return num.float_binary(op, lhs, rhs, node)
        if isinstance(lhs, Const) and isinstance(rhs, Const):
            return Const(BINARY[op](lhs.value, rhs.value))
        return BinOp(op, lhs, rhs)

    def membership(self, node, const_only):
        """``x in {a, b}`` (or a tuple or list; ``not in``): ``x == a or x == b``."""
        options = node.comparators[0]
        if not isinstance(options, (ast.Set, ast.Tuple, ast.List)):
            self.ctx.error(f"`{ast.unparse(node)}`: `in` takes a literal set, tuple or list of "
                           "values, like `i in {0, M - 1}`", node)
        x = self.expr(node.left, const_only)
        values = [self.expr(v, const_only) for v in options.elts]
        if isinstance(x, Const) and all(isinstance(v, Const) for v in values):
            found = any(x.value == v.value for v in values)
        else:
            self.no_side_effects(x, node, "`in`")
            found = Const(0)
            for v in values:
                found = BinOp("|", found, self.binary("==", x, v, node))
        negate = isinstance(node.ops[0], ast.NotIn)
        if isinstance(found, bool):
            return Const(int(found != negate))
        return BinOp("==", found, Const(0)) if negate else found

    def _expr_BoolOp(self, node, const_only):
        values = [self.expr(v, const_only) for v in node.values]
        if all(isinstance(v, Const) for v in values):
            result = all(v.value for v in values) if isinstance(node.op, ast.And) \
                else any(v.value for v in values)
            return Const(int(result))
        op = "&" if isinstance(node.op, ast.And) else "|"
        e = BinOp("!=", values[0], Const(0))
        for v in values[1:]:
            e = BinOp(op, e, BinOp("!=", v, Const(0)))
        return e

    def _expr_IfExp(self, node, const_only):
        cond = self.expr(node.test, const_only)
        if isinstance(cond, Const):
            return self.expr(node.body if cond.value else node.orelse, const_only)
        a, b = self.expr(node.body), self.expr(node.orelse)
        self.no_side_effects(a, node, "a conditional expression `x if c else y`")
        self.no_side_effects(b, node, "a conditional expression `x if c else y`")
        num = self.task.numeric
        return Select(num.concrete(cond, node), *num.common(a, b, node))

    def _expr_Subscript(self, node, const_only):
        base = node.value.id if isinstance(node.value, ast.Name) else None
        if base in self.ctx.tensors:
            if const_only:
                raise NotConst()
            tensor = self.ctx.tensors[base]
            tensor.use("read")
            return Read(tensor.name, self.tensor_index(base, tensor, node.slice, node),
                        loc=self.ctx.parser.loc(node))
        if base in self.ctx.arrays:
            if const_only:
                raise NotConst()
            index = self.index(base, self.ctx.arrays[base].shape, node.slice, node)
            return ArrayRead(base, index, loc=self.ctx.parser.loc(node))
        if base in self.ctx.vars:
            if const_only:
                raise NotConst()
            return Slice(self.var_ref(base, node), *self.slice_bounds(base, node))
        self.ctx.error(f"`{ast.unparse(node)}`: '{base}' is not a tensor, a local array or a "
                       "local", node)

    def _expr_Call(self, node, const_only):
        if is_call_to(node, "get") and isinstance(node.func, ast.Attribute):
            if const_only:
                raise NotConst()
            if node.args or node.keywords:
                self.ctx.error("get takes no arguments: `x = stream.get()`", node)
            chan = self.task.streams.channel(node.func.value, "get", node)
            if self.ctx.channels[chan].bound is None:
                self.task.streams.counted(chan, "get", node)
            return Get(chan, loc=self.ctx.parser.loc(node))
        if is_call_to(node, "more") and isinstance(node.func, ast.Attribute):
            if const_only:
                raise NotConst()
            chan = self.task.streams.channel(node.func.value, "get", node)
            if node.args or node.keywords or self.ctx.channels[chan].bound is None:
                self.ctx.error("`s.more()` takes no arguments and asks a closed stream "
                               "(Stream[int8, 4, 256]) whether another value comes before its "
                               "close", node)
            return More(chan, loc=self.ctx.parser.loc(node))
        if isinstance(node.func, ast.Name) and node.func.id in ("max", "min", "abs"):
            return self.builtin(node, const_only)
        if is_call_to(node, "exp"):
            return self.exp_call(node, const_only)
        fn = self.ctx.parser.ns.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if inspect.isfunction(fn):
            return self.task.helpers.helper_call(node, fn, const_only)
        hint = ""
        if any(isinstance(a, (ast.ListComp, ast.GeneratorExp)) for a in node.args):
            hint = LIST_HINT
        self.ctx.error(f"unsupported call `{ast.unparse(node)}` in a task body (supported: "
                       f"stream.get(), max, min, abs, exp and helper functions){hint}", node)

    def exp_call(self, node, const_only):
        """``exp(x)``: a float32 value (``ir.floats.exp``); other values are converted."""
        if const_only:
            raise NotConst()
        if node.keywords or len(node.args) != 1:
            self.ctx.error("use exp(x), x a float", node)
        x = self.expr(node.args[0], const_only)
        self.no_side_effects(x, node, "exp(...)")
        return FloatOp("exp", self.task.numeric.to_type(x, float32, node), None, float32)

    def builtin(self, node, const_only):
        """``max``/``min``/``abs`` of run-time values: comparisons and multiplexers."""
        fn = node.func.id
        if node.keywords or not node.args or (fn == "abs" and len(node.args) != 1) or \
                (fn != "abs" and len(node.args) < 2):
            self.ctx.error(f"use {fn}(a, b, ...)" if fn != "abs" else "use abs(x)", node)
        args = [self.expr(a, const_only) for a in node.args]
        for a in args:
            self.no_side_effects(a, node, f"{fn}(...)")
        if all(isinstance(a, Const) for a in args):
            return Const({"max": max, "min": min, "abs": abs}[fn](*(a.value for a in args)))
        num = self.task.numeric
        if fn == "abs":
            if num.is_float(args[0]):
                return num.float_unary("abs", args[0])
            return Select(BinOp("<", args[0], Const(0)), Neg(args[0]), args[0])
        result = args[0]
        for a in args[1:]:
            # compared before `common`, which encodes a float literal as its bit pattern
            larger = self.binary(">" if fn == "max" else "<", a, result, node)
            a, result = num.common(a, result, node)
            result = Select(larger, a, result)
        return result

    def binary(self, op, lhs, rhs, node):
        """The IR of ``lhs op rhs`` (``op`` as in ``BINARY``), float or integer."""
        num = self.task.numeric
        if num.is_float(lhs) or num.is_float(rhs):
            return num.float_binary(op, lhs, rhs, node)
        if op not in BINARY:
            self.ctx.error(f"operator `{op}` is not defined on integer values "
                           f"(`{ast.unparse(node)}`); divide integers with // by a constant",
                           node)
        return BinOp(op, lhs, rhs)

    def no_side_effects(self, e, node, where):
        if any(isinstance(x, Get) for x in subexprs(e)):
            self.ctx.error(f"a stream get inside {where} would be evaluated more or less often "
                           "than written; get the value into a local first", node)

    def slice_bounds(self, base, node):
        """``(start, stop, offset)`` of a bit slice of local ``base`` (``lang.slices``)."""
        return slices.bounds(self, base, node)

    def tensor_index(self, name, tensor, sl, node):
        """The index into ``tensor`` (or a shard view of it) of ``name[sl]``, ``name`` the
        tensor's name in the task (an Allo kernel's parameter); an Allo kernel's whole tensor
        is addressed row-major (``lang.row_major``)."""
        linear = any(k.arg == "args" for d in self.ctx.fn.decorator_list
                     if isinstance(d, ast.Call) for k in d.keywords) and \
            not isinstance(tensor, TensorView)
        return self.global_index(tensor, self.index(name, tensor.shape, sl, node, linear))

    def global_index(self, tensor, index):
        """``index`` into a shard view as an index into its whole tensor."""
        if not isinstance(tensor, TensorView):
            return index
        if self.ctx.fold:
            self.ctx.error(f"'{tensor.name}' is a shard of its tensor (`@ Layout`), which a "
                           "folded task cannot have yet; index the whole tensor", self.ctx.fn)
        return tuple(i if not off else Const(i.value + off) if isinstance(i, Const)
                     else BinOp("+", i, Const(off))
                     for i, off in zip(index, tensor.offsets(self.ctx.pid)))

    def index(self, name, shape, sl, node, linear=False):
        """The index tuple of ``name[sl]``: each index affine in the loop variables, checked
        against ``shape`` here, or computed from run-time values, checked when it runs."""
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if any(isinstance(e, ast.Slice) for e in elts):
            self.ctx.error(f"'{name}' is indexed with a slice; index one element at a time",
                           node)
        if len(elts) != len(shape):
            self.ctx.error(f"'{name}' has {len(shape)} dimensions, indexed with {len(elts)}",
                           node)
        index = tuple(self.expr(e) for e in elts)
        for n, (e, dim) in enumerate(zip(index, shape)):
            b = index_bounds(e, tuple(self.ctx.trips))
            if b is not None and (b[0] < 0 or b[1] >= dim):
                moved = row_major(index, shape, tuple(self.ctx.trips)) if linear else None
                if moved is not None:
                    loc = self.ctx.parser.loc(node)
                    warnings.warn_explicit(
                        f"in task {self.ctx.name}: index {ast.unparse(elts[n])} of '{name}' "
                        f"takes values {b[0]}..{b[1]}, outside 0..{dim - 1}: read row-major, "
                        "as Allo does, from the following rows", HwgenWarning, loc[0], loc[1])
                    return moved
                self.ctx.error(f"index {ast.unparse(elts[n])} of '{name}' takes values "
                               f"{b[0]}..{b[1]}, outside 0..{dim - 1}", node)
        return index
