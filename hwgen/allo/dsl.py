"""Allo's ``allo.dsl``: ``dsl.grid`` and ``dsl.reduction`` inside a kernel, as ``allo.grid``."""
from . import grid, reduction  # noqa: F401
