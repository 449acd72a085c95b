"""Run-time ``if``/``else`` in a task body.

A condition on data is if-converted: both branches run and every assignment in them becomes a
``Select`` on the condition (a multiplexer), so the iteration stays one pipeline step; side
effects whose count would depend on data (stream gets, tensor writes, loops) are refused
under it; a put on a closed stream (``StreamType.bound``) runs where the condition holds (its
``guard``). A condition ``i % m == r`` on a loop variable is periodic instead: each branch runs on
its own iterations (a ``mod`` predicate), so stream operations and tensor writes may stand in
it, their count known at compile time.
"""
import ast
import dataclasses

from ..ir.graph import (ArrayRead, ArrayWrite, Assign, BinOp, Const, Get, LoopIndex, More, Neg,
                        Pred, Put, Read, Select, VarRef, subexprs)
from ..ir.types import uint1
from .exprs import is_call_to
from .fold import evaluate, iterations
from .loops import predicated


# Calls whose value is a select of their arguments: a condition of loop variables with them is
# still one of loop variables.
PURE = ("max", "min", "abs")


class BranchLowerer:
    """Lowers the run-time ``if``/``else`` statements of a task body: the task's
    ``context.TaskContext`` keeps the locals each branch assigns, the depth of if-conversion
    and the predicates in force; the branches' statements go back to the ``task``
    (``body.TaskLowerer.block``)."""

    def __init__(self, ctx, task):
        self.ctx, self.task = ctx, task

    def unconditional(self, node, what, fix):
        if self.ctx.conditional:
            self.ctx.error(f"{what} under a run-time condition is not supported: its count would "
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
                isinstance(mod.left, names) and getattr(mod.left, "id", None) in self.ctx.loops):
            return None
        m, r = self.task.exprs.const_value(mod.right), self.task.exprs.const_value(other)
        if m is None or r is None or m < 1 or any(isinstance(n, ast.For) for n in ast.walk(s)):
            return None
        if not self.effects(s):
            return None
        depth = self.ctx.loops.index(mod.left.id)
        start, step = self.ctx.loop_values[depth]
        keep = isinstance(test.ops[0], ast.Eq)
        return depth, m, tuple(k for k in range(m) if ((start + step * k) % m == r) == keep)

    def effects(self, s):
        """Whether ``if`` statement ``s`` holds stream operations or tensor writes (and no
        loop): it can only run on iterations known at compile time."""
        return not any(isinstance(n, ast.For) for n in ast.walk(s)) and any(
            is_call_to(n, "put") or is_call_to(n, "get") or
            isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and
            getattr(n.value, "id", None) in self.ctx.tensors for n in ast.walk(s))

    def iteration_sets(self, s):
        """``(then, else)`` predicates for ``if`` statement ``s`` whose condition depends on
        loop variables only, one per ``and``-ed part, each part on one loop (``if j == 0``,
        ``if k < K - 1 and i > 0``, ``if max(i, 1) % 2``; a folded grid index is a loop
        variable): each branch runs
        on the iterations where its condition holds (``in`` predicates). None for a condition
        on data, or on several loops in one part, or where if-conversion serves."""
        if not self.effects(s) or any(
                isinstance(n, (ast.Subscript, ast.Attribute)) or
                isinstance(n, ast.Call) and getattr(n.func, "id", None) not in PURE or
                isinstance(n, ast.Name) and n.id in self.ctx.vars for n in ast.walk(s.test)):
            return None
        test = s.test
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
            else [test]
        sets = {}           # loop depth -> the iterations where every part on it holds
        for part in parts:
            e = self.task.exprs.expr(part)
            if isinstance(e, Const):        # `i == 0` on a grid index that is not folded
                if e.value:
                    continue
                return [Pred("in", 0, ())], []      # never: only the else runs
            depths = {x.depth for x in subexprs(e) if isinstance(x, LoopIndex)}
            if len(depths) != 1 or not all(isinstance(x, (Const, LoopIndex, BinOp, Neg, Select))
                                           for x in subexprs(e)):
                self.ctx.error(f"`if {ast.unparse(part)}` around stream operations or tensor "
                               "writes must test one loop variable at a time; write one `and`-ed "
                               "part per loop, or nested ifs", s)
            d = depths.pop()
            now = sets.get(d, iterations(self.ctx.trips[d]))
            sets[d] = tuple(i for i in now if evaluate(e, {d: i}))
        then = [Pred("in", d, its) for d, its in sorted(sets.items())]
        if len(then) > 1 and s.orelse:
            self.ctx.error(f"the else of `if {ast.unparse(test)}` around stream operations or "
                           "tensor writes would run where either part fails, on two loops; nest "
                           "the ifs (`if i == 0:` then `if k > 0:`), each with its own else", s)
        other = [Pred("in", p.depth, tuple(i for i in iterations(self.ctx.trips[p.depth])
                                           if i not in p.value)) for p in then[:1]]
        return then, other

    def iteration_if(self, s, then, other):
        """Each branch on the iterations its predicates allow (``iteration_sets``); a branch
        that never runs is dropped, a predicate that allows every iteration too."""
        never = [any(not p.value for p in preds) for preds in (then, other)]
        before = set(self.ctx.assigned)
        items, assigned = [], []
        for preds, body, skip in zip((then, other), (s.body, s.orelse), never):
            self.ctx.assigned = set(before)
            items += [] if skip else self.block_under(preds, body)
            assigned.append(self.ctx.assigned - before)
        # After the if, a name is assigned if every branch that runs assigns it.
        self.ctx.assigned = before | (assigned[1] if never[0] else assigned[0] if never[1]
                                      else assigned[0] & assigned[1])
        return items

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
        before = set(self.ctx.assigned)
        then = lower_then()
        then_set = self.ctx.assigned - before
        self.ctx.assigned = set(before)
        other = lower_else()
        self.ctx.assigned = before | (then_set & (self.ctx.assigned - before))
        return then, other, before, then_set

    def under(self, pred, stmts):
        """``stmts`` lowered with predicate ``pred``: indices are checked against the loop's
        iterations the predicate allows (its first and last one bound them)."""
        return self.block_under((pred,), stmts)

    def block_under(self, preds, stmts):
        """``stmts`` lowered with every predicate of ``preds`` (``under``); one that allows
        every iteration of its loop is left out."""
        return self.lower_under(preds, lambda: self.task.block(stmts))

    def lower_under(self, preds, lower):
        """The items ``lower()`` gives, lowered and predicated with ``preds`` (``block_under``)."""
        saved = list(self.ctx.trips)
        kept = []
        for p in preds:
            now = iterations(self.ctx.trips[p.depth])
            if p.kind == "in" and set(now) <= set(p.value):
                continue
            kept.append(p)
            lo, hi = p.span(p.depth, now.stop)
            lo, hi = max(lo, now.start), min(hi, now.stop - 1)
            self.ctx.trips[p.depth] = max(1, hi + 1) if lo == 0 or lo > hi else range(lo, hi + 1)
        self.ctx.context = self.ctx.context + kept
        try:
            items = lower()
        finally:
            self.ctx.trips = saved
            self.ctx.context = self.ctx.context[:len(self.ctx.context) - len(kept)]
        for p in reversed(kept):
            items = [predicated(x, p) for x in items]
        return items

    def runtime_if(self, s, loc):
        """If-conversion: both branches run; their assignments select on the condition."""
        cond = self.task.exprs.expr(s.test)
        cvar = f"cond{self.ctx.n_conds}@{loc[1]}"   # '@': never a user's name
        self.ctx.n_conds += 1
        self.ctx.vars[cvar] = uint1
        self.ctx.assigned.add(cvar)
        self.ctx.conditional += 1
        then, other, before, then_set = self.branches(lambda: self.task.block(s.body),
                                                      lambda: self.task.block(s.orelse))
        self.ctx.conditional -= 1
        c = VarRef(cvar)
        return [Assign(cvar, BinOp("!=", cond, Const(0)), loc=loc)] + \
            [guarded(item, c, True, before) for item in then] + \
            [guarded(item, c, False, before | then_set) for item in other]


def guarded(item, c, polarity, known):
    """``item`` taking effect only where the condition ``c`` has ``polarity``."""
    def pick(new, keep):
        return Select(c, new, keep) if polarity else Select(c, keep, new)
    if isinstance(item, Put):          # on a closed stream: put where the condition holds
        guard = c if polarity else BinOp("==", c, Const(0))
        return dataclasses.replace(item, guard=guard if item.guard is None else
                                   BinOp("&", item.guard, guard))
    if isinstance(item, Assign):
        if item.var not in known:       # first assigned here: no old value to keep
            # but a stream read, or a tensor read at an index computed at run time, only where
            # the condition holds
            return Assign(item.var, pick(item.value, Const(0)), item.pred, item.loc) \
                if _reads_on_data(item.value) else item
        return Assign(item.var, pick(item.value, VarRef(item.var)), item.pred, item.loc)
    keep = ArrayRead(item.array, item.index, loc=item.loc)
    return ArrayWrite(item.array, item.index, pick(item.value, keep), item.pred, item.loc)


def _reads_on_data(value):
    """Whether ``value`` reads a stream (``get``, ``more``) or a tensor's element at an index
    computed at run time (which hardware does not build)."""
    static = (Const, LoopIndex, BinOp, Neg)
    return any(isinstance(x, (Get, More)) or isinstance(x, Read) and any(
        not isinstance(y, static) for i in x.index for y in subexprs(i))
        for x in subexprs(value))
