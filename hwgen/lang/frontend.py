"""From a Python program to the task graph: ``@region`` (what task bodies write: ``markers``).

The region's source is parsed (``ast``), never executed. Names the program uses come from the
scope that defined the region (sizes like ``M``, types like ``int8``). Each task body is lowered
once per grid position, so branches on grid indices are resolved at compile time and every
instance is specialised.
"""
import ast
import dataclasses
import inspect
import itertools
import sys
import textwrap
import warnings

from ..errors import HwgenError, HwgenTypeError, HwgenWarning
from ..ir.graph import Graph, Tensor
from ..ir.layout import TensorView
from ..ir.types import IntType, StreamType, TensorType
from .body import TaskLowerer
from .exprs import is_call_to
from .chain import chain_tasks
from .fold import FoldState, link_streams, physical_grids
from .layouts import infer_layouts

_TASK_MARKS = ("task", "kernel")      # hwgen's spelling and Allo's
MAX_TENSOR_BITS = 64        # host data travels through numpy int64 arrays


def region(fn=None):
    """Turn a function whose parameters are typed tensors into a hwgen ``Region``; also
    spelled ``@hwgen.region()``, as in Allo."""
    caller = sys._getframe(1)
    namespace = {**caller.f_globals, **caller.f_locals}
    return (lambda f: Region(f, namespace)) if fn is None else Region(fn, namespace)


class Region:
    """A program: a set of tasks and streams between tensor ports. ``graph()`` lowers it."""

    def __init__(self, fn, namespace, node=None, bindings=None):
        self.fn = fn
        self.name = fn.__name__
        self.namespace = namespace
        self.node = node        # the region's ``ast.FunctionDef``, when not ``fn``'s source
        self.file = inspect.getsourcefile(fn) or "<unknown>"
        self.bindings = bindings or {}      # type parameter -> value
        self._graph = None

    @property
    def type_params(self):
        """``def inner[P0, P1](...)`` (Python 3.12): compile-time parameters, bound by
        ``inner[2, 2]`` where the region is called or built."""
        return tuple(t.__name__ for t in getattr(self.fn, "__type_params__", ()))

    def source_node(self):
        """The region's ``ast.FunctionDef``: ``node``, or parsed from ``fn``'s source."""
        if self.node is not None:
            return self.node
        try:
            return ast.parse(textwrap.dedent(inspect.getsource(self.fn))).body[0]
        except (OSError, TypeError):
            raise HwgenError(f"region '{self.name}' has no source file to read (defined with "
                             "exec or at an interactive prompt); define it in a .py file") \
                from None

    def bind(self, params, loc=None):
        """This region with its type parameters bound to the values ``params``."""
        if len(params) != len(self.type_params):
            wanted = f"[{', '.join(self.type_params)}]" if self.type_params else "none"
            raise HwgenError(f"region '{self.name}' takes compile-time parameters {wanted}, "
                             f"given {len(params)}", loc)
        return Region(self.fn, self.namespace, self.node, dict(zip(self.type_params, params)))

    def __getitem__(self, params):
        return self.bind(params if isinstance(params, tuple) else (params,))

    def graph(self, params=None, fold=None):
        """The task graph; ``fold``: task name -> the physical grid its virtual grid is
        folded onto (``lang.fold``)."""
        key = tuple(sorted((fold or {}).items()))
        if self._graph is None or self._graph[0] != key:
            self._graph = (key, _RegionParser(self, fold=fold).parse(params or {}))
        return self._graph[1]

    def task_grids(self):
        """Task name -> its grid, as written or bundled (``hwgen.bundle``; no task body is
        lowered)."""
        parser = _RegionParser(self)
        _, tasks = parser.declarations()
        return physical_grids(parser, tasks, self.tensors(parser))

    def tensors(self, parser=None):
        """Tensor name -> its declared ``Tensor`` (direction unknown; no task is lowered)."""
        parser = parser or _RegionParser(self)
        return {a.arg: parser.tensor(a) for a in parser.node.args.args}

    def __repr__(self):
        return f"<hwgen.Region {self.name}>"


class _RegionParser:
    def __init__(self, region, prefix="", fold=None):
        self.region = region
        self.prefix = prefix        # of instance and stream names, in a called region
        self.folds = dict(fold or {})       # task -> physical grid, from a PE array
        self.bundles = []                   # the region's `hwgen.bundle(...)` statements
        self.chains = []                    # and its `hwgen.chain(...)` statements
        self.fold = None                    # a FoldState, when some task is folded
        self.offset = region.fn.__code__.co_firstlineno - 1
        self.warned = set()                 # where a warning of lowering was given
        self.node = region.source_node()
        self.ns = dict(region.namespace)
        self.ns.update(region.bindings)

    def loc(self, node):
        return (self.region.file, getattr(node, "lineno", 0) + self.offset)

    def region_named(self, name):
        """The region ``name`` is bound to in the region's scope, or ``None``."""
        value = self.ns.get(name)
        return value if isinstance(value, Region) else None

    def error(self, message, node, kind=HwgenError):
        raise kind(message, self.loc(node))

    def eval_const(self, node, what):
        """Evaluate a compile-time expression (sizes, types) in the region's scope; a string
        (``A: "UInt(8)[M]"``) is the expression it holds."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.copy_location(ast.parse(node.value, mode="eval").body, node)
            except SyntaxError:
                self.error(f"{what} `{node.value}` is not a Python expression", node)
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
        """The region's task graph at ``params``: its tensors, streams and one instance per
        grid position of each task, with inferred layouts."""
        if self.region.type_params and not self.region.bindings:
            self.error(f"region '{self.region.name}' has compile-time parameters "
                       f"[{', '.join(self.region.type_params)}]: use it as "
                       f"{self.region.name}[...], from a kernel or a build", self.node)
        tensors = {arg.arg: self.tensor(arg) for arg in self.node.args.args}
        channels, instances = {}, {}
        streams = self.lower_tasks(tensors, instances, channels)
        if self.fold is not None:
            link_streams((instances, channels), self.fold, streams)
            for t in tensors.values():      # layouts are on the virtual grid: inferred anew
                t.type = dataclasses.replace(t.type, layout=None)
        chain_tasks(self, self.chains, instances, channels)
        for t in tensors.values():
            if t.direction is None:
                raise HwgenError(f"tensor '{t.name}' is never read or written by any task; "
                                 "remove it or use it", t.loc)
            if t.type.resident and t.direction != "in":
                raise HwgenError(f"tensor '{t.name}' is resident, an input the host loads once, "
                                 "but a task writes it: drop resident() or write another "
                                 "tensor", t.loc)
        kept = [t for t in tensors.values() if t.type.resident]
        if kept and all(t.type.resident for t in tensors.values() if t.direction != "out"):
            raise HwgenError(f"every input of region '{self.region.name}' is resident, so no "
                             "input marks where a problem starts: the host must send at least "
                             f"one input with every problem (drop resident() from "
                             f"'{kept[0].name}' or add an input)", kept[0].loc)
        graph = Graph(self.region.name, dict(params), tensors, channels, instances,
                      loc=self.loc(self.node), folds=self.fold.folds if self.fold else {})
        _warn_unused_streams(graph, streams)
        return infer_layouts(graph)

    def lower_tasks(self, tensors, instances, channels):
        """Every task instance of the region into ``instances`` (streams into ``channels``),
        with the tasks of the regions they call; a task that only calls regions is dropped.
        Returns the region's stream declarations."""
        streams, tasks = self.declarations()
        if not tasks:
            self.error(f"region '{self.region.name}' has no @hwgen.task", self.node)
        grids = physical_grids(self, tasks, tensors)
        specs = {fn.name: self.task_spec(fn, tensors) for fn in tasks}
        if any(grids[name] != spec[0] for name, spec in specs.items()):
            self.fold = FoldState()
        for fn in tasks:
            virtual, visible = specs[fn.name]
            grid = grids[fn.name]
            if grid != virtual:
                self.fold.folds[fn.name] = (virtual, grid)
            for pid in itertools.product(*(range(g) for g in grid)):
                lowerer = TaskLowerer(self, fn, tuple(pid), grid, visible, streams, channels,
                                      fold=virtual if grid != virtual else None)
                inst = lowerer.lower()
                calls = lowerer.ctx.calls
                if self.fold is not None:
                    self.fold.depths[inst.name] = lowerer.ctx.n_fold
                if calls and self.fold is not None:
                    self.error("a folded program cannot call regions yet; fold the called "
                               "region's tasks instead", calls[0][2])
                for region, bound, node in calls:
                    sub = _RegionParser(region, prefix=f"{inst.name}.")
                    sub.lower_tasks(sub.bound(bound, self.loc(node)), instances, channels)
                if not calls or any(seg.body for seg in inst.segments):
                    instances[inst.name] = inst
        return streams

    def bound(self, tensors, loc):
        """The region's parameters bound to the caller's ``tensors``, types checked."""
        params = self.node.args.args
        if len(params) != len(tensors):
            raise HwgenError(f"region '{self.region.name}' takes {len(params)} tensor(s), "
                             f"given {len(tensors)}", loc)
        for param, tensor in zip(params, tensors):
            want = self.tensor(param).type
            if want.dtype != tensor.dtype or tuple(want.shape) != tuple(tensor.shape):
                raise HwgenError(f"region '{self.region.name}' declares '{param.arg}' as "
                                 f"{want!r}, given tensor '{tensor.name}' of "
                                 f"{tensor.dtype!r}{list(tensor.shape)}", loc)
        return {param.arg: tensor for param, tensor in zip(params, tensors)}

    def tensor(self, arg):
        """The tensor of region parameter ``arg`` (direction still unknown), its annotated type
        checked: positive integer shape, element width, one layout entry per dimension."""
        if arg.annotation is None:
            self.error(f"tensor parameter '{arg.arg}' needs a type such as int8[M, K]", arg)
        ttype = self.region.fn.__annotations__.get(arg.arg)
        if isinstance(ttype, str) or ttype is None or self.region.bindings:
            ttype = self.eval_const(arg.annotation, "a tensor type")
        if not isinstance(ttype, TensorType):
            self.error(f"parameter '{arg.arg}' must be a tensor type such as int8[M, K], "
                       f"got {ttype!r}", arg, HwgenTypeError)
        if any(not isinstance(d, int) or d < 1 for d in ttype.shape):
            self.error(f"tensor '{arg.arg}' has shape {list(ttype.shape)}: every dimension "
                       "must be a positive integer", arg)
        if ttype.dtype.bits > MAX_TENSOR_BITS:
            self.error(f"tensor '{arg.arg}' has {ttype.dtype.bits}-bit elements; tensors hold "
                       f"at most {MAX_TENSOR_BITS} bits per element (pack wider values in "
                       "streams or locals)", arg)
        if ttype.layout is not None and len(ttype.layout) != len(ttype.shape):
            self.error(f"tensor '{arg.arg}' has {len(ttype.shape)} dimensions but its layout "
                       f"has {len(ttype.layout)} entries; give one S(axis) or R per dimension",
                       arg)
        return Tensor(arg.arg, ttype, direction=None, loc=self.loc(arg))

    def declarations(self):
        """The region body's stream declarations (name -> (type, loc)) and task functions;
        other constants go into the namespace the tasks see. Anything else is an error."""
        streams = {}
        tasks = []
        for stmt in self.node.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, ast.FunctionDef):
                tasks.append(stmt)
                continue
            if isinstance(stmt, ast.Expr) and is_call_to(stmt.value, "bundle"):
                self.bundles.append(stmt)
                continue
            if isinstance(stmt, ast.Expr) and is_call_to(stmt.value, "chain"):
                self.chains.append(stmt)
                continue
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                expr = stmt.value if stmt.value is not None else stmt.annotation
                if not isinstance(target, ast.Name):
                    self.error("a region declares streams and constants as `name = ...`", stmt)
                value = self.eval_const(expr, "a stream type or constant")
                if isinstance(value, StreamType):
                    self.check_stream_type(value, stmt)
                    streams[target.id] = (value.packed(), self.loc(stmt))
                else:
                    self.ns[target.id] = value
                continue
            self.error(f"unsupported statement in a region: `{ast.unparse(stmt).splitlines()[0]}`;"
                       " a region holds stream declarations and @hwgen.task functions", stmt)
        return streams, tasks

    def check_stream_type(self, st, node):
        block = st.dtype if isinstance(st.dtype, TensorType) else None
        if block is not None and (not isinstance(block.dtype, IntType) or block.layout or any(
                not isinstance(d, int) or d < 1 for d in block.shape)):
            self.error(f"a stream of blocks needs an element type and positive sizes, like "
                       f"Stream[int16[4, 4], 2], got {block!r}", node)
        if block is None and not isinstance(st.dtype, IntType):
            self.error(f"unknown stream element type {st.dtype!r}; use int8, int16, int32, uint8, "
                       "..., Int(bits), a float type or a block such as int16[4, 4]", node)
        if not isinstance(st.depth, int) or st.depth < 1:
            self.error(f"stream depth must be a positive integer, got {st.depth!r}", node)
        if st.bound is not None and (not isinstance(st.bound, int) or st.bound < 1):
            self.error(f"a closed stream's bound (the most values per problem) must be a "
                       f"positive integer, as in Stream[int8, 4, 256]; got {st.bound!r}", node)
        if any(not isinstance(d, int) or d < 1 for d in st.shape):
            self.error(f"stream array shape {list(st.shape)} must be positive integers", node)

    def task_spec(self, fn, tensors):
        """The grid of task ``fn`` (``mapping=[P0, ...]``) and the tensors its body sees by
        name: the region's, or with Allo's ``args=[A, B]`` its parameters bound to them."""
        decos = [d for d in fn.decorator_list
                 if any((isinstance(d, ast.Call) and is_call_to(d, kind))
                        or (isinstance(d, ast.Attribute) and d.attr == kind)
                        or (isinstance(d, ast.Name) and d.id == kind) for kind in _TASK_MARKS)]
        if not decos:
            self.error(f"function '{fn.name}' inside a region must be decorated with @hwgen.task",
                       fn)
        deco = decos[0]
        grid, args = (), None
        for kw in deco.keywords if isinstance(deco, ast.Call) else ():
            if kw.arg == "mapping":
                grid = self.eval_const(kw.value, "the task mapping")
                grid = tuple(grid) if isinstance(grid, (list, tuple)) else (grid,)
                if not 1 <= len(grid) <= 3 or any(not isinstance(g, int) or g < 1 for g in grid):
                    self.error(f"mapping must list 1 to 3 positive grid sizes, got {list(grid)}",
                               deco)
            elif kw.arg == "args":
                args = kw.value
            else:
                self.error(f"a task takes mapping=[...] (and, as in Allo, args=[...]), not "
                           f"{kw.arg}=", deco)
        if args is None:
            for arg in fn.args.args:
                if arg.arg not in tensors:
                    self.error(f"task parameter '{arg.arg}' is not a tensor of the region "
                               f"(tensors: {', '.join(tensors) or 'none'})", arg)
            return grid, tensors
        return grid, self.bound_params(fn, args, tensors, grid)

    def bound_params(self, fn, args, tensors, grid):
        """Allo's ``@df.kernel(args=[A, B]) def k(local_A: T[...], local_B: T[...])``: each
        parameter names the region tensor at its position; it has that tensor's type."""
        if not isinstance(args, (ast.List, ast.Tuple)) or \
                not all(isinstance(a, ast.Name) and a.id in tensors for a in args.elts):
            self.error(f"args=[...] must list tensors of the region (tensors: "
                       f"{', '.join(tensors) or 'none'})", args)
        params = fn.args.args
        if len(params) != len(args.elts):
            self.error(f"kernel '{fn.name}' has {len(params)} parameter(s) but args= binds "
                       f"{len(args.elts)}; give one parameter per tensor in args=", fn)
        visible = {}
        for param, arg in zip(params, args.elts):
            tensor = tensors[arg.id]
            visible[param.arg] = tensor
            if param.annotation is None:
                continue
            ptype = self.eval_const(param.annotation, "a tensor type")
            if not isinstance(ptype, TensorType) or ptype.dtype != tensor.dtype or \
                    tuple(ptype.shape) != tuple(tensor.shape):
                self.error(f"parameter '{param.arg}' is declared {ptype!r} but is bound to "
                           f"tensor '{arg.id}' of type {tensor.dtype!r}{list(tensor.shape)}; "
                           "declare it with the tensor's type (with `@ Layout(...)` it is "
                           "the instance's shard, indexed from 0)", param, HwgenTypeError)
            if ptype.layout is not None:
                visible[param.arg] = self.shard_view(param, tensor, ptype.layout, grid)
        return visible

    def shard_view(self, param, tensor, layout, grid):
        """Allo's ``local_A: Ty[M, K] @ Ly``: the instance's shard of ``tensor``."""
        if len(layout) != len(tensor.shape):
            self.error(f"the layout of '{param.arg}' has {len(layout)} entries for "
                       f"{len(tensor.shape)} dimensions", param)
        for n, entry in zip(tensor.shape, layout):
            axis = getattr(entry, "axis", None)
            if axis is not None and (axis >= len(grid) or n % grid[axis]):
                self.error(f"'{param.arg}' shards a dimension of {n} over grid axis {axis} "
                           f"of a grid {list(grid)}: the axis must exist and divide it", param)
        return TensorView(tensor, tuple(layout), grid)


def _warn_unused_streams(graph, streams):
    """A declared single stream no task puts to or gets from is a warning at its declaration
    (it builds nothing; an unused tensor, part of the host interface, is an error). Stream
    arrays are left alone: at degenerate sizes (a grid of one) they rightly carry nothing."""
    for name, (stype, loc) in streams.items():
        if not stype.shape and name not in graph.channels:
            message = f"stream '{name}' is declared but no task puts to or gets from it; " \
                      "remove it"
            graph.warnings.append(message)
            warnings.warn_explicit(message, HwgenWarning, loc[0], loc[1])
