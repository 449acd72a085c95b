"""Indices that are locals computed from loop counters and constants only, known at compile time.

Allo programs often find a position with a loop (``for r in range(R): if pi > r * C: row =
r``) and then index a tensor with it (``A[row + i, col]``). Hardware addresses tensors from
its loop counters, so such an index would be refused; but where the local takes a single value
at every iteration on which the statement that uses it runs, the index is that constant. This
pass walks each task instance's loops once at compile time, computing only the locals whose
values come from constants and loop counters, and replaces each such local in an index by its
value where it has only one. Both the interpreter and the hardware run the result; the
program's meaning is unchanged.
"""
import dataclasses
import itertools

from .graph import (ArrayRead, ArrayWrite, Assign, BINARY, BinOp, Const, LoopIndex, Neg, Read,
                    Select, VarRef, Write, stmt_exprs, subexprs, transform)
from .preds import pred_holds
from .types import IntType

LIMIT = 1 << 18         # iterations of an instance walked at most (else left as written)
_UNKNOWN = object()     # a value known only at run time


def fold_static_indices(inst):
    """Replace, in place, each local used in an index of ``inst`` by the constant it always
    holds there."""
    users = {id(s): s for seg in inst.segments for s in seg.body if _index_vars(s)}
    if not users or sum(seg.iterations for seg in inst.segments) > LIMIT:
        return
    known = {}
    for (key, var), vals in _walk(inst, users).items():
        if len(vals) == 1 and _UNKNOWN not in vals:
            known.setdefault(key, {})[var] = vals.pop()
    for key, consts in known.items():
        _substitute(users[key], consts)


def _walk(inst, users):
    """``{(statement id, local): values it holds there}`` over every iteration."""
    env, seen = {}, {}
    for seg in inst.segments:
        for idx in itertools.product(*(range(t) for t in seg.trips)):
            for stmt in seg.body:
                if not pred_holds(stmt.pred, idx, seg.trips):
                    continue
                if id(stmt) in users:
                    for var in _index_vars(stmt):
                        seen.setdefault((id(stmt), var), set()).add(env.get(var, _UNKNOWN))
                if isinstance(stmt, Assign):
                    value = _value(stmt.value, env, idx)
                    kind = inst.vars.get(stmt.var)
                    env[stmt.var] = kind.wrap(value) if isinstance(kind, IntType) and \
                        value is not _UNKNOWN else _UNKNOWN
    return seen


def _value(e, env, idx):
    """``e`` from constants, loop counters and known locals, or ``_UNKNOWN``."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, LoopIndex):
        return idx[e.depth]
    if isinstance(e, VarRef):
        return env.get(e.name, _UNKNOWN)
    if isinstance(e, Neg):
        v = _value(e.operand, env, idx)
        return _UNKNOWN if v is _UNKNOWN else -v
    if isinstance(e, BinOp):
        a, b = _value(e.lhs, env, idx), _value(e.rhs, env, idx)
        if a is _UNKNOWN or b is _UNKNOWN or e.op in ("//", "%") and b == 0 or \
                e.op in ("<<", ">>") and b < 0:
            return _UNKNOWN
        return BINARY[e.op](a, b)
    if isinstance(e, Select):
        c = _value(e.cond, env, idx)
        return _UNKNOWN if c is _UNKNOWN else _value(e.a if c else e.b, env, idx)
    return _UNKNOWN


def _index_vars(stmt):
    """The locals used in the indices of ``stmt``'s tensor and array accesses."""
    accesses = [stmt] if isinstance(stmt, (Write, ArrayWrite)) else []
    accesses += [e for e in stmt_exprs(stmt) if isinstance(e, (Read, ArrayRead))]
    return {v.name for a in accesses for i in a.index for v in subexprs(i)
            if isinstance(v, VarRef)}


def _substitute(stmt, known):
    """``stmt`` with the locals ``known`` replaced by their values in its indices."""
    def const(e):
        return Const(known[e.name]) if isinstance(e, VarRef) and e.name in known else e

    def in_index(e):
        if isinstance(e, (Read, ArrayRead)):
            return dataclasses.replace(e, index=tuple(transform(i, const) for i in e.index))
        return e
    stmt.value = transform(stmt.value, in_index)
    if isinstance(stmt, (Write, ArrayWrite)):
        stmt.index = tuple(transform(i, const) for i in stmt.index)
