"""Task bodies: Python statements -> loop-nest segments of IR statements, for one grid position.

Compile-time structure is resolved here: ``if`` on constants and ``meta_if``/``meta_elif``/
``meta_else`` keep one branch, ``meta_for`` unrolls; run-time ``if``/``else``: ``branches``.
"""
import ast
import warnings

from ..errors import HwgenError, HwgenWarning
from ..ir.element_sums import hold_element_sums
from ..ir.graph import ArrayWrite, Assign, Instance, Pred, Put, Segment
from ..ir.layout import WIDE_REGISTER_LIMIT
from ..ir.static_locals import fold_static_indices
from .assign import AssignLowerer
from .blocks import BlockLowerer
from .branches import BranchLowerer
from .exprs import CONSTRUCT_NAMES, is_call_to
from .loops import Loop, LoopLowerer
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


class TaskLowerer(AssignLowerer, BlockLowerer, BranchLowerer, LoopLowerer, StreamLowerer):
    """Lowers one task body at one grid position to an ``ir.Instance`` (with ``fold``, the
    task's virtual grid, the instance at ``pid`` of the smaller ``grid`` runs the virtual
    instances folded onto it: ``lang.fold``)."""

    def __init__(self, parser, fn, pid, grid, tensors, streams, channels, fold=None):
        self.p = parser
        self.fn = fn
        self.pid = pid
        self.grid = grid
        self.tensors = tensors      # the name the body uses -> Tensor
        self.streams = streams
        self.channels = channels
        self.name = parser.prefix + fn.name + (f"[{','.join(map(str, pid))}]" if grid else "")
        self.consts = {}
        self.vars = {}              # run-time locals -> IntType
        self.arrays = {}            # local arrays -> TensorType
        self.contents = {}          # read-only local arrays -> their declared elements
        self.calls = []             # regions this task calls: (region, tensors, node)
        self.assigned = set()
        self.loops = []             # names of enclosing run-time loops, outermost first
        self.loop_values = []       # (start, step) per loop
        self.trips = []             # trip count per loop
        self.conditional = 0        # depth of enclosing run-time if/else
        self.n_conds = 0
        self.context = []           # predicates of the enclosing branches on loop variables
        self.fold = fold
        self.pid_alias = {}         # a folded grid index's name -> its fold loop's variable

    def error(self, message, node):
        if self.fold and "compile" in message:
            message += f" (task {self.fn.name} is folded from grid {list(self.fold)} onto " \
                       f"{list(self.grid)}: its grid indices are loop variables)"
        self.p.error(f"in task {self.name}: {message}", node)

    # -- structure --------------------------------------------------------------------------

    def lower(self):
        items = self.fold_loops(self.folded_axes())
        inst = Instance(self.name, self.fn.name, self.pid, self.grid, self.segments(items),
                        dict(self.vars), loc=self.p.loc(self.fn), arrays=dict(self.arrays),
                        contents=dict(self.contents))
        fold_static_indices(inst)
        hold_element_sums(inst, {t.name: t.dtype for t in self.tensors.values()})
        for stmt in (s for seg in inst.segments for s in seg.body):
            if isinstance(stmt, ArrayWrite) and stmt.array in self.contents:
                raise HwgenError(f"in task {self.name}: local array '{stmt.array}' takes its "
                                 f"{len(self.contents[stmt.array])} elements from its "
                                 f"declaration, more than {WIDE_REGISTER_LIMIT}, and is "
                                 "read-only (a table in memory); declare a separate array for "
                                 "the values you write", stmt.loc)
        return inst

    def block(self, stmts):
        items = []
        taken = None        # in a meta_if chain: whether a branch was taken; None outside one
        for s in stmts:
            kind = _meta_kind(s)
            if kind in _CHAIN:
                if kind != "meta_if" and taken is None:
                    self.error(f"{kind} must directly follow a meta_if or meta_elif block", s)
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
        call = s.items[0].context_expr
        if kind == "meta_else":
            if call.args or call.keywords:
                self.error("meta_else() takes no condition", s)
            return True
        if len(call.args) != 1 or call.keywords:
            self.error(f"{kind} takes one compile-time condition: `with {kind}(i == 0):`", s)
        cond = self.const_value(call.args[0])
        if cond is None:
            self.error(f"{kind}({ast.unparse(call.args[0])}) must be decidable at compile time "
                       "(grid indices, sizes, meta_for variables); use a plain `if` for "
                       "run-time conditions", s)
        return bool(cond)

    def segments(self, items):
        """Top-level items -> segments; straight-line code joins the nearest loop."""
        loops = [i for i, it in enumerate(items) if isinstance(it, Loop)]
        if not loops:
            return [Segment((), run, loc=self.p.loc(self.fn)) for run in stream_runs(items)]
        segs = []
        for n, li in enumerate(loops):
            before = items[:li] if n == 0 else []
            after_end = loops[n + 1] if n + 1 < len(loops) else len(items)
            after = items[li + 1:after_end]
            # Straight-line code that puts (gets) on a stream the loop also puts (gets) on
            # runs as a segment of its own: a stream takes one element per clock.
            own_before, own_after = (alone(run, [items[li]]) for run in (before, after))
            if own_before:
                segs += [Segment((), run, loc=self.p.loc(self.fn)) for run in stream_runs(before)]
            trips, body = self.nest(items[li], 0)
            body = [self.predicated(s, Pred("first", 0)) for s in before if not own_before] + \
                body + [self.predicated(s, Pred("last", 0)) for s in after if not own_after]
            segs.append(Segment(tuple(trips), body, loc=self.p.loc(items[li].node)))
            if own_after:
                segs += [Segment((), run, loc=self.p.loc(self.fn)) for run in stream_runs(after)]
        return segs

    def nest(self, loop, depth, dmap=(0,)):
        """``loop``, at ``depth`` of its segment's nest -> (trips, body). ``dmap``: the depth in
        the nest of each loop from the segment's outermost down to ``loop`` (phase loops are
        loops the source does not have)."""
        items = collect_on_first_pass([renumbered(it, dmap) for it in loop.items], len(dmap),
                                      self.arrays)
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
        body = [self.predicated(s, Pred("first", depth + 1)) for s in items[:k]] + body + \
               [self.predicated(s, Pred("last", depth + 1)) for s in items[k + 1:]]
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
                lines.append(self.p.loc(it.node)[1])
            elif it is not None:
                run.append(it)
        phases, where, pending = [], [], []
        for k, entry in enumerate(entries):
            if isinstance(entry, tuple):
                trips, body = entry
                phases.append((trips, [self.predicated(s, Pred("first", depth + 2))
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
                phases[-1][1].extend(self.predicated(s, Pred("last", depth + 2)) for s in entry)
        self.warn_padding(loop, [trips for trips, _ in phases], where)
        return phase_nest(loop, phases, depth)

    def warn_padding(self, loop, trips, lines):
        """``phases.padding``'s warning at ``loop``, once per region."""
        message, loc = padding(loop, trips, lines), self.p.loc(loop.node)
        if message is not None and loc not in self.p.warned:
            self.p.warned.add(loc)
            warnings.warn_explicit(f"in task {self.name}: {message}", HwgenWarning, loc[0],
                                   loc[1])

    @staticmethod
    def predicated(stmt, pred):
        """``stmt`` running only where ``pred`` holds (a loop: every statement in it)."""
        if isinstance(stmt, Loop):
            for item in stmt.items:
                TaskLowerer.predicated(item, pred)
            return stmt
        stmt.pred = (pred,) + tuple(stmt.pred)
        return stmt

    # -- statements -------------------------------------------------------------------------

    def stmt(self, s):
        loc = self.p.loc(s)
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):
                return []
            if is_call_to(s.value, "put"):
                chan = self.channel(s.value.func.value, "put", s)
                if len(s.value.args) != 1 or s.value.keywords:
                    self.error("put takes exactly one value: `stream.put(x)`", s)
                self.unconditional(s, "a stream put", "compute the value with if/else and put "
                                   "it unconditionally")
                if self.channels[chan].type.block is not None:
                    value = self.packed(s.value.args[0], chan, s)
                else:
                    value = self.to_type(self.expr(s.value.args[0]), self.channels[chan].dtype, s)
                return [Put(chan, value, loc=loc)]
            if is_call_to(s.value, "get") and isinstance(s.value.func, ast.Attribute):
                return self.discarded_get(s, loc)
            if self.region_call(s):
                return []
            self.error(f"unsupported expression statement `{ast.unparse(s)}`; "
                       "only `stream.put(x)` and `stream.get()` stand alone", s)
        if isinstance(s, ast.Pass):
            return []
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            return self.assign(s, loc)
        if isinstance(s, ast.For):
            self.unconditional(s, "a loop", "move the condition inside the loop body")
            return [self.for_loop(s)]
        if isinstance(s, ast.If):
            cond = self.const_value(s.test)
            if cond is not None:
                return self.block(s.body if cond else s.orelse)
            every = self.periodic(s)
            if every is not None:
                return self.periodic_if(s, every)
            sets = self.iteration_sets(s)
            return self.runtime_if(s, loc) if sets is None else self.iteration_if(s, *sets)
        if _meta_kind(s) == "meta_for":
            return self.meta_for(s)
        name = CONSTRUCT_NAMES.get(type(s), type(s).__name__)
        self.error(f"unsupported Python construct in a task body: {name}; use for-range loops, "
                   "assignments, stream put/get, if/else and meta_if/meta_for", s)

    def region_call(self, s):
        """``inner(A, B)`` or ``inner[P0, P1](A, B)``: a region called with tensors this task
        sees; its tasks join the program (``frontend``). Whether ``s`` is one."""
        call = s.value
        if not isinstance(call, ast.Call):
            return False
        func, params = call.func, ()
        if isinstance(func, ast.Subscript):
            elts = func.slice.elts if isinstance(func.slice, ast.Tuple) else [func.slice]
            func, params = func.value, tuple(self.const_value(e) for e in elts)
        region = self.p.region_named(func.id) if isinstance(func, ast.Name) else None
        if region is None:
            return False
        if call.keywords:
            self.error(f"region '{func.id}' takes its tensors by position: "
                       f"`{func.id}(A, B)`", s)
        if self.loops or self.conditional or None in params:
            self.error(f"a region is called with compile-time parameters, outside loops and "
                       f"run-time conditions: `{func.id}[P0, P1](A, B)`", s)
        if not all(isinstance(a, ast.Name) and a.id in self.tensors for a in call.args):
            self.error(f"region '{func.id}' takes tensors this task sees "
                       f"({', '.join(self.tensors) or 'none'})", s)
        self.calls.append((region.bind(params, self.p.loc(s)),
                           [self.tensors[a.id] for a in call.args], s))
        return True

    def discarded_get(self, s, loc):
        """A bare ``stream.get()``: the element is taken and dropped (a local nobody reads)."""
        get = self.expr(s.value)
        var = f"dropped{self.n_conds}@{loc[1]}"    # '@': never a user's name
        self.n_conds += 1
        self.vars[var] = self.channels[get.channel].dtype
        self.assigned.add(var)
        return [Assign(var, get, loc=loc)]
