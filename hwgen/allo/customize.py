"""Allo's ``allo.customize`` / ``df.customize``: a schedule of HLS directives over a program.

Allo's directives (``pipeline``, ``unroll``, ``partition``) tell an HLS tool how to build loops
and arrays; they never change what a program computes. hwgen's own schedule already runs every
loop nest pipelined at one iteration per clock, with small arrays in registers and large ones in
block RAM, so a directive is checked (the kernel, loop and array it names must exist), kept in
``directives`` and, where hwgen builds something else than asked, reported by a warning.
``build()`` then runs the program as ``df.build`` does.
"""
import ast
import warnings

from ..errors import HwgenError, HwgenWarning
from ..lang.frontend import Region
from .function import function_region
from .ir.utils import MockBuffer
from .targets import build, checked_graph, describe

_APPLIED = {
    "pipeline": None,
    "unroll": "hwgen does not unroll loops: the loop stays pipelined at one iteration per "
              "clock (for more parallelism, map the work over more kernel instances)",
    "partition": "hwgen chooses array storage itself (registers up to 16 elements, block RAM "
                 "otherwise); the partition is not applied",
}


def customize(fn):
    """A ``Schedule`` of ``fn``: a ``@df.region()`` or a plain Allo function."""
    if isinstance(fn, Region):
        return Schedule(fn)
    if callable(fn) and hasattr(fn, "__code__"):
        return Schedule(function_region(fn), function=True)
    raise HwgenError(f"customize() takes a @df.region() or a typed Allo function, got {fn!r}")


class Schedule:
    """Directives over one program; ``module`` describes it, ``build()`` runs it."""

    def __init__(self, region, function=False):
        self.region, self.function = region, function
        self.graph = checked_graph(region)
        self.directives = []
        self._loops = _loop_names(region)

    @property
    def module(self):
        lines = [describe(self.graph)]
        lines += [f"  directive {d}" for d in self.directives]
        return "\n".join(lines)

    def pipeline(self, loop, ii=1, **_):
        self._directive("pipeline", f"pipeline({loop!r}, ii={ii})", loop=loop)
        if ii != 1:
            warnings.warn(f"pipeline({loop!r}, ii={ii}): hwgen starts an iteration every clock "
                          "(ii=1)", HwgenWarning, stacklevel=2)

    def unroll(self, loop, factor=0, **_):
        self._directive("unroll", f"unroll({loop!r}, factor={factor})", loop=loop)

    def partition(self, target, partition_type=0, dim=0, factor=0, **_):
        self._directive("partition", f"partition({target!r}, dim={dim}, factor={factor})",
                        buffer=target)

    def build(self, target="llvm", **options):
        if self.function:
            if target not in ("llvm", "simulator"):
                raise HwgenError(f"a customized Allo function runs on target 'llvm' (hwgen's "
                                 f"interpreter), not {target!r}")
            from .function import FunctionModule
            return FunctionModule(self.region)
        return build(self.region, "simulator" if target == "llvm" else target, **options)

    def _directive(self, kind, text, loop=None, buffer=None):
        if loop is not None:
            kernel, _, var = str(loop).rpartition(":")
            if (kernel or self.region.name, var) not in self._loops:
                known = ", ".join(sorted(f"{k}:{v}" for k, v in self._loops))
                raise HwgenError(f"{kind}({loop!r}): no loop '{var}' in '{kernel or '?'}'; "
                                 f"loops are named 'kernel_pid:variable' ({known})")
        if buffer is not None:
            if not isinstance(buffer, MockBuffer):
                raise HwgenError(f"{kind}({buffer!r}): name the array with "
                                 "MockBuffer('kernel_pid', 'array') (from allo.ir.utils)")
            inst = self._instance(buffer.func)
            if buffer.name not in inst.arrays:
                raise HwgenError(f"{kind}: kernel '{buffer.func}' has no local array "
                                 f"'{buffer.name}'")
        self.directives.append(text)
        if _APPLIED[kind]:
            warnings.warn(f"{text}: {_APPLIED[kind]}", HwgenWarning, stacklevel=3)

    def _instance(self, allo_name):
        for inst in self.graph.instances.values():
            if _allo_name(inst) == allo_name:
                return inst
        names = ", ".join(_allo_name(i) for i in self.graph.instances.values())
        raise HwgenError(f"no kernel instance '{allo_name}' (instances: {names})")


def _allo_name(inst):
    """Allo's name of a kernel instance: ``gemm_0_1`` for ``gemm[0,1]``."""
    return "_".join([inst.task] + [str(p) for p in inst.pid]) if inst.pid else inst.task


def _loop_names(region):
    """``(kernel instance, loop variable)`` of every loop of the program, in Allo's naming."""
    node = region.source_node()
    graph = region.graph()
    found = set()
    for fn in [node] + [s for s in node.body if isinstance(s, ast.FunctionDef)]:
        names = {e.id for loop in ast.walk(fn) if isinstance(loop, ast.For)
                 for e in ast.walk(loop.target) if isinstance(e, ast.Name)}
        kernels = [_allo_name(i) for i in graph.instances.values() if i.task == fn.name] \
            if fn is not node else [region.name]
        found |= {(k, n) for k in kernels for n in names}
    return found
