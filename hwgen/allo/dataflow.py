"""Allo's ``allo.dataflow``: ``@df.region()``, ``@df.kernel(mapping=, args=)``, ``df.get_pid()``
and ``df.build(top, target=...)``.

``build`` returns a module called like Allo's: ``mod(A, B, C)`` on numpy arrays, in the
region's parameter order, writes the outputs into their arrays in place. Targets:
``"simulator"`` runs hwgen's functional interpreter; ``"verilator"`` (also ``"rtl"``) generates
the design's Verilog and runs it in Verilator. Allo's HLS and AIE targets need vendor tools
hwgen does not drive: ``build`` still returns a module (as Allo does without Vitis), and using
it raises an error that says which targets to use.
"""
import sys

from ..lang import get_pid  # noqa: F401 -- df.get_pid()
from ..lang.frontend import Region
from .customize import customize  # noqa: F401 -- df.customize(top)
from .targets import build  # noqa: F401 -- df.build(top, target=...)

def region(fn=None):
    """``@df.region()`` (or ``@df.region``): a program of kernels and streams."""
    caller = sys._getframe(1)
    namespace = {**caller.f_globals, **caller.f_locals}
    if fn is None:
        return lambda f: Region(f, namespace)
    return Region(fn, namespace)


def kernel(fn=None, *, mapping=None, args=None):
    """``@df.kernel(mapping=[P0, P1], args=[A, B])``: a task on a grid, whose parameters are the
    region tensors listed in ``args``, in order. hwgen reads the source; nothing runs here."""
    if fn is None:
        return lambda f: f
    return fn
