"""A tensor element summed over the loops that do not index it is held in a local across them.

``C[i, j] += A[i, k] * B[k, j]`` in a loop over ``k`` reads ``C[i, j]`` on the first iteration
of ``k`` into a local, adds to the local on every iteration and writes it back on the last:
what one would write by hand (``c = C[i, j]``, ``c += ...``, ``C[i, j] = c``). Each element is
then read once, before it is written once, which is how hardware builds a tensor that is both
read and written (``schedule.support``); a float element becomes a sum of partial sums, like a
float local updated with ``+=`` (``ir.accumulate``), in the interpreter and hardware alike.
"""
from .graph import (Assign, BinOp, Const, FloatOp, LoopIndex, Read, VarRef, Write, stmt_exprs,
                    subexprs)
from .preds import Pred

SUM = ".sum"        # in the name of the local that holds a sum (not a Python identifier)


def hold_element_sums(inst, dtypes):
    """Rewrite ``inst``'s sums into tensor elements in place; ``dtypes``: tensor -> element
    type (the local's type)."""
    for n, seg in enumerate(inst.segments):
        body = []
        for k, stmt in enumerate(seg.body):
            sum_ = _element_sum(stmt, seg)
            if sum_ is None or _touched_elsewhere(seg.body, stmt):
                body.append(stmt)
                continue
            depth, term, op = sum_
            name = f"{stmt.tensor}{SUM}{n}_{k}"
            inst.vars[name] = dtypes[stmt.tensor]
            own = VarRef(name)
            add = FloatOp(op, own, term, stmt.value.fmt) if isinstance(stmt.value, FloatOp) \
                else BinOp(op, own, term)
            body += [Assign(name, Read(stmt.tensor, stmt.index, stmt.loc),
                            (Pred("first", depth),), stmt.loc),
                     Assign(name, add, (), stmt.loc),
                     Write(stmt.tensor, stmt.index, own, (Pred("last", depth),), stmt.loc)]
        seg.body = body


def _element_sum(stmt, seg):
    """``(depth, term, op)`` when ``stmt`` is ``T[idx] = T[idx] op term`` (``+``, or ``-`` with
    the element first), run on every iteration, ``idx`` of constants and loops above ``depth``
    and at least one loop at ``depth`` or deeper; else None."""
    if not isinstance(stmt, Write) or stmt.pred or \
            not isinstance(stmt.value, (BinOp, FloatOp)) or stmt.value.op not in "+-":
        return None
    own = Read(stmt.tensor, stmt.index)
    lhs, rhs, op = stmt.value.lhs, stmt.value.rhs, stmt.value.op
    if rhs == own and op == "+":
        lhs, rhs = rhs, lhs
    if lhs != own or any(isinstance(e, Read) and e.tensor == stmt.tensor for e in subexprs(rhs)):
        return None
    parts = [e for i in stmt.index for e in subexprs(i)]
    if not all(isinstance(e, (Const, LoopIndex, BinOp)) for e in parts):
        return None
    depth = 1 + max((e.depth for e in parts if isinstance(e, LoopIndex)), default=-1)
    return (depth, rhs, op) if depth < len(seg.trips) else None


def _touched_elsewhere(body, stmt):
    """Whether a statement of ``body`` other than ``stmt`` reads or writes its tensor."""
    return any(s is not stmt and (isinstance(s, Write) and s.tensor == stmt.tensor or any(
        isinstance(e, Read) and e.tensor == stmt.tensor for e in stmt_exprs(s)))
        for s in body)


def is_element_sum(name):
    """Whether local ``name`` holds a tensor element's sum (it wraps as the element would: no
    width warning applies to it)."""
    return SUM in name
