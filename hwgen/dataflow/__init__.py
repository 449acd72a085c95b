"""Tensor expression + space-time map -> access entries (the Rubick model, math only).

``expr`` parses ``C[i,j] += A[i,k] * B[k,j]`` into loops and affine accesses, ``spacetime`` builds
the unimodular map ``T`` (``x=j, y=i, t1=i+j+k``), ``entries`` classifies each tensor's reuse
space into one of the 14 access entries of a 2-D array, and ``search`` enumerates all small maps.
This package imports only ``hwgen.errors`` (and later ``hwgen.ir``): no hardware.
"""
from .entries import (DIRECTIONS, ENTRIES, AccessEntry, Direction, Entry, classify, entries,
                      entry_table, null_space, reuse_space)
from .expr import Access, Expr, parse_expr, parse_sizes
from .search import Dataflow, Enumeration, enumerate_dataflows
from .spacetime import SpaceTime

__all__ = ["Access", "Expr", "parse_expr", "parse_sizes", "SpaceTime", "Direction", "Entry",
           "AccessEntry", "DIRECTIONS", "ENTRIES", "entries", "null_space", "reuse_space",
           "classify", "entry_table", "Dataflow", "Enumeration", "enumerate_dataflows"]
