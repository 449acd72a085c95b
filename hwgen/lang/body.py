"""Task bodies: Python statements -> loop-nest segments of IR statements, for one grid position.

``TaskLowerer`` dispatches each statement to a small lowerer (``assign``, ``blocks``,
``branches``, ``loops``, ``streams``; expressions: ``exprs``, ``numeric``, ``helpers``), all
sharing one ``context.TaskContext``. Compile-time structure is resolved here: ``if`` on
constants and ``meta_if``/``meta_elif``/``meta_else`` keep one branch, ``meta_for`` unrolls;
run-time ``if``/``else``: ``branches``.
"""
import ast
import warnings

from ..errors import HwgenError, HwgenWarning
from ..ir.element_sums import hold_element_sums
from ..ir.graph import (ArrayWrite, Assign, BinOp, Const, Instance, LoopIndex, Neg, Pred,
                        Put, Segment, VarRef, subexprs)
from ..ir.layout import WIDE_REGISTER_LIMIT
from ..ir.static_locals import fold_static_indices
from .assign import AssignLowerer
from .blocks import BlockLowerer
from .branches import BranchLowerer
from .context import TaskContext
from .exprs import CONSTRUCT_NAMES, ExprLowerer, is_call_to
from .helpers import HelperInliner
from .loops import Loop, LoopLowerer, predicated
from .numeric import NumericLowerer
from .phases import (alone, collect_on_first_pass, padding, phase_nest, renumbered,
                     share_arrays, stream_runs)
from .streams import StreamLowerer

_CHAIN = ("meta_if", "meta_elif", "meta_else")


def _meta_kind(stmt):
    """``"meta_if"``/... when ``stmt`` is ``with hwgen.meta_...(...)``, else None."""
    if isinstance(stmt, ast.With) and len(stmt.items) == 1:
        for kind in _CHAIN + ("meta_for",):
            if is_call_to(stmt.items[0].context_expr, kind):
                return kind
    return None


class TaskLowerer:
    """Lowers one task body at one grid position to an ``ir.Instance``: owns the instance's
    ``context.TaskContext`` and one lowerer of each kind, each given the context and this
    dispatcher (to reach the others), and lowers the statements and the loop-nest structure
    itself (with ``fold``, the task's virtual grid, the instance at ``pid`` of the smaller
    ``grid`` runs the virtual instances folded onto it: ``lang.fold``)."""

    def __init__(self, parser, fn, pid, grid, tensors, streams, channels, fold=None):
        self.ctx = ctx = TaskContext(parser, fn, pid, grid, tensors, streams, channels, fold)
        self.numeric = NumericLowerer(ctx)
        self.exprs = ExprLowerer(ctx, self)
        self.helpers = HelperInliner(ctx, self)
        self.streams = StreamLowerer(ctx, self)
        self.assigns = AssignLowerer(ctx, self)
        self.blocks = BlockLowerer(ctx, self)
        self.branches = BranchLowerer(ctx, self)
        self.loops = LoopLowerer(ctx, self)

    # -- structure --------------------------------------------------------------------------

    def lower(self):
        """The task instance's ``ir.Instance``; the regions it calls are in ``ctx.calls``."""
        ctx = self.ctx
        items = self.loops.fold_loops(ctx.folded_axes())
        inst = Instance(ctx.name, ctx.fn.name, ctx.pid, ctx.grid, self.segments(items),
                        dict(ctx.vars), loc=ctx.parser.loc(ctx.fn), arrays=dict(ctx.arrays),
                        contents=dict(ctx.contents))
        fold_static_indices(inst)
        hold_element_sums(inst, {t.name: t.dtype for t in ctx.tensors.values()})
        for stmt in (s for seg in inst.segments for s in seg.body):
            if isinstance(stmt, ArrayWrite) and stmt.array in ctx.contents:
                raise HwgenError(f"in task {ctx.name}: local array '{stmt.array}' takes its "
                                 f"{len(ctx.contents[stmt.array])} elements from its "
                                 f"declaration, more than {WIDE_REGISTER_LIMIT}, and is "
                                 "read-only (a table in memory); declare a separate array for "
                                 "the values you write", stmt.loc)
        return inst

    def block(self, stmts):
        """The items (statements and ``Loop``s) of the statement list ``stmts``, keeping one
        branch of each ``meta_if``/``meta_elif``/``meta_else`` chain."""
        items = []
        taken = None        # in a meta_if chain: whether a branch was taken; None outside one
        for s in stmts:
            kind = _meta_kind(s)
            if kind in _CHAIN:
                if kind != "meta_if" and taken is None:
                    self.ctx.error(f"{kind} must directly follow a meta_if or meta_elif block", s)
                if kind == "meta_if":
                    taken = False
                if not taken and (kind == "meta_else" or self.meta_condition(s, kind)):
                    items.extend(self.block(s.body))
                    taken = True
                if kind == "meta_else":
                    taken = None
                continue
            taken = None
            items.extend(self.stmt(s))
        return items

    def meta_condition(self, s, kind):
        """Whether the branch ``s`` of a meta chain (``kind``) is taken, decided at compile
        time."""
        call = s.items[0].context_expr
        if kind == "meta_else":
            if call.args or call.keywords:
                self.ctx.error("meta_else() takes no condition", s)
            return True
        if len(call.args) != 1 or call.keywords:
            self.ctx.error(f"{kind} takes one compile-time condition: `with {kind}(i == 0):`", s)
        cond = self.exprs.const_value(call.args[0])
        if cond is None:
            self.ctx.error(f"{kind}({ast.unparse(call.args[0])}) must be decidable at compile "
                           "time (grid indices, sizes, meta_for variables); use a plain `if` for "
                           "run-time conditions", s)
        return bool(cond)

    def segments(self, items):
        """Top-level items -> segments; straight-line code joins the nearest loop."""
        loops = [i for i, it in enumerate(items) if isinstance(it, Loop)]
        fn_loc = self.ctx.parser.loc(self.ctx.fn)
        if not loops:
            return [Segment((), run, loc=fn_loc) for run in stream_runs(items)]
        segs = []
        for n, li in enumerate(loops):
            before = items[:li] if n == 0 else []
            after_end = loops[n + 1] if n + 1 < len(loops) else len(items)
            after = items[li + 1:after_end]
            # Straight-line code that puts (gets) on a stream the loop also puts (gets) on
            # runs as a segment of its own: a stream takes one element per clock. So does code
            # beside a loop that reads a closed stream: its last iteration is not known.
            dynamic = items[li].cond is not None
            own_before, own_after = (dynamic or alone(run, [items[li]])
                                     for run in (before, after))
            if own_before:
                segs += [Segment((), run, loc=fn_loc) for run in stream_runs(before)]
            trips, body = self.nest(items[li], 0)
            body = [predicated(s, Pred("first", 0)) for s in before if not own_before] + \
                body + [predicated(s, Pred("last", 0)) for s in after if not own_after]
            segs.append(Segment(tuple(trips), body, loc=self.ctx.parser.loc(items[li].node),
                                cond=items[li].cond))
            if own_after:
                segs += [Segment((), run, loc=fn_loc) for run in stream_runs(after)]
        return segs

    def nest(self, loop, depth, dmap=(0,)):
        """``loop``, at ``depth`` of its segment's nest -> (trips, body). ``dmap``: the depth in
        the nest of each loop from the segment's outermost down to ``loop`` (phase loops are
        loops the source does not have)."""
        items = collect_on_first_pass([renumbered(it, dmap) for it in loop.items], len(dmap),
                                      self.ctx.arrays)
        inner = [i for i, it in enumerate(items) if isinstance(it, Loop)]
        if len(inner) > 1 or len(inner) == 1 and any(
                alone(run, [items[inner[0]]])
                for run in (items[:inner[0]], items[inner[0] + 1:]) if run):
            return self.phases(loop, items, depth, dmap)
        if not inner:
            runs = stream_runs(items)
            if len(runs) > 1:           # two puts (gets) of a stream: a phase loop around them
                return phase_nest(loop, [([], run) for run in runs], depth)
            return [loop.trip], items
        k = inner[0]
        trips, body = self.nest(items[k], depth + 1, dmap + (depth + 1,))
        body = [predicated(s, Pred("first", depth + 1)) for s in items[:k]] + body + \
               [predicated(s, Pred("last", depth + 1)) for s in items[k + 1:]]
        return [loop.trip] + trips, body

    def phases(self, loop, items, depth, dmap):
        """Loops in sequence in ``loop``'s body, as one loop nest: a phase loop at
        ``depth + 1`` runs them one after the other; below it the loops are as many and as
        long as the deepest and longest, and each phase runs on the iterations its own loops
        have. Statements between loops run on the first iteration of the next loop (after the
        last loop: on its last), or as a phase of their own where they write a local array
        that loop uses, or use one it writes (hardware accesses an array at one stage), or put
        (get) on a stream it puts (gets) on (a stream takes one element per clock)."""
        entries, lines, run = [], [], []
        for it in items + [None]:
            if (isinstance(it, Loop) or it is None) and run:
                entries.append(run)
                lines.append(run[0].loc[1])
                run = []
            if isinstance(it, Loop):
                entries.append(self.nest(it, depth + 2, dmap + (depth + 2,)))
                lines.append(self.ctx.parser.loc(it.node)[1])
            elif it is not None:
                run.append(it)
        phases, where, pending = [], [], []
        for k, entry in enumerate(entries):
            if isinstance(entry, tuple):
                trips, body = entry
                phases.append((trips, [predicated(s, Pred("first", depth + 2))
                                       for s in pending] + body))
                where.append(lines[k])
                pending = []
                continue
            after = k + 1 < len(entries)
            beside = entries[k + 1 if after else k - 1][1]
            if share_arrays(entry, beside) or alone(entry, beside):
                runs = stream_runs(entry)
                phases += [([1], run) for run in runs]
                where += [run[0].loc[1] for run in runs]
            elif after:
                pending = entry
            else:
                phases[-1][1].extend(predicated(s, Pred("last", depth + 2)) for s in entry)
        self.warn_padding(loop, [trips for trips, _ in phases], where)
        return phase_nest(loop, phases, depth)

    def warn_padding(self, loop, trips, lines):
        """``phases.padding``'s warning at ``loop``, once per region."""
        message, loc = padding(loop, trips, lines), self.ctx.parser.loc(loop.node)
        if message is not None and loc not in self.ctx.parser.warned:
            self.ctx.parser.warned.add(loc)
            warnings.warn_explicit(f"in task {self.ctx.name}: {message}", HwgenWarning, loc[0],
                                   loc[1])

    # -- statements -------------------------------------------------------------------------

    def stmt(self, s):
        """The items of statement ``s``, from the lowerer of its kind; the locals it assigns
        a sum of products of loop variables, locals and constants (``x = (k + 1) * 32 - 1``)
        keep that expression in ``ctx.defs`` until what it reads is assigned again (bit slice
        bounds a constant apart, ``slices``)."""
        items = self._stmt(s)
        ctx = self.ctx
        for item in (x for x in items if isinstance(x, Assign)):
            ctx.defs = {k: d for k, d in ctx.defs.items() if k != item.var and not any(
                isinstance(x, VarRef) and x.name == item.var for x in subexprs(d))}
            if not (item.pred or ctx.conditional or ctx.context) and all(
                    isinstance(x, (Const, LoopIndex, VarRef, BinOp, Neg)) and
                    getattr(x, "op", "+") in "+-*" for x in subexprs(item.value)):
                ctx.defs[item.var] = item.value
        return items

    def _stmt(self, s):
        loc = self.ctx.parser.loc(s)
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):
                return []
            if is_call_to(s.value, "put"):
                chan = self.streams.channel(s.value.func.value, "put", s)
                if len(s.value.args) != 1 or s.value.keywords:
                    self.ctx.error("put takes exactly one value: `stream.put(x)`", s)
                if chan in self.ctx.closed:
                    self.ctx.error(f"stream '{chan}' is put after its close(); close it after "
                                   "its last put", s)
                if self.ctx.channels[chan].bound is None:
                    self.streams.counted(chan, "put", s)
                if self.ctx.channels[chan].type.block is not None:
                    value = self.blocks.packed(s.value.args[0], chan, s)
                else:
                    value = self.numeric.to_type(self.exprs.expr(s.value.args[0]),
                                                 self.ctx.channels[chan].dtype, s)
                return [Put(chan, value, loc=loc)]
            if is_call_to(s.value, "get") and isinstance(s.value.func, ast.Attribute):
                return self.discarded_get(s, loc)
            if is_call_to(s.value, "close") and isinstance(s.value.func, ast.Attribute):
                return [self.streams.close(s, loc)]
            if self.region_call(s):
                return []
            self.ctx.error(f"unsupported expression statement `{ast.unparse(s)}`; "
                           "only `stream.put(x)` and `stream.get()` stand alone", s)
        if isinstance(s, ast.Pass):
            return []
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            return self.assigns.assign(s, loc)
        if isinstance(s, ast.For):
            self.branches.unconditional(s, "a loop", "move the condition inside the loop body")
            loop = self.loops.for_loop(s)
            return loop if isinstance(loop, list) else [loop]
        if isinstance(s, ast.While):
            self.branches.unconditional(s, "a loop", "move the condition inside the loop body")
            return self.loops.while_loop(s)
        if isinstance(s, ast.If):
            cond = self.exprs.const_value(s.test)
            if cond is not None:
                return self.block(s.body if cond else s.orelse)
            branches = self.branches
            every = branches.periodic(s)
            if every is not None:
                return branches.periodic_if(s, every)
            sets = branches.iteration_sets(s)
            return branches.runtime_if(s, loc) if sets is None else \
                branches.iteration_if(s, *sets)
        if _meta_kind(s) == "meta_for":
            return self.loops.meta_for(s)
        name = CONSTRUCT_NAMES.get(type(s), type(s).__name__)
        self.ctx.error(f"unsupported Python construct in a task body: {name}; use for-range "
                       "loops, assignments, stream put/get, if/else and meta_if/meta_for", s)

    def region_call(self, s):
        """``inner(A, B)`` or ``inner[P0, P1](A, B)``: a region called with tensors this task
        sees; its tasks join the program (``frontend``). Whether ``s`` is one."""
        call = s.value
        if not isinstance(call, ast.Call):
            return False
        func, params = call.func, ()
        if isinstance(func, ast.Subscript):
            elts = func.slice.elts if isinstance(func.slice, ast.Tuple) else [func.slice]
            func, params = func.value, tuple(self.exprs.const_value(e) for e in elts)
        region = self.ctx.parser.region_named(func.id) if isinstance(func, ast.Name) else None
        if region is None:
            return False
        if call.keywords:
            self.ctx.error(f"region '{func.id}' takes its tensors by position: "
                           f"`{func.id}(A, B)`", s)
        if self.ctx.loops or self.ctx.conditional or None in params:
            self.ctx.error(f"a region is called with compile-time parameters, outside loops and "
                           f"run-time conditions: `{func.id}[P0, P1](A, B)`", s)
        if not all(isinstance(a, ast.Name) and a.id in self.ctx.tensors for a in call.args):
            self.ctx.error(f"region '{func.id}' takes tensors this task sees "
                           f"({', '.join(self.ctx.tensors) or 'none'})", s)
        self.ctx.calls.append((region.bind(params, self.ctx.parser.loc(s)),
                               [self.ctx.tensors[a.id] for a in call.args], s))
        return True

    def discarded_get(self, s, loc):
        """A bare ``stream.get()``: the element is taken and dropped (a local nobody reads)."""
        get = self.exprs.expr(s.value)
        var = f"dropped{self.ctx.n_conds}@{loc[1]}"    # '@': never a user's name
        self.ctx.n_conds += 1
        self.ctx.vars[var] = self.ctx.channels[get.channel].dtype
        self.ctx.assigned.add(var)
        return [Assign(var, get, loc=loc)]
