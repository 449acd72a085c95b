"""When hardware builds a tensor that the tasks both read and write (in-out, ``C[i, j] += ...``).

The host sends the tensor in and receives it back; in between, the tasks read the values the
host sent from an input buffer and write into an output buffer, as for any other input and
output. That is the program's meaning exactly when, in every problem, each element is written
(else the output would miss the values the host sent), is read and written by one task instance
only, and is never read after that instance wrote it. The accesses are affine in the loop
counters and their predicates test loop counters only (``support``), so whether this holds is
decided exactly, by walking every iteration once.
"""
import dataclasses
import math
from functools import partial

import numpy as np

from ..errors import HwgenError
from ..ir.graph import (BINARY, ArrayWrite, BinOp, Const, LoopIndex, Neg, Read, Write, allowed,
                        stmt_exprs, transform)

LIMIT = 1 << 22         # iterations walked at most (a few seconds)


def check_in_out(graph):
    """Raise ``HwgenError`` at the line for an in-out tensor the hardware cannot build."""
    for t in (t for t in graph.tensors.values() if t.direction == "inout"):
        owner = np.full(math.prod(t.shape), -1)        # the instance that touches an element
        written = np.zeros(len(owner), dtype=bool)
        for n, inst in enumerate(graph.instances.values()):
            reads, writes = accesses(inst, t.shape, partial(_of_tensor, t.name),
                                     f"in-out tensor '{t.name}'", "give the result its own tensor")
            for access in (reads, writes):
                taken = owner[access.elements] >= 0
                if taken.any():
                    _refuse(inst, t, access.loc(taken), f"touches element "
                            f"{_element(t, access.elements[taken][0])}, which another task "
                            "instance also reads or writes (in hardware each element of an "
                            "in-out tensor belongs to one instance)")
            first_write = np.full(len(owner), np.inf)
            np.minimum.at(first_write, writes.elements, writes.times)
            late = reads.times > first_write[reads.elements]
            if late.any():
                _refuse(inst, t, reads.loc(late), f"reads element "
                        f"{_element(t, reads.elements[late][0])} after writing it; hardware "
                        "reads an in-out tensor's elements as the host sent them: keep the "
                        "updated value in a local and write the element once, at the end")
            owner[reads.elements] = owner[writes.elements] = n
            written[writes.elements] = True
        if not written.all():
            raise HwgenError(f"tensor '{t.name}' is read and written by the tasks, but element "
                             f"{_element(t, np.flatnonzero(~written)[0])} is never written; "
                             "hardware returns an in-out tensor from what the tasks write: "
                             "write every element (or give the result its own tensor)", t.loc)


def _refuse(inst, tensor, loc, why):
    raise HwgenError(f"in task {inst.name}: tensor '{tensor.name}' is read and written; the "
                     f"task {why}", loc)


def _element(tensor, flat):
    return "[" + ", ".join(map(str, np.unravel_index(int(flat), tensor.shape))) + "]"


@dataclasses.dataclass
class Accesses:
    """Reads (or writes) of one tensor or local array by one instance: when (a time orders
    statements in program order, a write after the reads of its own statement; the clock
    counts iterations), which element, at which statement's line."""
    times: np.ndarray
    elements: np.ndarray
    lines: np.ndarray
    clocks: np.ndarray
    locs: list

    def loc(self, mask):
        """The line of the first access that ``mask`` selects."""
        return self.locs[self.lines[mask][0]]


def _of_tensor(name, body, k):
    """``("r" or "w", index)`` of each access of statement ``body[k]`` to tensor ``name``."""
    stmt = body[k]
    found = [("r", e.index) for e in stmt_exprs(stmt) if isinstance(e, Read) and e.tensor == name]
    return found + ([("w", stmt.index)] if isinstance(stmt, Write) and stmt.tensor == name
                    else [])


def accesses(inst, shape, found_in, what, instead):
    """The instance's reads and its writes of a tensor, local array or variable of ``shape``
    (``found_in(body, k)``: ``("r" or "w", index)`` of each access of ``body[k]``), as two
    ``Accesses``; ``what`` and ``instead`` word the error for a loop nest too long to walk."""
    found = {"r": [], "w": []}
    locs, start, clock = [], 0, 0
    for seg in inst.segments:
        steps = 2 * len(seg.body) + 2
        if seg.iterations > LIMIT:
            raise HwgenError(f"in task {inst.name}: the accesses of {what} span "
                             f"{seg.iterations} iterations, more than the {LIMIT} that "
                             f"hardware generation checks; {instead}", seg.loc or inst.loc)
        loops = np.indices(seg.trips).reshape(len(seg.trips), seg.iterations)
        for k, stmt in enumerate(seg.body):
            runs = np.ones(loops.shape[1], dtype=bool)
            for d, trip in enumerate(seg.trips):
                runs &= np.isin(loops[d], allowed(stmt.pred, d, trip))
            ran = np.flatnonzero(runs)
            time, at = start + ran * steps + 2 * k, loops[:, runs]
            for kind, index in found_in(seg.body, k):
                found[kind].append((time + (kind == "w"), _flat(shape, index, at),
                                    np.full(len(time), len(locs)), clock + ran))
            locs.append(stmt.loc)
        start += seg.iterations * steps
        clock += seg.iterations
    return tuple(Accesses(*(np.concatenate([a[n] for a in parts] or [np.zeros(0, int)])
                            for n in range(4)), locs) for parts in found.values())


def _flat(shape, index, loops):
    """The row-major element numbers that ``index`` reaches on the iterations ``loops``."""
    coords = [np.broadcast_to(_value(i, loops), loops.shape[1:]) for i in index]
    return np.ravel_multi_index(coords, shape)


def _value(expr, loops):
    if isinstance(expr, Const):
        return np.int64(expr.value)
    if isinstance(expr, LoopIndex):
        return loops[expr.depth]
    if isinstance(expr, Neg):
        return -_value(expr.operand, loops)
    if isinstance(expr, BinOp):         # + - * // %: ``support._static_indices`` first
        return BINARY[expr.op](_value(expr.lhs, loops), _value(expr.rhs, loops))
    raise AssertionError(f"not an affine index: {expr}")     # support._static_indices first


def split_in_out(graph):
    """``graph`` with each in-out tensor ``C`` as two, ``C_in`` that the tasks read and the host
    sends and ``C_out`` that they write and the host receives (``Graph.host_names`` keeps
    ``C`` for both ports); ``graph`` itself when it has none. The plan checks ``graph`` whole
    (``check_in_out``) and schedules the halves."""
    inout = [t.name for t in graph.tensors.values() if t.direction == "inout"]
    if not inout:
        return graph
    names = {}
    for name in inout:
        names[name] = tuple(_free(f"{name}_{kind}", graph.tensors, names) for kind in
                            ("in", "out"))
    tensors = {}
    for t in graph.tensors.values():
        halves = zip(names[t.name], ("in", "out")) if t.name in names else ((t.name, None),)
        for name, kind in halves:
            tensors[name] = dataclasses.replace(t, name=name, direction=kind or t.direction)
    instances = {n: dataclasses.replace(inst, segments=[
        dataclasses.replace(seg, body=[_renamed(s, names) for s in seg.body])
        for seg in inst.segments]) for n, inst in graph.instances.items()}
    host = {half: name for name, pair in names.items() for half in pair}
    return dataclasses.replace(graph, tensors=tensors, instances=instances,
                               host_names={**graph.host_names, **host})


def _free(name, tensors, taken):
    while name in tensors or any(name in pair for pair in taken.values()):
        name += "_"
    return name


def _renamed(stmt, names):
    """``stmt`` reading each in-out tensor's ``_in`` half and writing its ``_out`` half."""
    def read(e):
        return dataclasses.replace(e, tensor=names[e.tensor][0]) \
            if isinstance(e, Read) and e.tensor in names else e
    changes = {"value": transform(stmt.value, read)}
    if isinstance(stmt, (Write, ArrayWrite)):
        changes["index"] = tuple(transform(i, read) for i in stmt.index)
    if isinstance(stmt, Write) and stmt.tensor in names:
        changes["tensor"] = names[stmt.tensor][1]
    return dataclasses.replace(stmt, **changes)
