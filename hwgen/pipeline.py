"""Load an example program, instantiate it at given parameters and check it."""
import importlib.util
import inspect
import math
import os
import traceback

from .check import check
from .errors import HwgenError
from .lang.frontend import Region
from .mapping import fold_onto
from .mapping.fusion import DEVICE_BRAMS
from .mapping.search import check_budgets, search
from .mapping.tiling import need_of, tile_problem


def parse_params(text):
    """``"M=8 N=8 K=64"`` -> ``{"M": 8, "N": 8, "K": 64}``."""
    params = {}
    for item in (text or "").replace(",", " ").split():
        name, sep, value = item.partition("=")
        if not sep or not name.isidentifier():
            raise HwgenError(f"bad parameter {item!r}: write NAME=VALUE, e.g. PARAMS=\"M=8 K=64\"")
        try:
            params[name] = int(value, 0)
        except ValueError:
            raise HwgenError(f"parameter {name} must be an integer, got {value!r}") from None
    return params


def load_module(path):
    if not os.path.isfile(path):
        raise HwgenError(f"design file {path!r} not found (try hwgen/examples/gemm_os.py)")
    name = "hwgen_design_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except HwgenError:
        raise
    except Exception as e:
        raise _user_error(e, path) from None
    return module


def _user_error(exc, path):
    """A Python error raised in the user's file, as a HwgenError naming their line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if os.path.abspath(f.filename) == os.path.abspath(path)]
    loc = (frames[-1].filename, frames[-1].lineno) if frames else None
    hint = ""
    if isinstance(exc, NameError):
        hint = " (unknown name: is it a type? use int8, int16, int32, uint8, ... or Int(bits))"
    return HwgenError(f"{type(exc).__name__}: {exc}{hint}", loc)


def describe_folds(graph):
    """What ``load_design`` folded: the search's report under a budget, the tiles of a
    problem too large for block RAM, then one line per task folded onto a PE array."""
    lines = list(graph.search)
    if graph.tiles:
        split = " x ".join(f"{loop['count']} tiles of {loop['param']}={loop['size']}"
                           for loop in graph.tiles["loops"] if loop["count"] > 1)
        lines.append(f"tiling the problem {graph.tiles['params']} into {split}: the host runs "
                     "one problem of the design per tile (design.json's tiles)" if split else
                     f"padding the problem {graph.tiles['params']} to {graph.params}, a "
                     "multiple of the array on its axes (design.json's tiles: one tile)")
    return lines + [f"folding task {task} from grid {list(virtual)} onto {list(phys)}: each PE "
                    f"runs up to {math.prod(-(-v // p) for v, p in zip(virtual, phys))} grid "
                    "positions in turn" for task, (virtual, phys) in graph.folds.items()]


def load_design(path, params=None, module=None, array=None, budget=None,
                brams=DEVICE_BRAMS["ecp5-85k"]):
    """The checked task graph of the design in ``path`` at ``params`` (missing ones default);
    ``module``: the file already loaded by ``load_module``, so that it runs only once;
    ``array``: a PE array budget (``(rows, cols)``) that task grids larger than it fold onto
    (``mapping.fold_onto``; the graph's ``folds`` say which); ``budget``: PEs, DSP blocks,
    block RAMs, host-port pins and LUTs for multiplies in logic (``{"pes": 64, "dsps": 64,
    "brams": None, "ports": 365, "luts": None}``)
    the grids fold within, choosing the array shape by the schedule's cycles
    (``mapping.search``; ``array`` bounds it);
    ``brams``: with ``array``, a problem whose tensors exceed that many block RAMs is tiled
    (``mapping.tiling``; the graph's ``tiles`` say how)."""
    check_budgets(brams=brams)
    module = module or load_module(path)
    build = getattr(module, "build", None)
    if build is None:
        raise HwgenError(f"{path} must define build(**params) returning a @hwgen.region")
    sig = inspect.signature(build)
    params = dict(params or {})
    unknown = set(params) - set(sig.parameters)
    if unknown:
        raise HwgenError(f"unknown parameter(s) {sorted(unknown)} for {path}; it takes "
                         + ", ".join(f"{k}={v.default}" for k, v in sig.parameters.items()))
    missing = [k for k, v in sig.parameters.items() if k not in params and v.default is v.empty]
    if missing:
        code = build.__code__
        raise HwgenError(f"build() parameter(s) {', '.join(missing)} have no default: give them "
                         "one (`def build(" + ", ".join(f"{k}: int = 8" for k in missing)
                         + "):`) or set them, e.g. PARAMS=\"" + " ".join(f"{k}=8" for k in missing)
                         + "\"", (code.co_filename, code.co_firstlineno))
    full = {k: params.get(k, v.default) for k, v in sig.parameters.items()}
    for k, v in full.items():
        if not isinstance(v, int) or v < 1:
            raise HwgenError(f"parameter {k} must be a positive integer, got {v!r}")
    region = _region(path, build, full)
    if budget:
        graph, report = search(region.task_grids(), lambda f: check(region.graph(full, fold=f)),
                               array=array, **budget)
        limit = budget.get("brams", brams)
        if graph.folds and limit is not None:   # tiled within the block RAMs where it must be
            graph = _folded(path, build, full, region, _shape(graph.folds), limit, graph)
        return graph.with_(search=report)
    if array is None:
        return check(region.graph(full))
    return _folded(path, build, full, region, array, brams)


def _shape(folds):
    """The array shape a search's folds (task -> (virtual, physical grid)) were made for."""
    phys = [p for _, p in folds.values()]
    return tuple(max(p[a] for p in phys if len(p) > a) for a in range(max(map(len, phys))))


def _region(path, build, params):
    """The region ``build(**params)`` returns, a user's error naming their line."""
    try:
        region = build(**params)
    except HwgenError:
        raise
    except Exception as e:
        raise _user_error(e, path) from None
    if not isinstance(region, Region):
        raise HwgenError(f"build() in {path} must return a @hwgen.region, got {region!r}")
    return region


def _folded(path, build, full, region, array, brams, graph=None):
    """The graph folded onto ``array`` (``graph``, when already built); tiled
    (``mapping.tiling``) when the tensors' buffers exceed ``brams`` block RAMs."""
    def at(params):
        return region if params == full else _region(path, build, params)

    def shapes(params):
        return {t.name: (t.shape, t.dtype.bits) for t in at(params).tensors().values()}

    def grid(params):
        return max(at(params).task_grids().values(), key=math.prod, default=())

    def folded(params):
        tile = at(params)
        return tile.graph(params, fold=fold_onto(tile.task_grids(), array))

    need, graph = need_of(graph or check(folded(full)), shapes(full), brams)
    if need <= brams:
        return graph
    return tile_problem(folded, shapes, grid, full, {t.name for t in graph.outputs}, array,
                        brams, f"the tensors' buffers need about {need} block RAMs, over the "
                        f"budget of {brams}")


def load_point(design, brams=DEVICE_BRAMS["ecp5-85k"]):
    """The checked task graph of a dataflow-exploration point (``dataflow.design.Design``):
    as generated when its array divides the loops it runs and its buffers fit ``brams`` block
    RAMs; else built for a tile of the problem (``mapping.tiling``; the graph's ``tiles``),
    a loop the array does not divide padded with zeros (the expression sums products)."""
    from .dataflow.design import Design
    from .dataflow.generate import design_tensors, lower
    check_budgets(brams=brams)

    def at(sizes):
        return Design(design.expr, sizes, design.array, design.space, design.inner, design.skew)

    def shapes(sizes):
        return {t.name: (t.shape, t.dtype.bits) for t in design_tensors(at(sizes)).values()}

    def grid(sizes):
        return tuple(sizes[loop] for loop in design.space)

    full = dict(design.sizes)
    why = ("the array " + "x".join(map(str, design.array)) + " does not divide "
           + ", ".join(f"{loop}={full[loop]}" for loop in design.space))
    if design.exact:        # checked only if built whole (the check runs every iteration)
        need, graph = need_of(lower(design), shapes(full), brams)
        if need <= brams:
            return check(graph)
        why = f"the tensors' buffers need about {need} block RAMs, over the budget of {brams}"
    return tile_problem(lambda sizes: lower(at(sizes)), shapes, grid, full,
                        {design.expr.output.tensor}, design.array, brams, why,
                        zeros_neutral=True)
