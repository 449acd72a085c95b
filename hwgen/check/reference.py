"""The program against its author's numpy ``reference()``: the functional interpreter and the
reference run on the same inputs (every input at its type's minimum, at its maximum, random),
and the first elements where they disagree are reported with both values.

The interpreter is the golden model the hardware is simulated against; a program that computes
something else than its author meant (or a frontend bug the interpreter and the hardware would
share) shows up here, before any hardware exists.
"""
import inspect
from dataclasses import dataclass, field

import numpy as np

from ..errors import HwgenError
from ..ir import floats
from ..ir.interp import in_range, run
from ..ir.types import FloatType


@dataclass
class ReferenceReport:
    """What ``check_reference`` found: ``cases`` the labels of the inputs tried, ``failures``
    one text per output of a case that differs (empty when the program equals its
    reference)."""
    cases: list
    failures: list = field(default_factory=list)

    @property
    def ok(self):
        return not self.failures


def declared(module):
    """A design file's ``(TOLERANCE, INPUT_RANGE)``: the absolute tolerance within which its
    float outputs meet reference() (a design with an approximation inside, such as ``exp``),
    and the ``(low, high)`` range its float inputs are drawn from; None for each it omits."""
    tolerance, span = getattr(module, "TOLERANCE", None), getattr(module, "INPUT_RANGE", None)
    if tolerance is not None and not (isinstance(tolerance, (int, float)) and tolerance > 0):
        raise HwgenError(f"TOLERANCE must be a positive number (an absolute tolerance), not "
                         f"{tolerance!r}")
    if span is not None and not (isinstance(span, (tuple, list)) and len(span) == 2 and
                                 all(isinstance(v, (int, float)) for v in span) and
                                 span[0] < span[1]):
        raise HwgenError(f"INPUT_RANGE must be (low, high) with low < high, e.g. (-2.0, 2.0), "
                         f"not {span!r}")
    return tolerance, span


def reference_cases(graph, random=3, seed=0, input_range=None):
    """``[(label, inputs)]``: every input at its type's minimum, at its maximum, and
    ``random`` problems of uniform random values (float inputs within ``input_range``, when
    the design declares one)."""
    rng = np.random.default_rng(seed)
    cases = [("all-minimum inputs", in_range(graph, {
                t.name: np.full(t.shape, t.dtype.min, dtype=np.int64) for t in graph.inputs},
                input_range, rng, 0)),
             ("all-maximum inputs", in_range(graph, {
                 t.name: np.full(t.shape, t.dtype.max, dtype=np.int64) for t in graph.inputs},
                 input_range, rng, 1))]
    for k in range(random):
        cases.append((f"random inputs {k + 1} (seed {seed})", in_range(graph, {
            t.name: rng.integers(t.dtype.min, t.dtype.max, t.shape, endpoint=True)
            for t in graph.inputs}, input_range, rng)))
    return cases


def call_reference(reference, graph, inputs):
    """``reference(**inputs)`` (plus any of the design's sizes it names as parameters), as
    arrays per output name; a ``HwgenError`` that says what is wrong with what it returned."""
    wanted = inspect.signature(reference).parameters
    if any(p.kind is p.VAR_KEYWORD for p in wanted.values()):
        kwargs = dict(inputs)
    else:
        kwargs = {k: v for k, v in {**graph.params, **inputs}.items() if k in wanted}
    missing = [k for k, p in wanted.items() if k not in kwargs and p.default is p.empty and
               p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if missing:
        raise HwgenError(f"reference() takes {', '.join(missing)}, which is neither an input "
                         f"tensor ({', '.join(inputs)}) nor a size of the design")
    kwargs = {k: _as_values(graph, k, v) for k, v in kwargs.items()}
    try:
        result = reference(**kwargs)
    except Exception as e:
        raise HwgenError(f"reference() raised {type(e).__name__}: {e}") from None
    outputs = [t.name for t in graph.outputs]
    if not isinstance(result, dict) or set(result) != set(outputs):
        got = sorted(result) if isinstance(result, dict) else type(result).__name__
        raise HwgenError(f"reference() must return a dict of the outputs {outputs}, got {got}")
    return {name: np.asarray(value) for name, value in result.items()}


def _as_values(graph, name, value):
    """A float tensor's bit patterns as the float values ``reference()`` computes with."""
    t = graph.tensors.get(name)
    if t is not None and isinstance(t.dtype, FloatType):
        return floats.from_bits(value, t.dtype)
    return value


def differences(name, got, want, limit=3, dtype=None, tolerance=None):
    """Text naming the first ``limit`` indices where ``got`` (the program) and ``want`` (the
    reference) differ, or None when they are equal. For a float ``dtype``, ``got`` holds bit
    patterns and ``want`` values: equal when the bits are, when both are NaN, or when they are
    within ``tolerance`` (absolute) of each other."""
    if got.shape != want.shape:
        return f"output '{name}': reference() gives shape {list(want.shape)}, the program " \
               f"{list(got.shape)}"
    if isinstance(dtype, FloatType):
        got_values = floats.from_bits(got, dtype)
        want_values = np.asarray(want, dtype=np.float64)
        same = (got == floats.to_bits(want_values, dtype)) | \
            (np.isnan(got_values) & np.isnan(want_values))
        if tolerance is not None:
            with np.errstate(invalid="ignore"):
                same |= np.abs(got_values - want_values) <= tolerance
        got, want = got_values, want_values.astype(got_values.dtype)
        where = np.argwhere(~same)
    else:
        where = np.argwhere(got != want)
    if not len(where):
        return None
    def text(v):
        return repr(float(v)) if isinstance(dtype, FloatType) else str(int(v))
    shown = ", ".join(f"{name}{list(map(int, i))}: program {text(got[tuple(i)])}, reference "
                      f"{text(want[tuple(i)])}" for i in where[:limit])
    return f"output '{name}' differs in {len(where)} of {got.size} elements; first {shown}"


def check_reference(graph, reference, cases, outputs=None, tolerance=None):
    """Run ``graph`` in the interpreter and ``reference`` on each of ``cases``
    (``[(label, inputs)]``) and compare every output (floats within ``tolerance``, when the
    design declares one). ``outputs``: the interpreter's outputs per case, when the caller
    already has them."""
    report = ReferenceReport([label for label, _ in cases])
    for k, (label, inputs) in enumerate(cases):
        want = call_reference(reference, graph, inputs)
        got = outputs[k] if outputs is not None else run(graph, inputs)
        for name in got:
            text = differences(name, np.asarray(got[name]), want[name],
                               dtype=graph.tensors[name].dtype, tolerance=tolerance)
            if text:
                report.failures.append(f"{label}: {text}")
    return report
