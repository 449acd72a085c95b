"""Assignments of a task body: ``=``, ``x: T = ...``, ``x op= ...`` and indexed targets.

An assignment binds a compile-time constant (``get_pid()``, a constant outside loops and
conditions), declares a local (its type annotated, or taken from the stream, tensor or array it
first reads) or a local array, or becomes an IR statement: ``Assign``, ``Write``, ``ArrayWrite``.
"""
import ast

from ..ir.graph import (ArrayRead, ArrayWrite, Assign, Const, Get, Read, SetSlice, Slice, VarRef,
                        Write)
from ..ir.types import IntType, TensorType
from .blocks import has_slice
from .exprs import BINOPS, is_call_to
from .numeric import FLOAT_OPS


class AssignLowerer:
    """Lowers the assignments of a task body, declaring names in the task's
    ``context.TaskContext``; values go through the ``task``'s expression lowerer, whole arrays
    and slices through its ``blocks`` (``body.TaskLowerer``)."""

    def __init__(self, ctx, task):
        self.ctx, self.task = ctx, task

    def assign(self, s, loc):
        """Lower ``=``, ``x: T = ...`` or ``x op= ...``; names bound to ``get_pid()`` or, outside
        loops and conditions, to a constant become compile-time constants (no statement)."""
        target, value = self.assign_sides(s)
        if self.bind_pid(s, target, value):
            return []
        if isinstance(target, ast.Subscript):
            return self.assign_indexed(s, target, value, loc)
        if not isinstance(target, ast.Name):
            self.ctx.error(f"cannot assign to `{ast.unparse(target)}`", s)
        name = target.id
        if name in self.ctx.loops:
            self.ctx.error(f"cannot assign to loop variable '{name}'", s)
        if name in self.ctx.arrays:
            self.ctx.error(f"'{name}' is a local array: assign its elements, "
                           f"`{name}[i] = ...`", s)
        if name in self.ctx.tensors:
            self.ctx.error(f"'{name}' is a tensor of the region: write its elements, "
                           f"`{name}[...] = ...`, or give the local another name", s)
        if isinstance(s, ast.AnnAssign) and _const_expr(s.annotation):
            value = self.task.exprs.const_value(value) if value is not None else None
            if value is None:
                self.ctx.error(f"'{name}' is declared ConstExpr: give it a compile-time value",
                               s)
            self.ctx.consts[name] = value
            return []
        if isinstance(s, ast.AnnAssign):
            dtype = self.declared_type(s, name)
            if isinstance(dtype, TensorType):
                return self.declare_array(s, name, dtype)
            if value is None:
                self.ctx.vars[name] = dtype
                return []
        if isinstance(s, ast.AugAssign):
            return [self.update(s, name, value, loc)]
        rhs = self.task.exprs.expr(value)
        if isinstance(s, ast.AnnAssign):
            self.ctx.vars[name] = dtype
        elif name not in self.ctx.vars:
            dtype = self.inferred_type(s, name, rhs)
            if dtype is None:
                self.ctx.consts[name] = rhs.value
                return []
            self.ctx.vars[name] = dtype
        self.ctx.assigned.add(name)
        return [Assign(name, self.task.numeric.to_type(rhs, self.ctx.vars[name], s), loc=loc)]

    def assign_sides(self, s):
        """The target and value of an assignment statement (one target only)."""
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                self.ctx.error("chained assignment is not supported", s)
            return s.targets[0], s.value
        return s.target, s.value

    def bind_pid(self, s, target, value):
        """Bind ``i, j = hwgen.get_pid()`` (or ``i = ...`` on a 1-D grid) to this instance's
        grid position as constants; whether ``s`` was such a binding. Other tuple targets are
        an error."""
        if isinstance(target, ast.Tuple):
            if is_call_to(value, "get_pid"):
                names = [e.id for e in target.elts if isinstance(e, ast.Name)]
                if len(names) != len(self.ctx.grid):
                    self.ctx.error(f"get_pid() returns {len(self.ctx.grid)} indices for a grid "
                                   f"of {list(self.ctx.grid)}, but {len(target.elts)} names "
                                   "receive them", s)
                for d, name in enumerate(names):
                    self.bind_axis(name, d)
                return True
            self.ctx.error("tuple assignment is only supported for `i, j = hwgen.get_pid()`", s)
        if isinstance(s, ast.Assign) and isinstance(target, ast.Name) and \
                is_call_to(value, "get_pid"):
            if len(self.ctx.grid) != 1:
                self.ctx.error(f"get_pid() returns {len(self.ctx.grid)} indices; unpack them", s)
            self.bind_axis(target.id, 0)
            return True
        return False

    def bind_axis(self, name, d):
        """``name`` is grid index ``d``: a constant, or in a folded task the variable of the
        loop over the virtual indices this instance runs."""
        if d in self.ctx.folded_axes():
            self.ctx.pid_alias[name] = f"pid@{d}"
        else:
            self.ctx.consts[name] = self.ctx.pid[d]

    def declared_type(self, s, name):
        """The type annotated on ``name`` (an IntType, or a TensorType for a local array),
        checked against an earlier declaration."""
        dtype = self.ctx.parser.eval_const(s.annotation, "a type annotation")
        if isinstance(dtype, TensorType):
            return dtype
        if not isinstance(dtype, IntType):
            self.ctx.error(f"unknown type `{ast.unparse(s.annotation)}` for '{name}'; use int8, "
                           "int16, int32, uint8, ... or Int(bits)", s)
        if name in self.ctx.vars and self.ctx.vars[name] != dtype:
            self.ctx.error(f"'{name}' was declared {self.ctx.vars[name].name}, now "
                           f"{dtype.name}", s)
        return dtype

    def update(self, s, name, value, loc):
        """``name op= value`` as ``name = name op value``; ``name`` must hold a value already."""
        if name in self.ctx.consts and not isinstance(self.ctx.consts[name], tuple):
            self.ctx.error(f"'{name}' = {self.ctx.consts[name]} is a compile-time constant (it "
                           f"has no type); to accumulate into it, declare one: `{name}: int32 = "
                           f"{self.ctx.consts[name]}`", s)
        if name not in self.ctx.vars:
            self.ctx.error(f"'{name}' is updated before it is assigned; assign it first, e.g. "
                           f"`{name}: int32 = 0`", s)
        exprs = self.task.exprs
        rhs = exprs.binary(self.aug_op(s), exprs.var_ref(name, s), exprs.expr(value), s)
        return Assign(name, self.task.numeric.to_type(rhs, self.ctx.vars[name], s), loc=loc)

    def aug_op(self, s):
        """The operator of ``x op= y``."""
        op = BINOPS.get(type(s.op)) or FLOAT_OPS.get(type(s.op))
        if op is None:
            self.ctx.error(f"operator `{type(s.op).__name__}=` is not supported", s)
        return op

    def inferred_type(self, s, name, rhs):
        """The type an undeclared variable takes from its first value: the element type of the
        stream, tensor or array it reads; None for a constant outside loops and conditions
        (folded at compile time)."""
        ftype = self.task.numeric.ftype(rhs)
        if ftype is not None:
            return ftype
        if isinstance(rhs, Get):
            return self.ctx.channels[rhs.channel].dtype
        if isinstance(rhs, Read):
            return next(t.dtype for t in self.ctx.tensors.values() if t.name == rhs.tensor)
        if isinstance(rhs, ArrayRead):
            return self.ctx.arrays[rhs.array].dtype
        if isinstance(rhs, Const) and not self.ctx.loops and not self.ctx.conditional:
            return None
        self.ctx.error(f"declare the type of '{name}': `{name}: int32 = ...`", s)

    def assign_indexed(self, s, target, value, loc):
        """``T[i] = x`` (tensor write), ``buf[i] = x`` (local array), ``w[a:b] = x`` (bits)."""
        exprs, to_type = self.task.exprs, self.task.numeric.to_type
        base = target.value.id if isinstance(target.value, ast.Name) else None
        if base in self.ctx.tensors:
            self.task.branches.unconditional(s, "a tensor write", "compute the value with "
                                             "if/else and write it unconditionally")
            tensor = self.ctx.tensors[base]
            if has_slice(target):
                return self.task.blocks.sliced_writes(s, base, tensor.type, target, value, loc)
            index = exprs.tensor_index(base, tensor, target.slice, s)
            rhs = exprs.expr(value)
            if isinstance(s, ast.AugAssign):
                tensor.use("read")
                rhs = exprs.binary(self.aug_op(s), Read(tensor.name, index, loc=loc), rhs, s)
            tensor.use("write")
            return [Write(tensor.name, index, to_type(rhs, tensor.dtype, s), loc=loc)]
        if base in self.ctx.arrays:
            ttype = self.ctx.arrays[base]
            if has_slice(target):
                return self.task.blocks.sliced_writes(s, base, ttype, target, value, loc)
            index = exprs.index(base, ttype.shape, target.slice, s)
            rhs = exprs.expr(value)
            if isinstance(s, ast.AugAssign):
                rhs = exprs.binary(self.aug_op(s), ArrayRead(base, index, loc=loc), rhs, s)
            rhs = to_type(rhs, ttype.dtype, s)
            return [ArrayWrite(base, index, rhs, loc=loc)]
        if base in self.ctx.vars:
            start, stop, offset = exprs.slice_bounds(base, target)
            if isinstance(s, ast.AugAssign) and base not in self.ctx.assigned:
                self.ctx.error(f"'{base}' is updated before it is assigned; assign it first, "
                               f"e.g. `{base} = 0`", s)
            old = VarRef(base) if base in self.ctx.assigned else Const(0)
            rhs = exprs.expr(value)
            if isinstance(s, ast.AugAssign):
                rhs = exprs.binary(self.aug_op(s), Slice(old, start, stop, offset), rhs, s)
            rhs = SetSlice(old, start, stop, rhs, self.ctx.vars[base].bits, offset)
            self.ctx.assigned.add(base)
            return [Assign(base, rhs, loc=loc)]
        self.ctx.error(f"assignment to `{ast.unparse(target)}`: only tensors, local arrays and "
                       "bit slices of typed locals can be assigned by index", s)

    def declare_array(self, s, name, ttype):
        """``buf: int8[N]``: a local array (registers when small, a memory otherwise);
        ``= value``: its elements written where it is declared (``blocks``)."""
        if not isinstance(ttype.dtype, IntType) or ttype.layout is not None or \
                any(not isinstance(d, int) or d < 1 for d in ttype.shape):
            self.ctx.error(f"local array '{name}' needs an integer element type and positive "
                           f"sizes, like `{name}: int8[N]`", s)
        if name in self.ctx.vars or (name in self.ctx.arrays and self.ctx.arrays[name] != ttype):
            self.ctx.error(f"'{name}' is declared twice with different types", s)
        self.ctx.arrays[name] = ttype
        if s.value is None:
            return []
        return self.task.blocks.array_value(s, name, ttype, self.ctx.parser.loc(s))

def _const_expr(annotation):
    """Whether ``annotation`` is Allo's ``ConstExpr[T]``: the name is a compile-time constant."""
    return isinstance(annotation, ast.Subscript) and \
        getattr(annotation.value, "id", getattr(annotation.value, "attr", None)) == "ConstExpr"
