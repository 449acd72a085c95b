"""Allo's spelling of hwgen's language: ``import allo`` becomes ``import hwgen.allo as allo``.

The submodules mirror Allo's module paths (``hwgen.allo.dataflow``, ``hwgen.allo.ir.types``,
``hwgen.allo.memory``, ``hwgen.allo.backend.hls``), so that porting an ``allo.dataflow`` program
means changing its import lines only. Programs lower to the same task graph as hwgen's own
language; there is no second compiler.
"""
from ..errors import HwgenError
from ..lang import exp, get_pid, meta_elif, meta_else, meta_for, meta_if
from . import dataflow
from .customize import customize
from .ir.types import *  # noqa: F401,F403


def grid(*sizes):
    """``for i, j in allo.grid(M, N):`` inside a kernel: a loop nest, one loop per size."""
    raise HwgenError("allo.grid() only has a meaning as the range of a for loop inside "
                              "a kernel, which hwgen compiles instead of running")


def reduction(*sizes):
    """``for r, c in allo.reduction(R, C):`` inside a kernel: a loop nest, as ``allo.grid``."""
    return grid(*sizes)


__all__ = ["customize", "dataflow", "grid", "reduction", "exp", "get_pid", "meta_if", "meta_elif", "meta_else", "meta_for"]
