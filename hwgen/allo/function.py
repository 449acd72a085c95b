"""A plain Allo function (``def f(A: T[M, K], ...) -> T[M, N]: ... return C``) as a region.

``allo.customize(f).build()`` runs such a function on the CPU in Allo. Here it becomes a region
with one kernel: the function's body, the value it returns copied into one more tensor, named
``result``, which the module returns.
"""
import ast
import inspect
import textwrap

import numpy as np

from ..errors import HwgenError
from ..ir.types import FloatType, TensorType
from ..lang.frontend import Region
from .targets import SimulatorModule


def function_region(fn):
    """The one-kernel region that computes ``fn``."""
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError):
        raise HwgenError(f"{fn.__name__} has no source file to read (defined with exec or at "
                         "an interactive prompt); define it in a .py file") from None
    file = inspect.getsourcefile(fn)
    line = fn.__code__.co_firstlineno
    if not isinstance(node, ast.FunctionDef) or node.returns is None:
        raise HwgenError(f"{fn.__name__}: a function to customize returns a tensor it declares "
                         "in its signature, `def f(A: float32[M, K]) -> float32[M, N]:`",
                         (file, line))
    ret = node.body[-1]
    if not isinstance(ret, ast.Return) or not isinstance(ret.value, ast.Name) or any(
            isinstance(s, ast.Return) for s in ast.walk(ast.Module(node.body[:-1], []))):
        where = ret.lineno + line - 1 if isinstance(ret, ast.Return) else line
        raise HwgenError(f"{fn.__name__}: end the function with one `return C`, C a local array "
                         "or tensor of the returned type", (file, where))
    rtype = fn.__annotations__.get("return")
    if not isinstance(rtype, TensorType):
        raise HwgenError(f"{fn.__name__}: the return type must be a tensor type such as "
                         f"float32[M, N], got {rtype!r}", (file, line))
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
        {a.arg for a in node.args.args}
    result = next(f"result{n or ''}" for n in range(len(names) + 1)
                  if f"result{n or ''}" not in names)
    kernel = ast.FunctionDef(fn.__name__, ast.arguments([], [], None, [], [], None, []),
                             node.body[:-1] + [_copy(result, ret, rtype.shape)],
                             [ast.Name("kernel", ast.Load())], None)
    top = ast.FunctionDef(node.name, ast.arguments(
        [], node.args.args + [ast.arg(result, node.returns)], None, [], [], None, []),
        [kernel], [], None)
    for n in (kernel, top):
        ast.copy_location(n, node)
    ast.fix_missing_locations(top)
    namespace = {**fn.__globals__, **inspect.getclosurevars(fn).nonlocals}
    return Region(fn, namespace, node=top)


def _copy(result, ret, shape):
    """``result[i0, i1, ...] = C[i0, i1, ...]`` over every element, at the ``return``'s line."""
    idx = ", ".join(f"__r{d}" for d in range(len(shape)))
    source = "".join(f"{'    ' * d}for __r{d} in range({n}):\n" for d, n in enumerate(shape))
    source += f"{'    ' * len(shape)}{result}[{idx}] = {ret.value.id}[{idx}]\n"
    loop = ast.parse(source).body[0]
    for n in ast.walk(loop):
        ast.copy_location(n, ret)
    return loop


class FunctionModule(SimulatorModule):
    """``mod(A, B)`` runs the function in hwgen's interpreter and returns its result."""

    def __call__(self, *arrays):
        t = list(self.graph.tensors.values())[-1]      # ``result``: the last parameter
        out = np.zeros(t.shape, _numpy_type(t.dtype))
        super().__call__(*arrays, out)
        return out


def _numpy_type(dtype):
    if isinstance(dtype, FloatType):
        return np.float16 if dtype.label == "float16" else np.float32
    for bits in (8, 16, 32, 64):
        if dtype.bits <= bits:
            return np.dtype(f"{'int' if dtype.signed else 'uint'}{bits}")
    raise HwgenError(f"a {dtype!r} result has no numpy type")
