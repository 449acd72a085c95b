"""Assignments of a task body: ``=``, ``x: T = ...``, ``x op= ...`` and indexed targets.

An assignment binds a compile-time constant (``get_pid()``, a constant outside loops and
conditions), declares a local (its type annotated, or taken from the stream, tensor or array it
first reads) or a local array, or becomes an IR statement: ``Assign``, ``Write``, ``ArrayWrite``.
"""
import ast

from ..ir.graph import (ArrayRead, ArrayWrite, Assign, Const, Get, Read, SetSlice, Slice, VarRef,
                        Write)
from ..ir.types import IntType, TensorType
from .exprs import BINOPS, ExprLowerer, is_call_to
from .numeric import FLOAT_OPS


class AssignLowerer(ExprLowerer):
    """Assignment lowering for the task-body lowerer (``body.TaskLowerer``), which provides the
    state (``vars``, ``consts``, ``arrays``, ``loops``, ...) and ``error``/``unconditional``."""

    def assign(self, s, loc):
        """Lower ``=``, ``x: T = ...`` or ``x op= ...``; names bound to ``get_pid()`` or, outside
        loops and conditions, to a constant become compile-time constants (no statement)."""
        target, value = self.assign_sides(s)
        if self.bind_pid(s, target, value):
            return []
        if isinstance(target, ast.Subscript):
            return self.assign_indexed(s, target, value, loc)
        if not isinstance(target, ast.Name):
            self.error(f"cannot assign to `{ast.unparse(target)}`", s)
        name = target.id
        if name in self.loops:
            self.error(f"cannot assign to loop variable '{name}'", s)
        if name in self.arrays:
            self.error(f"'{name}' is a local array: assign its elements, `{name}[i] = ...`", s)
        if name in self.tensors:
            self.error(f"'{name}' is a tensor of the region: write its elements, "
                       f"`{name}[...] = ...`, or give the local another name", s)
        if isinstance(s, ast.AnnAssign) and _const_expr(s.annotation):
            value = self.const_value(value) if value is not None else None
            if value is None:
                self.error(f"'{name}' is declared ConstExpr: give it a compile-time value", s)
            self.consts[name] = value
            return []
        if isinstance(s, ast.AnnAssign):
            dtype = self.declared_type(s, name)
            if isinstance(dtype, TensorType):
                return self.declare_array(s, name, dtype)
            if value is None:
                self.vars[name] = dtype
                return []
        if isinstance(s, ast.AugAssign):
            return [self.update(s, name, value, loc)]
        rhs = self.expr(value)
        if isinstance(s, ast.AnnAssign):
            self.vars[name] = dtype
        elif name not in self.vars:
            dtype = self.inferred_type(s, name, rhs)
            if dtype is None:
                self.consts[name] = rhs.value
                return []
            self.vars[name] = dtype
        self.assigned.add(name)
        return [Assign(name, self.to_type(rhs, self.vars[name], s), loc=loc)]

    def assign_sides(self, s):
        """The target and value of an assignment statement (one target only)."""
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                self.error("chained assignment is not supported", s)
            return s.targets[0], s.value
        return s.target, s.value

    def bind_pid(self, s, target, value):
        """Bind ``i, j = hwgen.get_pid()`` (or ``i = ...`` on a 1-D grid) to this instance's
        grid position as constants; whether ``s`` was such a binding. Other tuple targets are
        an error."""
        if isinstance(target, ast.Tuple):
            if is_call_to(value, "get_pid"):
                names = [e.id for e in target.elts if isinstance(e, ast.Name)]
                if len(names) != len(self.grid):
                    self.error(f"get_pid() returns {len(self.grid)} indices for a grid of "
                               f"{list(self.grid)}, but {len(target.elts)} names receive them", s)
                for d, name in enumerate(names):
                    self.bind_axis(name, d)
                return True
            self.error("tuple assignment is only supported for `i, j = hwgen.get_pid()`", s)
        if isinstance(s, ast.Assign) and isinstance(target, ast.Name) and \
                is_call_to(value, "get_pid"):
            if len(self.grid) != 1:
                self.error(f"get_pid() returns {len(self.grid)} indices; unpack them", s)
            self.bind_axis(target.id, 0)
            return True
        return False

    def bind_axis(self, name, d):
        """``name`` is grid index ``d``: a constant, or in a folded task the variable of the
        loop over the virtual indices this instance runs."""
        if d in self.folded_axes():
            self.pid_alias[name] = f"pid@{d}"
        else:
            self.consts[name] = self.pid[d]

    def declared_type(self, s, name):
        """The type annotated on ``name`` (an IntType, or a TensorType for a local array),
        checked against an earlier declaration."""
        dtype = self.p.eval_const(s.annotation, "a type annotation")
        if isinstance(dtype, TensorType):
            return dtype
        if not isinstance(dtype, IntType):
            self.error(f"unknown type `{ast.unparse(s.annotation)}` for '{name}'; use int8, "
                       "int16, int32, uint8, ... or Int(bits)", s)
        if name in self.vars and self.vars[name] != dtype:
            self.error(f"'{name}' was declared {self.vars[name].name}, now {dtype.name}", s)
        return dtype

    def update(self, s, name, value, loc):
        """``name op= value`` as ``name = name op value``; ``name`` must hold a value already."""
        if name in self.consts and not isinstance(self.consts[name], tuple):
            self.error(f"'{name}' = {self.consts[name]} is a compile-time constant (it has no "
                       f"type); to accumulate into it, declare one: `{name}: int32 = "
                       f"{self.consts[name]}`", s)
        if name not in self.vars:
            self.error(f"'{name}' is updated before it is assigned; assign it first, e.g. "
                       f"`{name}: int32 = 0`", s)
        rhs = self.binary(self.aug_op(s), self.var_ref(name, s), self.expr(value), s)
        return Assign(name, self.to_type(rhs, self.vars[name], s), loc=loc)

    def aug_op(self, s):
        """The operator of ``x op= y``."""
        op = BINOPS.get(type(s.op)) or FLOAT_OPS.get(type(s.op))
        if op is None:
            self.error(f"operator `{type(s.op).__name__}=` is not supported", s)
        return op

    def inferred_type(self, s, name, rhs):
        """The type an undeclared variable takes from its first value: the element type of the
        stream, tensor or array it reads; None for a constant outside loops and conditions
        (folded at compile time)."""
        if self.ftype(rhs) is not None:
            return self.ftype(rhs)
        if isinstance(rhs, Get):
            return self.channels[rhs.channel].dtype
        if isinstance(rhs, Read):
            return next(t.dtype for t in self.tensors.values() if t.name == rhs.tensor)
        if isinstance(rhs, ArrayRead):
            return self.arrays[rhs.array].dtype
        if isinstance(rhs, Const) and not self.loops and not self.conditional:
            return None
        self.error(f"declare the type of '{name}': `{name}: int32 = ...`", s)

    def assign_indexed(self, s, target, value, loc):
        """``T[i] = x`` (tensor write), ``buf[i] = x`` (local array), ``w[a:b] = x`` (bits)."""
        base = target.value.id if isinstance(target.value, ast.Name) else None
        if base in self.tensors:
            self.unconditional(s, "a tensor write", "compute the value with if/else and write "
                               "it unconditionally")
            tensor = self.tensors[base]
            if self.has_slice(target):
                return self.sliced_writes(s, base, tensor.type, target, value, loc)
            index = self.tensor_index(base, tensor, target.slice, s)
            rhs = self.expr(value)
            if isinstance(s, ast.AugAssign):
                tensor.use("read")
                rhs = self.binary(self.aug_op(s), Read(tensor.name, index, loc=loc), rhs, s)
            tensor.use("write")
            return [Write(tensor.name, index, self.to_type(rhs, tensor.dtype, s), loc=loc)]
        if base in self.arrays:
            if self.has_slice(target):
                return self.sliced_writes(s, base, self.arrays[base], target, value, loc)
            index = self.index(base, self.arrays[base].shape, target.slice, s)
            rhs = self.expr(value)
            if isinstance(s, ast.AugAssign):
                rhs = self.binary(self.aug_op(s), ArrayRead(base, index, loc=loc), rhs, s)
            rhs = self.to_type(rhs, self.arrays[base].dtype, s)
            return [ArrayWrite(base, index, rhs, loc=loc)]
        if base in self.vars:
            start, stop, offset = self.slice_bounds(base, target)
            if isinstance(s, ast.AugAssign) and base not in self.assigned:
                self.error(f"'{base}' is updated before it is assigned; assign it first, e.g. "
                           f"`{base} = 0`", s)
            old = VarRef(base) if base in self.assigned else Const(0)
            rhs = self.expr(value)
            if isinstance(s, ast.AugAssign):
                rhs = self.binary(self.aug_op(s), Slice(old, start, stop, offset), rhs, s)
            rhs = SetSlice(old, start, stop, rhs, self.vars[base].bits, offset)
            self.assigned.add(base)
            return [Assign(base, rhs, loc=loc)]
        self.error(f"assignment to `{ast.unparse(target)}`: only tensors, local arrays and bit "
                   "slices of typed locals can be assigned by index", s)

    def declare_array(self, s, name, ttype):
        """``buf: int8[N]``: a local array (registers when small, a memory otherwise);
        ``= value``: its elements written where it is declared (``blocks``)."""
        if not isinstance(ttype.dtype, IntType) or ttype.layout is not None or \
                any(not isinstance(d, int) or d < 1 for d in ttype.shape):
            self.error(f"local array '{name}' needs an integer element type and positive sizes, "
                       f"like `{name}: int8[N]`", s)
        if name in self.vars or (name in self.arrays and self.arrays[name] != ttype):
            self.error(f"'{name}' is declared twice with different types", s)
        self.arrays[name] = ttype
        return [] if s.value is None else self.array_value(s, name, ttype, self.p.loc(s))


def _const_expr(annotation):
    """Whether ``annotation`` is Allo's ``ConstExpr[T]``: the name is a compile-time constant."""
    return isinstance(annotation, ast.Subscript) and \
        getattr(annotation.value, "id", getattr(annotation.value, "attr", None)) == "ConstExpr"
