"""Widths: values against the types they are stored in, before any hardware exists.

A constant that cannot fit the local, stream or tensor it is stored in is an error. An
accumulation in a loop (``c += a * b``, also under a run-time ``if``) that can outgrow its
declared type is a warning that gives the bound: the start value plus the number of terms
between two restarts times the range of one term (``ir.ranges``).
"""
import warnings

from ..errors import HwgenError, HwgenWarning
from ..ir.graph import ArrayWrite, Assign, Const, Put, Slice, Write
from ..ir.ranges import StreamRanges, bits_needed, fits


def _check_constant(value, dtype, what, loc):
    if isinstance(value, Const) and not dtype.min <= value.value <= dtype.max:
        raise HwgenError(f"the constant {value.value} does not fit {what} of type {dtype.name} "
                         f"[{dtype.min}, {dtype.max}]; use a wider type or a smaller value", loc)


def _check_narrowing(ranges, put, seg, dtype):
    """A put whose value can leave the stream's type wraps on the stream: a warning, like an
    accumulation that can overflow."""
    r = ranges.expr(put.value, seg.trips)
    if r is None or fits(r, dtype):
        return
    if isinstance(put.value, Slice) and put.value.stop - put.value.start <= dtype.bits:
        return                      # bits of a packed word: a reinterpretation, on purpose
    ranges.found.append((put.loc, f"in task {ranges.inst.name}: the value put on stream "
                         f"'{put.channel}' can reach {r[0]}..{r[1]}, beyond its {dtype.name} "
                         f"[{dtype.min}, {dtype.max}], and wraps; declare the stream "
                         f"Int({bits_needed(r)}) or wider, or clamp the value (min/max)"))


def check_widths(graph):
    """Errors for constants that cannot fit; warnings (also kept in ``graph.warnings``) for
    accumulations that can overflow and puts that narrow a value into a smaller stream."""
    streams = StreamRanges(graph)
    for inst in graph.instances.values():
        ranges = streams.of(inst)
        for seg in inst.segments:
            for s in seg.body:
                if isinstance(s, Assign):
                    _check_constant(s.value, inst.vars[s.var], f"'{s.var}'", s.loc)
                elif isinstance(s, Put):
                    _check_constant(s.value, graph.channels[s.channel].dtype,
                                    f"stream '{s.channel}'", s.loc)
                    _check_narrowing(ranges, s, seg, graph.channels[s.channel].dtype)
                elif isinstance(s, Write):
                    _check_constant(s.value, graph.tensors[s.tensor].dtype,
                                    f"tensor '{s.tensor}'", s.loc)
                elif isinstance(s, ArrayWrite):
                    _check_constant(s.value, inst.arrays[s.array].dtype,
                                    f"local array '{s.array}'", s.loc)
        for name in inst.vars:
            ranges.var(name)
    by_line = {}
    for ranges in streams.instances.values():
        for loc, message in ranges.found:
            by_line.setdefault(loc, []).append(message)
    for loc, messages in by_line.items():
        more = len(messages) - 1
        message = messages[0] + (f" (also in {more} other instance{'s' * (more > 1)})"
                                 if more else "")
        graph.warnings.append(message)
        warnings.warn_explicit(message, HwgenWarning, loc[0], loc[1])
