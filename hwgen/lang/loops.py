"""Loops of a task body: ``for ... in range(...)``, Allo's ``allo.grid``, ``meta_for`` unrolled
at compile time, and the loops a folded task runs its virtual grid positions in (``fold``)."""
import ast

from ..ir.graph import Assign, BinOp, Const, Get, More, Pred, VarRef
from ..ir.types import uint1
from . import jumps
from .exprs import is_call_to


class Loop:
    """A run-time loop of ``trip`` iterations around ``items``, before ``body.TaskLowerer``
    places it in a segment's loop nest."""

    def __init__(self, trip, items, node, cond=None):
        self.trip, self.items, self.node, self.cond = trip, items, node, cond


def predicated(stmt, pred):
    """``stmt`` running only where ``pred`` holds (a loop: every statement in it)."""
    if isinstance(stmt, Loop):
        for item in stmt.items:
            predicated(item, pred)
        return stmt
    stmt.pred = (pred,) + tuple(stmt.pred)
    return stmt


class LoopLowerer:
    """Lowers the loops of a task body: the task's ``context.TaskContext`` keeps the enclosing
    loops' names, first values, steps and trip counts while the ``task`` lowers their bodies
    (``body.TaskLowerer.block``)."""

    def __init__(self, ctx, task):
        self.ctx, self.task = ctx, task

    def fold_loops(self, axes):
        """The task body inside one loop per folded grid axis (outermost first), over the
        virtual indices of that axis this instance runs: ``range(pid, fold, grid)``. Every
        instance loops as often as the one with the most (one loop structure, one controller);
        where the grid does not divide evenly, the body is idle on the iterations past its
        own (an ``in`` predicate)."""
        if not axes:
            return self.task.block(self.ctx.fn.body)
        d = axes[0]
        r = range(self.ctx.pid[d], self.ctx.fold[d], self.ctx.grid[d])
        trip = -(-self.ctx.fold[d] // self.ctx.grid[d])
        depth = len(self.ctx.loops)
        self.ctx.loops.append(f"pid@{d}")
        self.ctx.loop_values.append((r.start, r.step))
        self.ctx.trips.append(trip)
        self.ctx.n_fold += 1
        items = self.task.branches.lower_under((Pred("in", depth, tuple(range(len(r)))),),
                                               lambda: self.fold_loops(axes[1:]))
        self.ctx.loops.pop()
        self.ctx.loop_values.pop()
        self.ctx.trips.pop()
        return [Loop(trip, items, self.ctx.fn)]

    def meta_for(self, s):
        """``with meta_for(a[, b[, step]]) as v:`` -- the body once per value of v."""
        call, var = s.items[0].context_expr, s.items[0].optional_vars
        if not isinstance(var, ast.Name):
            self.ctx.error("write `with hwgen.meta_for(N) as i:`", s)
        if call.keywords or not 1 <= len(call.args) <= 3:
            self.ctx.error("meta_for takes 1 to 3 compile-time bounds, like range()", s)
        bounds = [self.task.exprs.const_value(a) for a in call.args]
        if any(b is None for b in bounds):
            self.ctx.error("meta_for bounds must be compile-time expressions", s)
        if var.id in self.ctx.vars or var.id in self.ctx.loops or var.id in self.ctx.arrays:
            self.ctx.error(f"meta_for variable '{var.id}' hides a run-time name", s)
        saved = self.ctx.consts.get(var.id)
        items = []
        for value in range(*bounds):
            self.ctx.consts[var.id] = value
            items.extend(self.task.block(s.body))
        if saved is None:
            self.ctx.consts.pop(var.id, None)
        else:
            self.ctx.consts[var.id] = saved
        return items

    def for_loop(self, s):
        if is_call_to(s.iter, "grid") or is_call_to(s.iter, "reduction"):
            return self.for_loop(self.grid_nest(s))
        stream = s.iter.value if isinstance(s.iter, ast.Subscript) else s.iter
        if isinstance(stream, ast.Name) and stream.id in self.ctx.streams:
            return self.stream_loop(s)
        if not isinstance(s.target, ast.Name):
            self.ctx.error("a for loop needs one loop variable (several with `for i, j in "
                           "grid(M, N)`)", s)
        if s.orelse:
            self.ctx.error("for/else is not supported", s)
        if not (isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name)
                and s.iter.func.id == "range" and 1 <= len(s.iter.args) <= 3):
            self.ctx.error(f"loops must be `for x in range(...)`, got `{ast.unparse(s.iter)}`", s)
        if s.target.id in self.ctx.vars or s.target.id in self.ctx.arrays:
            self.ctx.error(f"loop variable '{s.target.id}' is already a local", s)
        bounds = [self.task.exprs.const_value(a) for a in s.iter.args]
        if any(b is None for b in bounds):
            self.ctx.error("loop bounds must be compile-time expressions of sizes and grid indices",
                           s)
        r = range(*bounds)
        if len(r) == 0:
            self.ctx.error(f"`{ast.unparse(s.iter)}` has no iterations", s)
        if s.target.id in self.ctx.loops:
            self.ctx.error(f"loop variable '{s.target.id}' is already the variable of an enclosing "
                           "loop", s)
        self.ctx.loops.append(s.target.id)
        self.ctx.loop_values.append((r.start, r.step))
        self.ctx.trips.append(len(r))
        items = self.task.block(s.body)
        self.ctx.loops.pop()
        self.ctx.loop_values.pop()
        self.ctx.trips.pop()
        return Loop(len(r), items, s)

    def grid_nest(self, s):
        """Allo's ``for i, j in allo.grid(M, N):`` as ``for i in range(M): for j in range(N):``."""
        names = s.target.elts if isinstance(s.target, ast.Tuple) else [s.target]
        if s.iter.keywords or len(s.iter.args) != len(names) or \
                not all(isinstance(n, ast.Name) for n in names):
            self.ctx.error(f"`for ... in grid(...)` needs one loop variable per size: "
                           f"`for i, j in grid(M, N)`, got `{ast.unparse(s.target)}` for "
                           f"{len(s.iter.args)} size(s)", s)
        body = s.body
        for name, size in reversed(list(zip(names, s.iter.args))):
            rng = ast.Call(ast.Name("range", ast.Load()), [size], [])
            body = [ast.For(name, rng, body, s.orelse if body is s.body else [])]
            ast.copy_location(body[0], s)
            ast.fix_missing_locations(body[0])
        return body[0]

    def stream_loop(self, s):
        """``for v in s:`` on a closed stream: the body once per value, ``v`` the value, until
        the producer's ``close()``; at most the stream's bound times."""
        ctx = self.ctx
        if not isinstance(s.target, ast.Name):
            ctx.error("`for v in s:` takes one variable, the value read", s)
        chan = self.task.streams.channel(s.iter, "get", s)
        channel = ctx.channels[chan]
        if channel.bound is None:
            ctx.error(f"`for {s.target.id} in {ast.unparse(s.iter)}:` reads a closed stream: "
                      "declare the most values per problem, as Stream[int8, 4, 256], and "
                      "close() it in the producer after its last put; a stream of a fixed "
                      f"count is read with `for i in range(N): x = {ast.unparse(s.iter)}.get()`",
                      s)
        if chan in ctx.read:
            ctx.error(f"stream '{chan}' is read by a second `for` loop: the first one reads it "
                      "up to its close, once per problem", s)
        var = s.target.id
        if var in ctx.vars or var in ctx.arrays or var in ctx.loops:
            ctx.error(f"loop variable '{var}' is already a local", s)
        ctx.read.add(chan)
        ctx.vars[var] = channel.dtype
        loc = ctx.parser.loc(s)
        return self.dynamic_loop(s, channel.bound, More(chan, loc),
                                 [Assign(var, Get(chan, loc=loc), loc=loc)])

    def while_loop(self, s):
        """``while hwgen.bounded(cond, max_iterations=N):``: the body while ``cond`` holds,
        tested before each iteration, at most N times."""
        ctx, test = self.ctx, s.test
        if not is_call_to(test, "bounded"):
            ctx.error("a while loop declares the most iterations it runs per problem: write "
                      f"`while hwgen.bounded({ast.unparse(test)}, max_iterations=N):`", s)
        args = list(test.args) + [k.value for k in test.keywords if k.arg == "max_iterations"]
        if len(args) != 2 or any(k.arg != "max_iterations" for k in test.keywords):
            ctx.error("write `while hwgen.bounded(cond, max_iterations=N):`", s)
        bound = self.task.exprs.const_value(args[1])
        if not isinstance(bound, int) or bound < 1:
            ctx.error(f"max_iterations must be a positive compile-time integer, got "
                      f"`{ast.unparse(args[1])}`", s)
        return self.dynamic_loop(s, bound, self.task.exprs.expr(args[0]), [])

    def dynamic_loop(self, s, bound, cond, head):
        """A loop whose count depends on data: ``head`` then the body of ``s``, while ``cond``
        holds, at most ``bound`` times; at the top of a task body. With ``break`` or
        ``continue`` (``jumps``), their flags start cleared before it."""
        ctx, body, before = self.ctx, s.body, []
        if ctx.loops:
            ctx.error("a loop whose count depends on data (`while`, `for v in s:`) runs at the "
                      "top of a task body, not inside another loop", s)
        if s.orelse:
            ctx.error("while/else and for/else are not supported", s)
        if jumps.has_jump(body):
            line = ctx.parser.loc(s)[1]
            brk, cont = f"break@{line}", f"continue@{line}"     # '@': never a user's name
            for var in (brk, cont):
                ctx.vars[var] = uint1
                ctx.assigned.add(var)
                before.append(Assign(var, Const(0), loc=ctx.parser.loc(s)))
            head = head + [Assign(cont, Const(0), loc=ctx.parser.loc(s))]
            body = jumps.rewrite(body, brk, cont)
            cond = BinOp("&", BinOp("!=", cond, Const(0)), BinOp("==", VarRef(brk), Const(0)))
        ctx.loops.append("dynamic@")
        ctx.loop_values.append((0, 1))
        ctx.trips.append(bound)
        ctx.dynamic, assigned = True, set(ctx.assigned)
        ctx.assigned |= {x.var for x in head}
        try:
            items = head + self.task.block(body)
        finally:
            ctx.loops.pop()
            ctx.loop_values.pop()
            ctx.trips.pop()
            # It may run no iteration: what it assigns first is unassigned after it.
            ctx.dynamic, ctx.assigned = False, assigned
        return before + [Loop(bound, items, s, cond=cond)]
