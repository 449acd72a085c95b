"""The functional interpreter: runs a task graph on numpy arrays. It is the golden model.

Every task instance is a Python generator that yields whenever a stream blocks it (a get from an
empty stream, a put to a stream holding ``depth`` elements); the scheduler round-robins them.
A round in which nothing moves is a deadlock, reported with the streams that are full and empty.
"""
import itertools
import math
from collections import deque

import numpy as np

from ..errors import HwgenError
from . import accumulate, floats
from .graph import (BINARY, ArrayRead, ArrayWrite, Assign, BinOp, Const, Convert, FloatOp, Get,
                    LoopIndex, More, Neg, Put, Read, Select, SetSlice, Slice, StreamOp, VarRef,
                    Write, pred_holds)
from .types import FloatType

def check_inputs(graph, inputs):
    """The input arrays as int64 numpy arrays, after checking names, shapes and value ranges.
    A float tensor takes float values (rounded to its format) or, as integers, bit patterns."""
    arrays = {}
    for t in graph.inputs:
        if t.name not in inputs:
            raise HwgenError(f"missing input tensor '{t.name}' (expected {t.type})")
        a = np.asarray(inputs[t.name])
        if a.shape != tuple(t.shape):
            raise HwgenError(f"input '{t.name}' has shape {a.shape}, expected {tuple(t.shape)}")
        if isinstance(t.dtype, FloatType) and np.issubdtype(a.dtype, np.floating):
            a = floats.to_bits(a, t.dtype)
        if not np.issubdtype(a.dtype, np.integer):
            kind = "floats or integers (bit patterns)" if isinstance(t.dtype, FloatType) else \
                "integers"
            raise HwgenError(f"input '{t.name}' must hold {kind}, got {a.dtype}")
        a = a.astype(np.int64)
        if a.size and (a.min() < t.dtype.min or a.max() > t.dtype.max):
            raise HwgenError(f"input '{t.name}' has values outside {t.dtype.name} "
                             f"[{t.dtype.min}, {t.dtype.max}]")
        arrays[t.name] = a
    unknown = set(inputs) - {t.name for t in graph.inputs}
    if unknown:
        raise HwgenError(f"unknown input tensor(s) {sorted(unknown)}; "
                         f"inputs are {[t.name for t in graph.inputs]}")
    return arrays


def in_range(graph, inputs, input_range, rng, at=None):
    """``inputs`` with each float tensor drawn uniformly from ``input_range`` (or filled with
    its end ``at``, 0 or 1), as bit patterns; unchanged without a range."""
    if input_range is None:
        return inputs
    for t in graph.inputs:
        if isinstance(t.dtype, FloatType):
            values = np.full(t.shape, input_range[at]) if at is not None else \
                rng.uniform(*input_range, t.shape)
            inputs[t.name] = floats.to_bits(values, t.dtype)
    return inputs


# The token ``close()`` puts on a closed stream: it takes a place in the stream as a value does.
CLOSE = "close"


class _Machine:
    def __init__(self, graph, arrays, budget):
        self.graph = graph
        self.arrays = arrays
        self.queues = {name: deque() for name in graph.channels}
        self.sent = dict.fromkeys(graph.channels, 0)    # values put in this problem
        self.ended = set()          # closed streams whose close was read in this problem
        self.budget = budget
        self.moves = 0

    def run_instance(self, inst):
        # Locals and local arrays start undefined in every problem, as in hardware.
        env = {name: list(inst.contents[name]) if name in inst.contents else
               [None] * math.prod(t.shape) for name, t in inst.arrays.items()}
        env[".instance"] = inst
        env[".updates"] = accumulate.accumulators(inst)
        env[".sums"] = {var: None for var in env[".updates"]}
        for seg in inst.segments:
            if seg.cond is None:
                for idx in itertools.product(*(range(t) for t in seg.trips)):
                    yield from self.iteration(inst, seg, env, idx)
                continue
            # A loop whose count depends on data: ``cond`` before each outer iteration.
            inner = list(itertools.product(*(range(t) for t in seg.trips[1:])))
            for n in itertools.count():
                if not (yield from self.eval(seg.cond, env, (n,) + inner[0])):
                    break
                if n == seg.trips[0]:
                    raise HwgenError(f"in task {inst.name}: the loop runs more than its "
                                     f"{seg.trips[0]} iterations per problem; declare more "
                                     "(max_iterations=, or the stream's bound)", seg.loc)
                for rest in inner:
                    yield from self.iteration(inst, seg, env, (n,) + rest)

    def iteration(self, inst, seg, env, idx):
        """The statements of ``seg`` whose predicates hold at loop indices ``idx``."""
        for stmt in seg.body:
            if pred_holds(stmt.pred, idx, seg.trips):
                yield from self.exec_stmt(inst, stmt, env, idx)

    def exec_stmt(self, inst, stmt, env, idx):
        if isinstance(stmt, Assign) and stmt.var in env[".sums"]:
            yield from self.accumulate(inst, stmt, env, idx)
            return
        if isinstance(stmt, Put) and stmt.guard is not None and \
                not (yield from self.eval(stmt.guard, env, idx)):
            return
        value = yield from self.eval(stmt.value, env, idx)
        if isinstance(stmt, Assign):
            env[stmt.var] = inst.vars[stmt.var].wrap(value)
        elif isinstance(stmt, Put):
            yield from self.put(stmt, value)
        elif isinstance(stmt, Write):
            tensor = self.graph.tensors[stmt.tensor]
            index = yield from self.point(inst, tensor.name, tensor.shape, stmt, env, idx)
            self.arrays[stmt.tensor][index] = tensor.dtype.wrap(value)
        elif isinstance(stmt, ArrayWrite):
            flat = yield from self.flat_index(inst, stmt.array, stmt, env, idx)
            env[stmt.array][flat] = inst.arrays[stmt.array].dtype.wrap(value)

    def put(self, stmt, value):
        """``stmt``'s value (or its close) onto its stream, once there is room; a closed
        stream takes at most its bound of values per problem."""
        chan = self.graph.channels[stmt.channel]
        q = self.queues[stmt.channel]
        if chan.bound is not None and not stmt.close:
            self.sent[chan.name] += 1
            if self.sent[chan.name] > chan.bound:
                raise HwgenError(f"stream '{chan.name}' takes more than its bound of "
                                 f"{chan.bound} values in one problem; declare a larger bound "
                                 f"(Stream[{chan.dtype.name}, {chan.depth}, N])", stmt.loc)
        while len(q) >= chan.depth:
            yield (StreamOp.PUT, stmt.channel, stmt.loc)
        q.append(CLOSE if stmt.close else chan.dtype.wrap(value))
        self.moves += 1

    def take(self, e, inst):
        """A get (the next value) or a ``More`` (1 before a value, 0 for the close, taken) on
        ``e.channel``, once an element is there; reading past the close is an error."""
        q = self.queues[e.channel]
        if e.channel in self.ended:
            raise HwgenError(f"in task {inst.name}: stream '{e.channel}' is read after its "
                             "close in this problem", e.loc)
        while not q:
            yield (StreamOp.GET, e.channel, e.loc)
        if isinstance(e, More) and q[0] is not CLOSE:
            return 1
        if isinstance(e, Get) and q[0] is CLOSE:
            raise HwgenError(f"in task {inst.name}: a get on stream '{e.channel}' finds its "
                             "close: the producer put fewer values; test "
                             f"`{e.channel}.more()` before the get", e.loc)
        self.moves += 1
        value = q.popleft()
        if value is CLOSE:
            self.ended.add(e.channel)
            return 0
        return value

    def accumulate(self, inst, stmt, env, idx):
        """An assignment to a float accumulator (``ir.accumulate``): an update adds its term
        to one partial sum, any other assignment starts the sums."""
        update = env[".updates"][stmt.var]
        fmt = inst.vars[stmt.var]
        if update.stmt is not stmt:
            value = yield from self.eval(stmt.value, env, idx)
            env[".sums"][stmt.var] = [accumulate.start(fmt.wrap(value), fmt), 0]
            return
        term = yield from self.eval(update.term, env, idx)
        state = env[".sums"][stmt.var]
        if state is None:       # updated before any other assignment: the checks refuse it
            raise HwgenError(f"in task {inst.name}: '{stmt.var}' is updated before it is "
                             "assigned", stmt.loc)
        accumulate.add(state[0], state[1], term, fmt)
        state[1] += 1

    def point(self, inst, name, shape, access, env, idx):
        """The index tuple of ``access`` (a read or write of ``name``), inside ``shape``: an
        index computed from run-time values is checked here, when it is known."""
        index = []
        for i in access.index:
            index.append((yield from self.eval(i, env, idx)))
        if not all(0 <= i < n for i, n in zip(index, shape)):
            raise HwgenError(f"in task {inst.name}: '{name}' is indexed at {index}, outside its "
                             f"shape {list(shape)}", access.loc)
        return tuple(index)

    def flat_index(self, inst, name, access, env, idx):
        shape = inst.arrays[name].shape
        index = yield from self.point(inst, name, shape, access, env, idx)
        flat = 0
        for i, n in zip(index, shape):
            flat = flat * n + i
        return flat

    def offset(self, e, env, idx):
        """The run-time offset of a bit slice (0 for a constant one)."""
        if e.offset is None:
            return 0
        return (yield from self.eval(e.offset, env, idx))

    def eval(self, e, env, idx):
        if isinstance(e, Const):
            return e.value
        if isinstance(e, LoopIndex):
            return idx[e.depth]
        if isinstance(e, VarRef):
            state = env[".sums"].get(e.name)
            if state is not None:
                return accumulate.total(state[0][:accumulate.used(state[1])],
                                        env[".instance"].vars[e.name])
            return env[e.name]
        if isinstance(e, BinOp):
            a = yield from self.eval(e.lhs, env, idx)
            b = yield from self.eval(e.rhs, env, idx)
            return BINARY[e.op](a, b)
        if isinstance(e, Neg):
            return -(yield from self.eval(e.operand, env, idx))
        if isinstance(e, FloatOp):
            a = yield from self.eval(e.lhs, env, idx)
            b = None if e.rhs is None else (yield from self.eval(e.rhs, env, idx))
            return floats.evaluate(e.op, a, b, e.fmt)
        if isinstance(e, Convert):
            return floats.convert((yield from self.eval(e.operand, env, idx)), e.src, e.dst)
        if isinstance(e, Slice):
            v = yield from self.eval(e.operand, env, idx)
            at = e.start + (yield from self.offset(e, env, idx))
            return (v >> at) & ((1 << (e.stop - e.start)) - 1)
        if isinstance(e, Select):
            c = yield from self.eval(e.cond, env, idx)
            return (yield from self.eval(e.a if c else e.b, env, idx))
        if isinstance(e, SetSlice):
            v = yield from self.eval(e.operand, env, idx)
            x = yield from self.eval(e.value, env, idx)
            at = e.start + (yield from self.offset(e, env, idx))
            mask = ((1 << (e.stop - e.start)) - 1) << at
            return (v & ~mask) | ((x << at) & mask)
        if isinstance(e, ArrayRead):
            inst = env[".instance"]
            flat = yield from self.flat_index(inst, e.array, e, env, idx)
            value = env[e.array][flat]
            if value is None:
                raise HwgenError(f"in task {inst.name}: element {flat} of local array "
                                 f"'{e.array}' is read before it is written in this problem; "
                                 "write every element before reading it", e.loc)
            return value
        if isinstance(e, Read):
            shape = self.graph.tensors[e.tensor].shape
            index = yield from self.point(env[".instance"], e.tensor, shape, e, env, idx)
            return int(self.arrays[e.tensor][index])
        if isinstance(e, (Get, More)):
            return (yield from self.take(e, env[".instance"]))
        raise TypeError(f"unknown expression {e!r}")

    def run(self):
        running = {name: self.run_instance(inst) for name, inst in sorted(self.graph.instances.items())}
        waiting = {}
        for _ in range(self.budget):
            moved = self.moves
            for name in list(running):
                try:
                    waiting[name] = next(running[name])
                except StopIteration:
                    del running[name]
                    self.moves += 1
            if not running:
                self.drained()
                return
            if self.moves == moved:
                # Every instance had its turn and none could push, pop or finish.
                first = waiting.get(sorted(running)[0])
                raise HwgenError("deadlock: no task can make progress: "
                                 + self.describe(running, waiting)
                                 + ". Deepen the streams or reorder the puts and gets.",
                                 first[2] if first else None)
        raise HwgenError(f"interpreter stopped after {self.budget} scheduling rounds: "
                         + self.describe(running, waiting))

    def drained(self):
        """At the end of a problem every stream is empty: a closed one read to its close."""
        for name, q in self.queues.items():
            if q:
                chan = self.graph.channels[name]
                raise HwgenError(f"stream '{name}' still holds {len(q)} element(s) at the end of "
                                 f"the problem: {chan.consumer} reads a closed stream to its "
                                 "close (`for v in s:`, or `s.more()` until it is 0)", chan.loc)

    def describe(self, running, waiting):
        parts = []
        for name in sorted(running):
            op, chan, _ = waiting.get(name, (None, None, None))
            depth = self.graph.channels[chan].depth if chan else 0
            state = "empty" if op is StreamOp.GET else f"full ({depth} of {depth})"
            other = chan and self.graph.channels[chan].consumer
            if op is StreamOp.PUT and other not in running:
                state += f"; {other} has finished the problem without reading it to its close"
            parts.append(f"{name} waits to {op.value if op else 'run'} on '{chan}' ({state})")
        return "; ".join(parts)


def run(graph, inputs, budget=10_000_000):
    """Run ``graph`` on ``inputs`` (name -> array) and return its outputs (name -> array)."""
    arrays = check_inputs(graph, inputs)
    for t in graph.outputs:
        arrays.setdefault(t.name, np.zeros(t.shape, dtype=np.int64))   # an in-out one: given
    _Machine(graph, arrays, budget).run()
    return {t.name: arrays[t.name] for t in graph.outputs}
