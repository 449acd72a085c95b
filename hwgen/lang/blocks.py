"""Whole arrays in a task body: a block put on a stream of blocks, a local array declared from
a block got from one, and a local array declared with initial values (a constant, a nested
list or a numpy array from the region's scope).

A block travels packed into one stream element (``StreamType.block``): element 0 in the low
bits, row-major. Putting packs the array's elements with ``SetSlice``; getting takes the word
into a hidden local and writes each element of the new array from its ``Slice`` (the bits as
they are: a float element keeps its pattern). Initial values become one write per element
where the declaration stands, so a declaration inside a loop starts again every iteration, as
in Allo.
"""
import ast
import itertools
import math

import numpy as np

from ..ir.graph import ArrayRead, ArrayWrite, Assign, Const, Read, SetSlice, Slice, VarRef
from ..ir.layout import WIDE_REGISTER_LIMIT
from .exprs import is_call_to
from .numeric import Literal

MAX_ELEMENTS = 4096         # elements written one by one: keep programs that do it small


def _indices(shape):
    return list(itertools.product(*(range(n) for n in shape)))


def has_slice(target):
    """Whether subscript ``target`` has a slice among its indices (``T[i, :]``)."""
    sl = target.slice
    return any(isinstance(e, ast.Slice) for e in (sl.elts if isinstance(sl, ast.Tuple)
                                                  else [sl]))


class BlockLowerer:
    """Lowers whole arrays of a task body (blocks on streams, sliced writes, declared values)
    against the task's ``context.TaskContext``; each element's write goes back to the
    ``task``'s assignment lowerer (``body.TaskLowerer``)."""

    def __init__(self, ctx, task):
        self.ctx, self.task = ctx, task

    def packed(self, node, chan, stmt):
        """The packed word of the local array or tensor ``node`` for block stream ``chan``."""
        block = self.ctx.channels[chan].type.block
        name = node.id if isinstance(node, ast.Name) else None
        if name in self.ctx.arrays:
            ttype, element = self.ctx.arrays[name], lambda idx: ArrayRead(name, idx)
        elif name in self.ctx.tensors:
            tensor = self.ctx.tensors[name]
            tensor.use("read")
            ttype = tensor.type
            global_index = self.task.exprs.global_index
            element = lambda idx: Read(tensor.name, global_index(tensor, idx),  # noqa
                                       loc=self.ctx.parser.loc(stmt))
        else:
            self.ctx.error(f"stream '{chan}' carries blocks {block!r}: put a local array or a "
                           f"tensor of that type, like `{chan.split('[')[0]}.put(buf)`", stmt)
        if ttype.dtype != block.dtype or tuple(ttype.shape) != tuple(block.shape):
            self.ctx.error(f"'{name}' is {ttype.dtype!r}{list(ttype.shape)} but stream '{chan}' "
                           f"carries {block!r}", stmt)
        bits, word = block.dtype.bits, Const(0)
        total = bits * math.prod(block.shape)
        for n, idx in enumerate(_indices(block.shape)):
            idx = tuple(Const(i) for i in idx)
            word = SetSlice(word, n * bits, (n + 1) * bits, element(idx), total)
        return word

    def sliced_writes(self, s, base, ttype, target, value, loc):
        """``T[i, :] = buf`` (or ``= x``): one write per element of the slice, from the local
        array or tensor ``buf`` whose shape is the slice's, or from one value for all."""
        if isinstance(s, ast.AugAssign):
            self.ctx.error("`T[a:b] op= x` is not supported; write the slice's elements in a "
                           "loop", s)
        sl = target.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if len(elts) != len(ttype.shape):
            self.ctx.error(f"'{base}' has {len(ttype.shape)} dimensions, indexed with {len(elts)}",
                           s)
        ranges = []
        for e, dim in zip(elts, ttype.shape):
            if isinstance(e, ast.Slice):
                bounds = [None if b is None else self.task.exprs.const_value(b)
                          for b in (e.lower, e.upper, e.step)]
                if any(b is None and n is not None for b, n in zip(bounds, (e.lower, e.upper,
                                                                             e.step))):
                    self.ctx.error("slice bounds must be compile-time constants", s)
                ranges.append(range(*slice(*bounds).indices(dim)))
            else:
                ranges.append(None)
        shape = tuple(len(r) for r in ranges if r is not None)
        source = value.id if isinstance(value, ast.Name) else None
        whole = self.ctx.arrays.get(source) or (self.ctx.tensors[source].type
                                                 if source in self.ctx.tensors else None)
        if whole is not None and tuple(whole.shape) != shape:
            self.ctx.error(f"'{source}' has shape {list(whole.shape)} but the slice of '{base}' "
                           f"has {list(shape)}", s)
        writes = []
        for idx in itertools.product(*(r if r is not None else [None] for r in ranges)):
            inner = tuple(i for i, r in zip(idx, ranges) if r is not None)
            node = ast.Subscript(value, ast.Tuple([ast.Constant(i) for i in inner], ast.Load()),
                                 ast.Load()) if whole is not None else value
            ast.copy_location(node, s)
            ast.fix_missing_locations(node)
            point = [ast.Constant(i) if r is not None else e
                     for i, r, e in zip(idx, ranges, elts)]
            sub = ast.Subscript(target.value, ast.Tuple(point, ast.Load()), ast.Store())
            stmt = ast.Assign([ast.copy_location(sub, s)], node)
            ast.fix_missing_locations(ast.copy_location(stmt, s))
            writes.extend(self.task.assigns.assign(stmt, loc))
        return writes

    def array_value(self, s, name, ttype, loc):
        """The writes that give new local array ``name`` its declared value; a larger array
        than ``ir.layout.WIDE_REGISTER_LIMIT`` keeps its values as read-only ``contents`` (a
        table of weights, a memory in hardware: element by element, its writes would all fall
        on the first iteration)."""
        many = math.prod(ttype.shape) > WIDE_REGISTER_LIMIT
        if is_call_to(s.value, "get") and isinstance(s.value.func, ast.Attribute):
            if math.prod(ttype.shape) > MAX_ELEMENTS:
                self.ctx.error(f"local array '{name}' has {math.prod(ttype.shape)} elements, too "
                               f"many to get from one stream beat (at most {MAX_ELEMENTS})", s)
            return self.unpacked(s, name, ttype, loc)
        to_type = self.task.numeric.to_type
        values = [to_type(v, ttype.dtype, s) for v in self.initial_values(s, name, ttype)]
        if many:
            dtype = ttype.dtype
            bad = next((v.value for v in values if not dtype.min <= v.value <= dtype.max), None)
            if bad is not None:
                self.ctx.error(f"the constant {bad} does not fit '{name}' of type {dtype.name} "
                               f"[{dtype.min}, {dtype.max}]; use a wider type", s)
            self.ctx.contents[name] = tuple(v.value for v in values)
            return []
        return [ArrayWrite(name, tuple(Const(i) for i in idx), v, loc=loc)
                for idx, v in zip(_indices(ttype.shape), values)]

    def unpacked(self, s, name, ttype, loc):
        """``buf: int16[4, 4] = blocks.get()``: the word, then every element from its bits."""
        get = self.task.exprs.expr(s.value)
        block = self.ctx.channels[get.channel].type.block
        if block is None or block.dtype != ttype.dtype or \
                tuple(block.shape) != tuple(ttype.shape):
            carried = block if block is not None else self.ctx.channels[get.channel].dtype
            self.ctx.error(f"'{name}' is {ttype.dtype!r}{list(ttype.shape)} but stream "
                           f"'{get.channel}' carries {carried!r}", s)
        word = f"{name}@{loc[1]}"          # '@': never a user's name
        self.ctx.vars[word] = self.ctx.channels[get.channel].dtype
        self.ctx.assigned.add(word)
        bits = ttype.dtype.bits
        return [Assign(word, get, loc=loc)] + [
            ArrayWrite(name, tuple(Const(i) for i in idx),
                       Slice(VarRef(word), n * bits, (n + 1) * bits), loc=loc)
            for n, idx in enumerate(_indices(ttype.shape))]

    def initial_values(self, s, name, ttype):
        """The declared values of every element, row-major: one number for all, or an array of
        the array's shape, evaluated at compile time in the region's scope (``np_array[pid]``)."""
        try:
            env = dict(self.ctx.parser.ns)
            env.update(self.ctx.consts)
            data = np.asarray(eval(compile(ast.Expression(s.value), "<init>", "eval"), env))
        except Exception as e:
            self.ctx.error(f"local array '{name}' can be declared with a constant, a block got "
                           f"from a stream or a compile-time array; `{ast.unparse(s.value)}` is "
                           f"none of them ({e})", s)
        if data.shape != tuple(ttype.shape) and data.size != 1:
            self.ctx.error(f"the value of '{name}' has shape {list(data.shape)}, the array "
                           f"{list(ttype.shape)}", s)
        data = np.broadcast_to(data, ttype.shape).ravel()
        if data.dtype.kind not in "biuf":
            self.ctx.error(f"the value of '{name}' must hold numbers, got {data.dtype}", s)
        return [Literal(float(v)) if data.dtype.kind == "f" else Const(int(v)) for v in data]
