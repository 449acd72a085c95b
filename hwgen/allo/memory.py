"""Allo's ``allo.memory.Layout``: a tensor's distribution over the task grid, as hwgen's.

``Layout([Layout.Shard(0), Layout.Replicate()])`` is hwgen's ``[S(0), R]``: dimension 0 split
over grid axis 0, dimension 1 whole in every instance; write ``int8[M, K] @ Ly``.
"""
from ..ir.types import R, S


class Layout(tuple):
    """One entry per tensor dimension: ``Layout.Shard(axis)`` or ``Layout.Replicate()``."""

    @staticmethod
    def Shard(axis):        # noqa: N802 -- Allo's spelling
        return S(axis)

    @staticmethod
    def Replicate():        # noqa: N802 -- Allo's spelling
        return R

    def __new__(cls, partitions):
        return super().__new__(cls, partitions)
