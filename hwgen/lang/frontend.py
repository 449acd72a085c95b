"""From a Python program to the task graph: ``@region``, ``@task`` and ``get_pid``.

The region's source is parsed (``ast``), never executed. Names the program uses come from the
scope that defined the region (sizes like ``M``, types like ``int8``). Each task body is lowered
once per grid position, so branches on grid indices are resolved at compile time and every
instance is specialised.
"""
import ast
import inspect
import itertools
import sys
import textwrap

from ..errors import HwgenError
from ..ir.graph import (Assign, BinOp, Channel, Const, Get, Graph, Instance, LoopIndex, Neg, Pred,
                        Put, Read, Segment, Slice, Tensor, VarRef, Write)
from ..ir.layout import index_bounds
from ..ir.types import IntType, StreamType, TensorType

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_FOLD = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__, "&": int.__and__,
         "|": int.__or__, "^": int.__xor__, "<<": int.__lshift__, ">>": int.__rshift__,
         "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
         "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
         ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b)}
_CONSTRUCT_NAMES = {ast.While: "while loop", ast.Return: "return", ast.Break: "break",
                    ast.Continue: "continue", ast.Try: "try", ast.With: "with",
                    ast.FunctionDef: "nested function", ast.Lambda: "lambda",
                    ast.ListComp: "list comprehension", ast.Dict: "dict", ast.List: "list",
                    ast.Raise: "raise", ast.Global: "global", ast.Nonlocal: "nonlocal",
                    ast.Delete: "del", ast.Import: "import", ast.ImportFrom: "import",
                    ast.ClassDef: "class", ast.Assert: "assert"}


def get_pid():
    """Inside a task body: the instance's grid position, one index per grid axis."""
    raise HwgenError("hwgen.get_pid() only has a meaning inside a @hwgen.task body, "
                     "which hwgen compiles instead of running")


def task(fn=None, *, mapping=None):
    """Mark a function inside a region as a task, instantiated on a grid ``mapping=[P0, ...]``."""
    if fn is None:
        return lambda f: f
    return fn


def region(fn):
    """Turn a function whose parameters are typed tensors into a hwgen ``Region``."""
    caller = sys._getframe(1)
    namespace = dict(caller.f_globals)
    namespace.update(caller.f_locals)
    return Region(fn, namespace)


class Region:
    """A program: a set of tasks and streams between tensor ports. ``graph()`` lowers it."""

    def __init__(self, fn, namespace):
        self.fn = fn
        self.name = fn.__name__
        self.namespace = namespace
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self._graph = None

    def graph(self, params=None):
        if self._graph is None:
            self._graph = _RegionParser(self).parse(params or {})
        return self._graph

    def __repr__(self):
        return f"<hwgen.Region {self.name}>"


def _is_call_to(node, name):
    """``node`` calls ``name`` or ``<anything>.name``."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == name) or \
           (isinstance(f, ast.Attribute) and f.attr == name)


class _RegionParser:
    def __init__(self, region):
        self.region = region
        source = textwrap.dedent(inspect.getsource(region.fn))
        self.offset = region.fn.__code__.co_firstlineno - 1
        module = ast.parse(source)
        self.node = module.body[0]
        self.ns = dict(region.namespace)

    def loc(self, node):
        return (self.region.file, getattr(node, "lineno", 0) + self.offset)

    def error(self, message, node):
        raise HwgenError(message, self.loc(node))

    def eval_const(self, node, what):
        """Evaluate a compile-time expression (sizes, types) in the region's scope."""
        try:
            return eval(compile(ast.Expression(node), self.region.file, "eval"), self.ns)
        except HwgenError:
            raise
        except NameError as e:
            if "type" in what:
                self.error(f"unknown type {e.name!r} in {what}; use a type such as int8, int16, "
                           "int32, uint8 or Int(bits)", node)
            self.error(f"unknown name in {what}: {e.name!r}", node)
        except Exception as e:
            self.error(f"cannot evaluate {what} `{ast.unparse(node)}`: {e}", node)

    def parse(self, params):
        tensors = {}
        for arg in self.node.args.args:
            if arg.annotation is None:
                self.error(f"tensor parameter '{arg.arg}' needs a type such as int8[M, K]", arg)
            ttype = self.region.fn.__annotations__.get(arg.arg)
            if isinstance(ttype, str) or ttype is None:
                ttype = self.eval_const(arg.annotation, "a tensor type")
            if not isinstance(ttype, TensorType):
                self.error(f"parameter '{arg.arg}' must be a tensor type such as int8[M, K], "
                           f"got {ttype!r}", arg)
            if any(not isinstance(d, int) or d < 1 for d in ttype.shape):
                self.error(f"tensor '{arg.arg}' has shape {list(ttype.shape)}: every dimension "
                           "must be a positive integer", arg)
            if ttype.layout is not None and len(ttype.layout) != len(ttype.shape):
                self.error(f"tensor '{arg.arg}' has {len(ttype.shape)} dimensions but its layout "
                           f"has {len(ttype.layout)} entries; give one S(axis) or R per dimension",
                           arg)
            tensors[arg.arg] = Tensor(arg.arg, ttype, direction=None, loc=self.loc(arg))
        streams = {}
        tasks = []
        for stmt in self.node.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, ast.FunctionDef):
                tasks.append(stmt)
                continue
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                expr = stmt.value if stmt.value is not None else stmt.annotation
                if not isinstance(target, ast.Name):
                    self.error("a region declares streams and constants as `name = ...`", stmt)
                value = self.eval_const(expr, "a stream type or constant")
                if isinstance(value, StreamType):
                    self.check_stream_type(value, stmt)
                    streams[target.id] = (value, self.loc(stmt))
                else:
                    self.ns[target.id] = value
                continue
            self.error(f"unsupported statement in a region: `{ast.unparse(stmt).splitlines()[0]}`;"
                       " a region holds stream declarations and @hwgen.task functions", stmt)
        if not tasks:
            self.error(f"region '{self.region.name}' has no @hwgen.task", self.node)
        channels = {}
        instances = {}
        for fn in tasks:
            grid = self.task_grid(fn)
            for pid in itertools.product(*(range(g) for g in grid)):
                lowerer = _TaskLowerer(self, fn, tuple(pid), grid, tensors, streams, channels)
                inst = lowerer.lower()
                instances[inst.name] = inst
        for t in tensors.values():
            if t.direction is None:
                raise HwgenError(f"tensor '{t.name}' is never read or written by any task; "
                                 "remove it or use it", t.loc)
        return Graph(self.region.name, dict(params), tensors, channels, instances,
                     loc=self.loc(self.node))

    def check_stream_type(self, st, node):
        if not isinstance(st.dtype, IntType):
            self.error(f"unknown stream element type {st.dtype!r}; use int8, int16, int32, uint8, "
                       "... or Int(bits)", node)
        if not isinstance(st.depth, int) or st.depth < 1:
            self.error(f"stream depth must be a positive integer, got {st.depth!r}", node)
        if any(not isinstance(d, int) or d < 1 for d in st.shape):
            self.error(f"stream array shape {list(st.shape)} must be positive integers", node)

    def task_grid(self, fn):
        decos = [d for d in fn.decorator_list
                 if (isinstance(d, ast.Call) and _is_call_to(d, "task"))
                 or (isinstance(d, ast.Attribute) and d.attr == "task")
                 or (isinstance(d, ast.Name) and d.id == "task")]
        if not decos:
            self.error(f"function '{fn.name}' inside a region must be decorated with @hwgen.task",
                       fn)
        deco = decos[0]
        grid = ()
        if isinstance(deco, ast.Call):
            for kw in deco.keywords:
                if kw.arg != "mapping":
                    self.error(f"@hwgen.task takes mapping=[...], not {kw.arg}=", deco)
                grid = self.eval_const(kw.value, "the task mapping")
                grid = tuple(grid) if isinstance(grid, (list, tuple)) else (grid,)
                if not 1 <= len(grid) <= 3 or any(not isinstance(g, int) or g < 1 for g in grid):
                    self.error(f"mapping must list 1 to 3 positive grid sizes, got {list(grid)}",
                               deco)
        return grid


class _Loop:
    def __init__(self, trip, items, node):
        self.trip, self.items, self.node = trip, items, node


class _TaskLowerer:
    """Lowers one task body at one grid position to segments."""

    def __init__(self, parser, fn, pid, grid, tensors, streams, channels):
        self.p = parser
        self.fn = fn
        self.pid = pid
        self.grid = grid
        self.tensors = tensors
        self.streams = streams
        self.channels = channels
        self.name = fn.name + (f"[{','.join(map(str, pid))}]" if grid else "")
        self.consts = {}
        self.vars = {}              # runtime locals -> IntType
        self.assigned = set()
        self.loops = []             # names of enclosing run-time loops, outermost first
        self.loop_values = []       # (start, step) per loop
        self.trips = []             # trip count per loop

    def error(self, message, node):
        self.p.error(f"in task {self.name}: {message}", node)

    # -- structure --------------------------------------------------------------------------

    def lower(self):
        for arg in self.fn.args.args:
            if arg.arg not in self.tensors:
                self.error(f"task parameter '{arg.arg}' is not a tensor of the region "
                           f"(tensors: {', '.join(self.tensors) or 'none'})", arg)
        items = self.block(self.fn.body)
        segments = self.segments(items)
        return Instance(self.name, self.fn.name, self.pid, self.grid, segments, dict(self.vars),
                        loc=self.p.loc(self.fn))

    def block(self, stmts):
        items = []
        for s in stmts:
            items.extend(self.stmt(s))
        return items

    def segments(self, items):
        """Top-level items -> segments; straight-line code joins the nearest loop."""
        loops = [i for i, it in enumerate(items) if isinstance(it, _Loop)]
        if not loops:
            return [Segment((), list(items), loc=self.p.loc(self.fn))]
        segs = []
        for n, li in enumerate(loops):
            before = items[:li] if n == 0 else []
            after_end = loops[n + 1] if n + 1 < len(loops) else len(items)
            after = items[li + 1:after_end]
            trips, body = self.nest(items[li], 0)
            body = [self.predicated(s, Pred("first", 0)) for s in before] + body + \
                   [self.predicated(s, Pred("last", 0)) for s in after]
            segs.append(Segment(tuple(trips), body, loc=self.p.loc(items[li].node)))
        return segs

    def nest(self, loop, depth):
        inner = [i for i, it in enumerate(loop.items) if isinstance(it, _Loop)]
        if len(inner) > 1:
            self.error("a loop body may contain at most one inner loop (loops in sequence are "
                       "only supported at the top of a task body)", loop.items[inner[1]].node)
        if not inner:
            return [loop.trip], list(loop.items)
        k = inner[0]
        trips, body = self.nest(loop.items[k], depth + 1)
        body = [self.predicated(s, Pred("first", depth + 1)) for s in loop.items[:k]] + body + \
               [self.predicated(s, Pred("last", depth + 1)) for s in loop.items[k + 1:]]
        return [loop.trip] + trips, body

    @staticmethod
    def predicated(stmt, pred):
        stmt.pred = (pred,) + tuple(stmt.pred)
        return stmt

    # -- statements -------------------------------------------------------------------------

    def stmt(self, s):
        loc = self.p.loc(s)
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):
                return []
            if _is_call_to(s.value, "put"):
                chan = self.channel(s.value.func.value, "put", s)
                if len(s.value.args) != 1 or s.value.keywords:
                    self.error("put takes exactly one value: `stream.put(x)`", s)
                value = self.expr(s.value.args[0])
                return [Put(chan, value, loc=loc)]
            self.error(f"unsupported expression statement `{ast.unparse(s)}`; "
                       "only `stream.put(x)` stands alone", s)
        if isinstance(s, ast.Pass):
            return []
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            return self.assign(s, loc)
        if isinstance(s, ast.For):
            return [self.for_loop(s)]
        if isinstance(s, ast.If):
            cond = self.const_value(s.test)
            if cond is None:
                self.error(f"`if {ast.unparse(s.test)}` depends on a run-time value; only "
                           "conditions on grid indices and constants are supported so far", s)
            return self.block(s.body if cond else s.orelse)
        name = _CONSTRUCT_NAMES.get(type(s), type(s).__name__)
        self.error(f"unsupported Python construct in a task body: {name}; use for-range loops, "
                   "assignments, stream put/get and if on grid indices", s)

    def assign(self, s, loc):
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                self.error("chained assignment is not supported", s)
            target, value = s.targets[0], s.value
        else:
            target, value = s.target, s.value
        if isinstance(target, ast.Tuple):
            if _is_call_to(value, "get_pid"):
                names = [e.id for e in target.elts if isinstance(e, ast.Name)]
                if len(names) != len(self.grid):
                    self.error(f"get_pid() returns {len(self.grid)} indices for a grid of "
                               f"{list(self.grid)}, but {len(target.elts)} names receive them", s)
                self.consts.update(zip(names, self.pid))
                return []
            self.error("tuple assignment is only supported for `i, j = hwgen.get_pid()`", s)
        if isinstance(s, ast.Assign) and isinstance(target, ast.Name) and \
                _is_call_to(value, "get_pid"):
            if len(self.grid) != 1:
                self.error(f"get_pid() returns {len(self.grid)} indices; unpack them", s)
            self.consts[target.id] = self.pid[0]
            return []
        if isinstance(target, ast.Subscript):
            if isinstance(s, ast.AugAssign):
                self.error("`T[...] op= x` is not supported; accumulate in a local", s)
            tname = target.value.id if isinstance(target.value, ast.Name) else None
            if tname not in self.tensors:
                self.error(f"assignment to `{ast.unparse(target)}`: only tensors can be "
                           "written by index", s)
            tensor = self.tensors[tname]
            if tensor.direction == "in":
                self.error(f"tensor '{tname}' is read and written; hwgen tensors are either "
                           "inputs or outputs", s)
            tensor.direction = "out"
            index = self.tensor_index(tensor, target.slice, s)
            return [Write(tname, index, self.expr(value), loc=loc)]
        if not isinstance(target, ast.Name):
            self.error(f"cannot assign to `{ast.unparse(target)}`", s)
        name = target.id
        if name in self.loops:
            self.error(f"cannot assign to loop variable '{name}'", s)
        if isinstance(s, ast.AnnAssign):
            dtype = self.p.eval_const(s.annotation, "a type annotation")
            if not isinstance(dtype, IntType):
                self.error(f"unknown type `{ast.unparse(s.annotation)}` for '{name}'; use int8, "
                           "int16, int32, uint8, ... or Int(bits)", s)
            if name in self.vars and self.vars[name] != dtype:
                self.error(f"'{name}' was declared {self.vars[name].name}, now {dtype.name}", s)
            if value is None:
                self.vars[name] = dtype
                return []
        if isinstance(s, ast.AugAssign):
            if name not in self.vars:
                self.error(f"'{name}' is updated before it is assigned", s)
            op = _BINOPS.get(type(s.op))
            if op is None:
                self.error(f"operator `{type(s.op).__name__}=` is not supported in hardware", s)
            rhs = BinOp(op, self.var_ref(name, s), self.expr(value))
            return [Assign(name, rhs, loc=loc)]
        rhs = self.expr(value)
        if isinstance(s, ast.AnnAssign):
            self.vars[name] = dtype
        elif name not in self.vars:
            if isinstance(rhs, Get):
                self.vars[name] = self.channels[rhs.channel].dtype
            elif isinstance(rhs, Read):
                self.vars[name] = self.tensors[rhs.tensor].dtype
            elif isinstance(rhs, Const) and not self.loops:
                self.consts[name] = rhs.value
                return []
            else:
                self.error(f"declare the type of '{name}': `{name}: int32 = ...`", s)
        self.assigned.add(name)
        return [Assign(name, rhs, loc=loc)]

    def for_loop(self, s):
        if not isinstance(s.target, ast.Name):
            self.error("a for loop needs one loop variable", s)
        if s.orelse:
            self.error("for/else is not supported", s)
        if not (isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name)
                and s.iter.func.id == "range" and 1 <= len(s.iter.args) <= 3):
            self.error(f"loops must be `for x in range(...)`, got `{ast.unparse(s.iter)}`", s)
        bounds = [self.const_value(a) for a in s.iter.args]
        if any(b is None for b in bounds):
            self.error("loop bounds must be compile-time expressions of sizes and grid indices",
                       s)
        r = range(*bounds)
        if len(r) == 0:
            self.error(f"`{ast.unparse(s.iter)}` has no iterations", s)
        self.loops.append(s.target.id)
        self.loop_values.append((r.start, r.step))
        self.trips.append(len(r))
        items = self.block(s.body)
        self.loops.pop()
        self.loop_values.pop()
        self.trips.pop()
        return _Loop(len(r), items, s)

    # -- expressions ------------------------------------------------------------------------

    def const_value(self, node):
        """The value of a compile-time expression, or None if it depends on run-time values."""
        try:
            e = self.expr(node, const_only=True)
        except _NotConst:
            return None
        return e.value if isinstance(e, Const) else None

    def var_ref(self, name, node):
        if name not in self.assigned:
            self.error(f"'{name}' is read before it is assigned", node)
        return VarRef(name)

    def expr(self, node, const_only=False):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or isinstance(node.value, int):
                return Const(int(node.value))
            self.error(f"only integer constants are supported, got {node.value!r}", node)
        if isinstance(node, ast.Name):
            name = node.id
            if name in self.loops:
                if const_only:
                    raise _NotConst()
                depth = self.loops.index(name)
                start, step = self.loop_values[depth]
                e = LoopIndex(depth)
                if step != 1:
                    e = BinOp("*", Const(step), e)
                if start:
                    e = BinOp("+", Const(start), e)
                return e
            if name in self.vars:
                if const_only:
                    raise _NotConst()
                return self.var_ref(name, node)
            if name in self.consts:
                return Const(self.consts[name])
            if name in self.p.ns:
                v = self.p.ns[name]
                if isinstance(v, bool) or isinstance(v, int):
                    return Const(int(v))
                self.error(f"'{name}' is a {type(v).__name__}, not a value usable here", node)
            self.error(f"unknown name '{name}'", node)
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            lhs = self.expr(node.left, const_only)
            rhs = self.expr(node.right, const_only)
            if isinstance(lhs, Const) and isinstance(rhs, Const):
                if isinstance(node.op, ast.FloorDiv) and rhs.value:
                    return Const(lhs.value // rhs.value)
                if isinstance(node.op, ast.Mod) and rhs.value:
                    return Const(lhs.value % rhs.value)
                if op is not None:
                    return Const(_FOLD[op](lhs.value, rhs.value))
            if op is None:
                self.error(f"operator `{ast.unparse(node)}` is not supported on run-time values "
                           "(no division or modulo in hardware yet)", node)
            if op in ("<<", ">>") and not isinstance(rhs, Const):
                self.error("shift amounts must be compile-time constants", node)
            return BinOp(op, lhs, rhs)
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, const_only)
            if isinstance(node.op, ast.UAdd):
                return v
            if isinstance(node.op, ast.USub):
                return Const(-v.value) if isinstance(v, Const) else Neg(v)
            if isinstance(node.op, ast.Invert):
                return Const(~v.value) if isinstance(v, Const) else BinOp("-", Neg(v), Const(1))
            if isinstance(node.op, ast.Not) and isinstance(v, Const):
                return Const(int(not v.value))
            self.error(f"unsupported operator in `{ast.unparse(node)}`", node)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                self.error("chained comparisons are not supported; write `a < b and b < c`", node)
            op = _CMPOPS.get(type(node.ops[0]))
            if op is None:
                self.error(f"unsupported comparison in `{ast.unparse(node)}`", node)
            lhs = self.expr(node.left, const_only)
            rhs = self.expr(node.comparators[0], const_only)
            if isinstance(lhs, Const) and isinstance(rhs, Const):
                return Const(_FOLD[op](lhs.value, rhs.value))
            return BinOp(op, lhs, rhs)
        if isinstance(node, ast.BoolOp):
            values = [self.expr(v, const_only) for v in node.values]
            if all(isinstance(v, Const) for v in values):
                result = all(v.value for v in values) if isinstance(node.op, ast.And) \
                    else any(v.value for v in values)
                return Const(int(result))
            op = "&" if isinstance(node.op, ast.And) else "|"
            e = BinOp("!=", values[0], Const(0))
            for v in values[1:]:
                e = BinOp(op, e, BinOp("!=", v, Const(0)))
            return e
        if isinstance(node, ast.Subscript):
            base = node.value.id if isinstance(node.value, ast.Name) else None
            if base in self.tensors:
                if const_only:
                    raise _NotConst()
                tensor = self.tensors[base]
                if tensor.direction == "out":
                    self.error(f"tensor '{base}' is written and read; hwgen tensors are either "
                               "inputs or outputs", node)
                tensor.direction = "in"
                return Read(base, self.tensor_index(tensor, node.slice, node), loc=self.p.loc(node))
            if base in self.vars:
                if const_only:
                    raise _NotConst()
                return self.bit_slice(base, node)
            self.error(f"`{ast.unparse(node)}`: '{base}' is not a tensor or a local", node)
        if isinstance(node, ast.Call):
            if _is_call_to(node, "get") and isinstance(node.func, ast.Attribute):
                if const_only:
                    raise _NotConst()
                if node.args or node.keywords:
                    self.error("get takes no arguments: `x = stream.get()`", node)
                return Get(self.channel(node.func.value, "get", node), loc=self.p.loc(node))
            self.error(f"unsupported call `{ast.unparse(node)}` in a task body", node)
        name = _CONSTRUCT_NAMES.get(type(node), type(node).__name__)
        self.error(f"unsupported Python construct in a task body: {name} "
                   f"(`{ast.unparse(node)}`)", node)

    def bit_slice(self, base, node):
        width = self.vars[base].bits
        sl = node.slice
        if isinstance(sl, ast.Slice):
            if sl.step is not None:
                self.error("bit slices take no step", node)
            start = 0 if sl.lower is None else self.const_value(sl.lower)
            stop = width if sl.upper is None else self.const_value(sl.upper)
        else:
            start = self.const_value(sl)
            stop = None if start is None else start + 1
        if start is None or stop is None:
            self.error("bit slice bounds must be compile-time constants", node)
        if not 0 <= start < stop <= width:
            self.error(f"bit slice [{start}:{stop}] is outside '{base}' ({width} bits)", node)
        return Slice(self.var_ref(base, node), start, stop)

    def tensor_index(self, tensor, sl, node):
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if len(elts) != len(tensor.shape):
            self.error(f"tensor '{tensor.name}' has {len(tensor.shape)} dimensions, indexed "
                       f"with {len(elts)}", node)
        index = tuple(self.expr(e) for e in elts)
        for e, dim, n in zip(index, tensor.shape, range(len(elts))):
            lo, hi = self.bounds(e, node)
            if lo < 0 or hi >= dim:
                self.error(f"index {ast.unparse(elts[n])} of '{tensor.name}' takes values "
                           f"{lo}..{hi}, outside 0..{dim - 1}", node)
        return index

    def bounds(self, e, node):
        """Interval of an index expression over the enclosing loops."""
        b = index_bounds(e, tuple(self.trips))
        if b is None:
            self.error("tensor indices must be affine expressions of loop variables, grid "
                       "indices and constants", node)
        return b

    def channel(self, node, verb, stmt):
        if isinstance(node, ast.Name):
            name, index = node.id, ()
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            name = node.value.id
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            index = tuple(self.const_value(e) for e in elts)
            if any(i is None for i in index):
                self.error(f"stream index `{ast.unparse(node.slice)}` must be a compile-time "
                           "expression of grid indices", stmt)
        else:
            self.error(f"`{ast.unparse(node)}.{verb}()`: not a stream", stmt)
        if name not in self.streams:
            self.error(f"'{name}' is not a stream declared in the region", stmt)
        stype, decl_loc = self.streams[name]
        if len(index) != len(stype.shape) or \
                any(not 0 <= i < n for i, n in zip(index, stype.shape)):
            self.error(f"stream index {list(index)} is out of range for '{name}' of shape "
                       f"{list(stype.shape)}", stmt)
        cname = name + (f"[{','.join(map(str, index))}]" if index else "")
        chan = self.channels.setdefault(
            cname, Channel(cname, StreamType(stype.dtype, stype.depth), loc=decl_loc))
        role = "producer" if verb == "put" else "consumer"
        other = getattr(chan, role)
        if other is not None and other != self.name:
            self.error(f"stream '{cname}' has two {role}s: {other} and {self.name}; a stream "
                       f"connects exactly one producer to one consumer", stmt)
        setattr(chan, role, self.name)
        return cname


class _NotConst(Exception):
    pass
