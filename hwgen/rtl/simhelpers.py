"""Drive a generated ``Top`` in Amaranth's simulator like a host would: every input port fed
concurrently with random gaps, every output drained with random back-pressure, problems back to
back. Used by the unit tests; the cocotb testbench in ``sim/`` does the same on Verilog. Both
take the host side of the stream contract from ``hwgen.host``."""
import random

import numpy as np
from amaranth.sim import Simulator

from ..errors import HwgenError
from ..host import Sink, Source, fifo_state, pack, unpack
from ..schedule.host_timing import beats, row_pad


def stream_states(graph, levels):
    """``"; streams: s full (2/2), t empty (0/2)"`` for a report on a stuck run."""
    if not levels:
        return ""
    return "; streams: " + ", ".join(fifo_state(name, level, graph.channels[name].depth)
                                     for name, level in sorted(levels.items()))


def _hosts(top, problems, in_gap, out_gap, seed):
    """A ``Source`` per input and a ``Sink`` per output tensor, each with its own seed; a
    resident input's source loads it once, from the first problem."""
    rng = random.Random(seed)
    hosts = {}
    for t in top.graph.inputs:
        name = top.graph.host_name(t.name)
        if t.type.resident and any(not np.array_equal(p[name], problems[0][name])
                                   for p in problems):
            raise HwgenError(f"resident tensor '{name}' differs between problems: the host "
                             "loads it once, so give every problem the same")
        payloads = [b for inputs in (problems[:1] if t.type.resident else problems)
                    for b in pack(np.reshape(inputs[name], t.shape), t.dtype,
                                  top.lanes[t.name], row_pad(t, top.lanes[t.name]))]
        hosts[t.name] = Source(payloads, in_gap, rng.random())
    for t in top.graph.outputs:
        total = beats(t, top.lanes[t.name]) * len(problems)
        hosts[t.name] = Sink(total, out_gap, rng.random())
    return hosts


async def send(ctx, port, src, on_beat=None):
    """Feed ``src``'s beats (a ``hwgen.host.Source``) into stream ``port`` from an Amaranth
    testbench; ``on_beat(k)`` after beat ``k`` is taken."""
    while not src.done:
        valid, payload = src.step()
        ctx.set(port.valid, valid)
        ctx.set(port.payload, payload)
        _, _, ready = await ctx.tick().sample(port.ready)
        if src.edge(ready) and on_beat:
            on_beat(src.taken - 1)
    ctx.set(port.valid, 0)


async def drain(ctx, port, sink, on_beat=None):
    """Drain stream ``port`` into ``sink`` (a ``hwgen.host.Sink``) from an Amaranth testbench;
    ``on_beat(k)`` after beat ``k`` is taken."""
    while not sink.done:
        ctx.set(port.ready, sink.step())
        _, _, valid, payload = await ctx.tick().sample(port.valid, port.payload)
        if sink.edge(valid, payload) and on_beat:
            on_beat(sink.taken - 1)
    ctx.set(port.ready, 0)


def _bind(fn, *args, after=()):
    """An Amaranth testbench running ``fn(ctx, *args)`` once every source in ``after`` is
    done (the resident tensors loaded)."""
    async def tb(ctx):
        while not all(src.done for src in after):
            await ctx.tick()
        await fn(ctx, *args)
    return tb


def _counter(top, clock, levels):
    """Process counting cycles and recording the level of every internal FIFO."""
    async def process(ctx):
        fifos = sorted(top.fifos.items())
        while True:
            _, _, *values = await ctx.tick().sample(*(q.level for _, q in fifos))
            clock["n"] += 1
            levels.update(zip((name for name, _ in fifos), values))
    return process


def _stuck(top, hosts, budget, levels):
    """The error for a run that did not finish within ``budget`` cycles."""
    stuck = [f"{name} ({hosts[name].taken}/{hosts[name].total} beats)"
             for name in top.graph.tensors if name in hosts and not hosts[name].done]
    return HwgenError(f"simulation stopped after {budget} cycles; ports still waiting: "
                      + ", ".join(stuck) + stream_states(top.graph, levels))


def _outputs(top, hosts, n):
    """Per problem, the output arrays unpacked from the sinks."""
    results = [dict() for _ in range(n)]
    for t in top.graph.outputs:
        flat = unpack(hosts[t.name].received, t.dtype, top.lanes[t.name])
        for p, part in enumerate(flat.reshape(n, -1)):
            results[p][top.graph.host_name(t.name)] = part.reshape(t.shape)
    return results


def run_top(top, problems, in_gap=0.0, out_gap=0.0, seed=0, budget=None):
    """Run ``problems`` (a list of input dicts) through ``top``: the resident tensors loaded
    first (once: they are the same in every problem), then the problems back to back.

    Returns ``(outputs, cycles, done)``: per problem the output arrays, the cycles from its
    first input beat (without inputs: the first edge, then the previous problem's last beat)
    to its last output beat, and the cycle of its last output beat. Stops
    with ``HwgenError`` naming the stuck ports when the cycle ``budget`` runs out.
    """
    graph, n = top.graph, len(problems)
    hosts = _hosts(top, problems, in_gap, out_gap, seed)
    budget = budget or n * (top.expected_cycles * 4 + 200) * \
        (1 + int(10 * max(in_gap, out_gap)))
    clock, levels, first, last = {"n": 0}, {}, {}, {}

    def stamper(t, marks, keep_first):
        per = beats(t, top.lanes[t.name])

        def on_beat(k):
            if keep_first:
                marks.setdefault(k // per, clock["n"])
            else:
                marks[k // per] = clock["n"]
        return on_beat

    sim = Simulator(top)
    sim.add_clock(1e-8)
    resident = [hosts[t.name] for t in graph.inputs if t.type.resident]
    for t in graph.inputs:
        if t.type.resident:
            sim.add_testbench(_bind(send, getattr(top, t.name), hosts[t.name]))
        else:
            sim.add_testbench(_bind(send, getattr(top, t.name), hosts[t.name],
                                    stamper(t, first, True), after=resident))
    for t in graph.outputs:
        sim.add_testbench(_bind(drain, getattr(top, t.name), hosts[t.name],
                                stamper(t, last, False)))
    sim.add_process(_counter(top, clock, levels))
    sinks = [hosts[t.name] for t in graph.outputs]
    while clock["n"] < budget and not all(s.done for s in sinks):
        sim.advance()
    if not all(s.done for s in sinks):
        raise _stuck(top, hosts, budget, levels)
    if not first:               # problems start on their own: the first on the first edge
        first = {p: 1 if p == 0 else last[p - 1] + 1 for p in range(n)}
    cycles = [last[p] - first[p] + 1 for p in range(n)]
    return _outputs(top, hosts, n), cycles, [last[p] for p in range(n)]
