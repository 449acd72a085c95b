"""Tensor expression + space-time map -> access entries (the Rubick model, math only).

``expr`` parses ``C[i,j] += A[i,k] * B[k,j]`` into loops and affine accesses, ``spacetime`` builds
the unimodular map ``T`` (``x=j, y=i, t1=i+j+k``), ``entries`` classifies each tensor's reuse
space into one of the 14 access entries of a 2-D array, ``layout`` gives the data layout of
``A·T⁻¹ = L·E``, and ``search`` enumerates all small maps. ``design`` is the family of maps hwgen
generates, ``generate`` lowers a point to a task graph, ``cost`` prices it (cycles by the
rules of ``schedule``: skews of ``schedule.groups``, host timing of ``schedule.host_timing``, read ports
as ``schedule.ports`` shares them; resources by ``resources``' structural counts), ``explore``
searches the space and ``report``/``layers`` show the results.
"""
from .entries import (DIRECTIONS, ENTRIES, AccessEntry, Direction, Entry, classify, entries,
                      entry_table, null_space, reuse_space)
from .expr import Access, Expr, parse_expr, parse_sizes
from .search import Dataflow, Enumeration, enumerate_dataflows
from .spacetime import SpaceTime

__all__ = ["Access", "Expr", "parse_expr", "parse_sizes", "SpaceTime", "Direction", "Entry",
           "AccessEntry", "DIRECTIONS", "ENTRIES", "entries", "null_space", "reuse_space",
           "classify", "entry_table", "Dataflow", "Enumeration", "enumerate_dataflows"]
