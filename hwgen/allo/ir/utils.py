"""Allo's ``allo.ir.utils.MockBuffer``: names a local array of a kernel instance in a schedule
directive (``s.partition(MockBuffer("linear1_0", "buf"), ...)``)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class MockBuffer:
    func: str       # the kernel instance, in Allo's naming (``gemm_0_1``)
    name: str       # the local array
