"""Run-time ``if``/``else`` in a task body.

A condition on data is if-converted: both branches run and every assignment in them becomes a
``Select`` on the condition (a multiplexer), so the iteration stays one pipeline step; side
effects whose count would depend on data (stream put/get, tensor writes, loops) are refused
under it. A condition ``i % m == r`` on a loop variable is periodic instead: each branch runs on
its own iterations (a ``mod`` predicate), so stream operations and tensor writes may stand in
it, their count known at compile time.
"""
import ast

from ..ir.graph import ArrayRead, ArrayWrite, Assign, BinOp, Const, Pred, Select, VarRef
from ..ir.types import uint1
from .exprs import is_call_to


class BranchLowerer:
    """``if``/``else`` statements of a ``TaskLowerer``."""

    def unconditional(self, node, what, fix):
        if self.conditional:
            self.error(f"{what} under a run-time condition is not supported: its count would "
                       f"depend on data; {fix}", node)

    def periodic(self, s):
        """``(depth, m, residues)`` for ``if i % m == r:`` (or ``!=``) on loop variable ``i``
        around stream operations or tensor writes: those run on the iterations of the loop at
        ``depth`` whose index ``k`` has ``k % m`` in ``residues`` (a ``mod`` predicate); None
        for any other condition (if-conversion)."""
        test, names = s.test, (ast.Name, ast.Constant)
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
                isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
            return None
        mod, other = test.left, test.comparators[0]
        if isinstance(other, ast.BinOp):
            mod, other = other, mod
        if not (isinstance(mod, ast.BinOp) and isinstance(mod.op, ast.Mod) and
                isinstance(mod.left, names) and getattr(mod.left, "id", None) in self.loops):
            return None
        m, r = self.const_value(mod.right), self.const_value(other)
        if m is None or r is None or m < 1 or any(isinstance(n, ast.For) for n in ast.walk(s)):
            return None
        if not any(is_call_to(n, "put") or is_call_to(n, "get") or
                   isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and
                   getattr(n.value, "id", None) in self.tensors for n in ast.walk(s)):
            return None
        depth = self.loops.index(mod.left.id)
        start, step = self.loop_values[depth]
        keep = isinstance(test.ops[0], ast.Eq)
        return depth, m, tuple(k for k in range(m) if ((start + step * k) % m == r) == keep)

    def periodic_if(self, s, every):
        """Both branches, each on its own iterations (``periodic``)."""
        depth, m, residues = every
        rest = tuple(k for k in range(m) if k not in residues)
        then, other, _, _ = self.branches(
            lambda: self.under(Pred("mod", depth, (m, residues)), s.body),
            lambda: self.under(Pred("mod", depth, (m, rest)), s.orelse))
        return then + other

    def branches(self, lower_then, lower_else):
        """``(then, else, assigned before, assigned in then)`` of lowering both branches; a
        name assigned in only one branch may be unassigned afterwards."""
        before = set(self.assigned)
        then = lower_then()
        then_set = self.assigned - before
        self.assigned = set(before)
        other = lower_else()
        self.assigned = before | (then_set & (self.assigned - before))
        return then, other, before, then_set

    def under(self, pred, stmts):
        """``stmts`` lowered with predicate ``pred``: indices are checked against the loop's
        iterations the predicate allows (its last one bounds them)."""
        trip = self.trips[pred.depth]
        self.trips[pred.depth] = max(1, pred.span(pred.depth, trip)[1] + 1)
        try:
            return [self.predicated(x, pred) for x in self.block(stmts)]
        finally:
            self.trips[pred.depth] = trip

    def runtime_if(self, s, loc):
        """If-conversion: both branches run; their assignments select on the condition."""
        cond = self.expr(s.test)
        cvar = f"cond{self.n_conds}@{loc[1]}"   # '@': never a user's name
        self.n_conds += 1
        self.vars[cvar] = uint1
        self.assigned.add(cvar)
        self.conditional += 1
        then, other, before, then_set = self.branches(lambda: self.block(s.body),
                                                      lambda: self.block(s.orelse))
        self.conditional -= 1
        c = VarRef(cvar)
        return [Assign(cvar, BinOp("!=", cond, Const(0)), loc=loc)] + \
            [self.guarded(item, c, True, before) for item in then] + \
            [self.guarded(item, c, False, before | then_set) for item in other]

    @staticmethod
    def guarded(item, c, polarity, known):
        """``item`` taking effect only where the condition ``c`` has ``polarity``."""
        def pick(new, keep):
            return Select(c, new, keep) if polarity else Select(c, keep, new)
        if isinstance(item, Assign):
            if item.var not in known:       # first assigned here: no old value to keep
                return item
            return Assign(item.var, pick(item.value, VarRef(item.var)), item.pred, item.loc)
        keep = ArrayRead(item.array, item.index, loc=item.loc)
        return ArrayWrite(item.array, item.index, pick(item.value, keep), item.pred, item.loc)
