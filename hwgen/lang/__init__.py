"""The task-and-stream language (the Dato model): regions, tasks, streams, typed tensors."""
from ..ir.types import (FloatType, Int, IntType, R, S, Stream, UInt, bfloat16, float16, float32,
                        resident,
                        int1, int2, int4, int8, int16, int32, int64, uint1, uint2, uint4, uint8,
                        uint16, uint32, uint64)
from .chain import chain
from .fold import bundle
from .frontend import Region, region
from .markers import bounded, exp, get_pid, meta_elif, meta_else, meta_for, meta_if, task

__all__ = ["Region", "region", "task", "bundle", "chain", "get_pid", "exp", "meta_if", "meta_elif",
           "meta_else", "meta_for", "bounded",
           "Stream", "S", "R", "resident", "Int", "UInt", "IntType", "FloatType",
           "float32", "bfloat16", "float16",
           "int1", "int2", "int4", "int8", "int16", "int32", "int64",
           "uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64"]
