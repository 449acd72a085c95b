"""Materialise streams: cut a task graph into stages that run one after another, each cut
stream's elements written to the host by its producer's stage and read back by its consumer's
(what a compiler does when it does not fuse two kernels: the intermediate goes to memory).

A cut stream becomes a one-dimensional tensor of its elements in the order they are put: each
put becomes a write at its ordinal (how many times the statement ran before, an affine
expression of its loop indices) and each get a read at its ordinal. The stages are the
instances grouped by the streams that stay, in the order the cut streams impose; tensors the
stages share are passed on by the host too (``run_stages``).
"""
import dataclasses

from ..check import check
from ..errors import HwgenError
from ..ir.graph import (BinOp, Const, Get, Graph, LoopIndex, Put, Read, Tensor, Write, allowed,
                        stmt_exprs, stream_ops, transform)
from ..ir.interp import run
from ..ir.types import TensorType
from ..schedule.ports import safe_name


def materialise(graph, channels):
    """The checked stages (task graphs, in run order) that ``graph`` runs as when the streams
    ``channels`` (names of ``graph.channels``) go through the host."""
    cut = {}
    for name in channels:
        if name not in graph.channels:
            raise HwgenError(f"no stream {name!r} to materialise; the streams are "
                             + ", ".join(graph.channels), graph.loc)
        cut[name] = safe_name(name)
        if cut[name] in graph.tensors:
            raise HwgenError(f"materialising stream {name!r} needs a tensor of that name, but "
                             "the region has one: rename the stream", graph.channels[name].loc)
    instances, sizes = {}, {}
    for inst in graph.instances.values():
        instances[inst.name], counts = _rewrite(inst, cut)
        sizes.update((ch, n) for ch, n in counts.items()
                     if graph.channels[ch].producer == inst.name)
    stages = _stage_order(graph, cut)
    made = {cut[ch]: Tensor(cut[ch], TensorType(graph.channels[ch].dtype, (sizes[ch],)),
                            None, graph.channels[ch].loc) for ch in cut}
    return [check(_stage(graph, k, members, instances, made, cut))
            for k, members in enumerate(stages)]


def run_stages(stages, inputs):
    """Run ``stages`` one after another on ``inputs`` (name -> array) in the functional
    interpreter, each taking its inputs from the region's and the earlier stages' outputs;
    returns every tensor by name."""
    arrays = dict(inputs)
    for stage in stages:
        arrays.update(run(stage, {t.name: arrays[t.name] for t in stage.inputs}))
    return arrays


def _ordinal(trips, pred, base, what, loc):
    """How many times a statement with predicates ``pred`` in a loop nest of ``trips`` ran
    before the current iteration, plus ``base`` (an expression); and how often it runs."""
    expr, stride = None, 1
    for d in reversed(range(len(trips))):
        runs = allowed(pred, d, trips[d])
        if not runs:
            return Const(base), 0
        lo, n = runs[0], len(runs)
        if runs != list(range(lo, lo + n)):
            raise HwgenError(f"cannot materialise {what}: it runs on scattered iterations of "
                             "its loop; keep the pair fused", loc)
        if n > 1:
            term = LoopIndex(d) if lo == 0 else BinOp("-", LoopIndex(d), Const(lo))
            term = term if stride == 1 else BinOp("*", term, Const(stride))
            expr = term if expr is None else BinOp("+", term, expr)
            stride *= n
    if base:
        expr = Const(base) if expr is None else BinOp("+", expr, Const(base))
    return expr or Const(0), stride


def _rewrite(inst, cut):
    """``inst`` with its puts on cut streams as tensor writes and its gets as tensor reads;
    and the number of elements it moves on each cut stream."""
    counts = dict.fromkeys(cut, 0)
    segments = []
    for seg in inst.segments:
        body, seen = [], set()
        for stmt in seg.body:
            index = {}
            for op, ch, loc in stream_ops(stmt):
                if ch not in cut:
                    continue
                if ch in seen:
                    raise HwgenError(f"cannot materialise stream {ch!r}: task {inst.task} "
                                     "uses it twice in one loop nest; keep the pair fused", loc)
                seen.add(ch)
                index[ch], n = _ordinal(seg.trips, stmt.pred, counts[ch],
                                        f"the {op.value} on stream {ch!r}", loc)
                counts[ch] += n
            body.append(_replace(stmt, cut, index) if index else stmt)
        segments.append(dataclasses.replace(seg, body=body))
    return dataclasses.replace(inst, segments=segments), counts


def _replace(stmt, cut, index):
    """``stmt`` with gets and the put on the streams of ``index`` turned into tensor reads
    and a tensor write at the given ordinals."""
    def fn(e):
        if isinstance(e, Get) and e.channel in index:
            return Read(cut[e.channel], (index[e.channel],), e.loc)
        return e
    changes = {"value": transform(stmt.value, fn)}
    if hasattr(stmt, "index"):
        changes["index"] = tuple(transform(i, fn) for i in stmt.index)
    stmt = dataclasses.replace(stmt, **changes)
    if isinstance(stmt, Put) and stmt.channel in index:
        return Write(cut[stmt.channel], (index[stmt.channel],), stmt.value, stmt.pred, stmt.loc)
    return stmt


def _stage_order(graph, cut):
    """The instances grouped by the streams that are not cut, producers' groups first."""
    group = {name: {name} for name in graph.instances}
    for ch in graph.channels.values():
        if ch.name not in cut and group[ch.producer] is not group[ch.consumer]:
            merged = group[ch.producer] | group[ch.consumer]
            for name in merged:
                group[name] = merged
    for name in cut:
        ch = graph.channels[name]
        if group[ch.producer] is group[ch.consumer]:
            raise HwgenError(f"cannot materialise stream {name!r}: other streams join its "
                             "producer and consumer into one stage; cut them too or keep the "
                             "pair fused", ch.loc)
    # A stage is its set of instances (stages are disjoint, so the set names it).
    stages = list(dict.fromkeys(frozenset(g) for g in group.values()))
    after = {g: {frozenset(group[graph.channels[ch].producer]) for ch in cut
                 if graph.channels[ch].consumer in g} - {g} for g in stages}
    ordered = []
    while stages:
        ready = [g for g in stages if not after[g] - set(ordered)]
        if not ready:
            raise HwgenError("cutting streams " + ", ".join(cut) + " leaves stages that feed "
                             "each other; cut fewer streams", graph.loc)
        ordered.append(ready[0])
        stages.remove(ready[0])
    return [sorted(g, key=list(graph.instances).index) for g in ordered]


def _stage(graph, k, members, instances, made, cut):
    """Stage ``k``: the instances ``members``, the streams between them and the tensors they
    access, each tensor's direction as this stage uses it."""
    tensors = {}
    for name in members:
        for seg in instances[name].segments:
            for stmt in seg.body:
                accesses = [("read", e.tensor) for e in stmt_exprs(stmt) if isinstance(e, Read)]
                if isinstance(stmt, Write):
                    accesses.append(("write", stmt.tensor))
                for access, t in accesses:
                    if t not in tensors:
                        old = made.get(t) or graph.tensors[t]
                        tensors[t] = dataclasses.replace(old, direction=None)
                    tensors[t].use(access)
    order = list(graph.tensors) + list(made)
    return Graph(f"{graph.name}_stage{k}", graph.params,
                 {t: tensors[t] for t in sorted(tensors, key=order.index)},
                 {n: c for n, c in graph.channels.items()
                  if n not in cut and c.producer in members},
                 {n: instances[n] for n in members}, graph.loc,
                 folds={t: f for t, f in graph.folds.items()
                        if any(instances[n].task == t for n in members)})
