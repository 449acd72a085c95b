"""Bit slices of locals, ``x[a:b]`` and ``x[a]``: their bounds as a start, a stop and a
run-time offset (``ir.graph.Slice``, ``SetSlice``).

Bounds are compile-time constants, or affine in the loop variables a constant apart
(``x[8 * i:8 * i + 8]``), or locals assigned sums of products a constant apart, as Allo writes
them (``lsb: index = idx * 32``, ``msb: index = (idx + 1) * 32 - 1``; ``ctx.defs``, kept by
``body.TaskLowerer.stmt``). As in Python, the slice ends before its upper bound.
"""
import ast

from ..ir.graph import BinOp, Const, LoopIndex, Neg, VarRef
from ..ir.layout import affine, index_bounds


def bounds(exprs, base, node):
    """``(start, stop, offset)`` of the bit slice ``node`` of local ``base``, ``exprs`` the
    task's expression lowerer: constant bounds, or the run-time part in ``offset``."""
    ctx, sl = exprs.ctx, node.slice
    width = ctx.vars[base].bits
    if isinstance(sl, ast.Slice) and sl.step is not None:
        ctx.error("bit slices take no step", node)
    lower, upper = (sl.lower, sl.upper) if isinstance(sl, ast.Slice) else (sl, None)
    lo = Const(0) if lower is None else exprs.expr(lower)
    hi = Const(width) if isinstance(sl, ast.Slice) and upper is None else \
        BinOp("+", lo, Const(1)) if upper is None else exprs.expr(upper)
    a, b = affine(lo), affine(hi)
    apart = b[1] - a[1] if a is not None and b is not None and a[0] == b[0] else \
        width_apart(ctx.defs, lo, hi)
    if apart is None:
        ctx.error("bit slice bounds must be compile-time constants, or affine in the loop "
                  "variables with a constant width (`x[8 * i:8 * i + 8]`), or locals assigned "
                  "such sums a constant apart", node)
    if apart <= 0:
        ctx.error(f"bit slice [{ast.unparse(sl)}] is empty: its end must be above its start",
                  node)
    if a is None or b is None or a[0] != b[0]:
        return 0, apart, lo
    span = index_bounds(lo, tuple(ctx.trips))
    start, stop = span[0], span[1] + apart
    if not 0 <= start <= span[1] < stop <= width:
        ctx.error(f"bit slice [{ast.unparse(sl)}] reaches bits {start}..{stop - 1}, outside "
                  f"'{base}' ({width} bits)", node)
    return (start, stop, None) if not a[0] else (0, apart, lo)


def width_apart(defs, lo, hi):
    """``hi - lo`` when it is a constant once the locals in them are replaced by the sums
    ``defs`` says they hold; else None."""
    diff = {}
    if not (_terms(defs, hi, 1, diff) and _terms(defs, lo, -1, diff)) or \
            any(c for k, c in diff.items() if k is not None):
        return None
    return diff.get(None, 0)


def _terms(defs, e, sign, out, depth=0):
    """Add ``sign * e`` to ``out`` (term -> coefficient, None the constant); whether ``e`` is
    such a sum of products with constants."""
    if isinstance(e, VarRef) and e.name in defs and depth < 8:
        return _terms(defs, defs[e.name], sign, out, depth + 1)
    if isinstance(e, Const):
        out[None] = out.get(None, 0) + sign * e.value
    elif isinstance(e, (VarRef, LoopIndex)):
        out[e] = out.get(e, 0) + sign
    elif isinstance(e, Neg):
        return _terms(defs, e.operand, -sign, out, depth)
    elif isinstance(e, BinOp) and e.op in "+-":
        return _terms(defs, e.lhs, sign, out, depth) and \
            _terms(defs, e.rhs, sign if e.op == "+" else -sign, out, depth)
    elif isinstance(e, BinOp) and e.op == "*" and isinstance(e.rhs, Const):
        return _terms(defs, e.lhs, sign * e.rhs.value, out, depth)
    elif isinstance(e, BinOp) and e.op == "*" and isinstance(e.lhs, Const):
        return _terms(defs, e.rhs, sign * e.lhs.value, out, depth)
    else:
        return False
    return True
