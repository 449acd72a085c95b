"""Drive a generated ``Top`` in Amaranth's simulator like a host would: every input port fed
concurrently with random gaps, every output drained with random back-pressure, problems back to
back. Used by the unit tests; the cocotb testbench in ``sim/`` does the same on Verilog."""
import random

import numpy as np
from amaranth.sim import Simulator

from ..errors import HwgenError


def stream_states(graph, levels):
    """``"; streams: s full (2/2), t empty (0/2)"`` for a report on a stuck run."""
    if not levels:
        return ""
    parts = []
    for name, level in sorted(levels.items()):
        depth = graph.channels[name].depth
        state = "full" if level == depth else "empty" if level == 0 else "partly full"
        parts.append(f"{name} {state} ({level}/{depth})")
    return "; streams: " + ", ".join(parts)


def run_top(top, problems, in_gap=0.0, out_gap=0.0, seed=0, budget=None):
    """Run ``problems`` (a list of input dicts) through ``top``.

    Returns ``(outputs, cycles, done)``: per problem the output arrays, the cycles from its
    first input beat to its last output beat, and the cycle of its last output beat. Stops
    with ``HwgenError`` naming the stuck ports when the cycle ``budget`` runs out.
    """
    graph = top.graph
    rng = random.Random(seed)
    results = [dict() for _ in problems]
    first, last = {}, {}
    budget = budget or len(problems) * (top.expected_cycles * 4 + 200) * \
        (1 + int(10 * max(in_gap, out_gap)))
    clock = {"n": 0}
    progress = {}

    def driver(t, r):
        async def tb(ctx):
            port = getattr(top, t.name)
            lanes, bits = top.lanes[t.name], t.dtype.bits
            for p, inputs in enumerate(problems):
                flat = np.asarray(inputs[t.name]).flatten()
                for i in range(0, len(flat), lanes):
                    beat = sum((int(v) & ((1 << bits) - 1)) << (k * bits)
                               for k, v in enumerate(flat[i:i + lanes]))
                    while True:
                        stall = r.random() < in_gap
                        ctx.set(port.valid, 0 if stall else 1)
                        ctx.set(port.payload, beat)
                        _, _, ready = await ctx.tick().sample(port.ready)
                        if ready and not stall:
                            first.setdefault(p, clock["n"])
                            progress[t.name] = progress.get(t.name, 0) + 1
                            break
            ctx.set(port.valid, 0)
        return tb

    def sink(t, r):
        async def tb(ctx):
            port = getattr(top, t.name)
            n = int(np.prod(t.shape))
            for p in range(len(problems)):
                got = []
                while len(got) < n:
                    ready = r.random() >= out_gap
                    ctx.set(port.ready, 1 if ready else 0)
                    _, _, valid, payload = await ctx.tick().sample(port.valid, port.payload)
                    if valid and ready:
                        lanes, bits = top.lanes[t.name], t.dtype.bits
                        got.extend(t.dtype.wrap(payload >> (k * bits)) for k in range(lanes))
                        last[p] = clock["n"]
                        progress[t.name] = progress.get(t.name, 0) + 1
                results[p][t.name] = np.array(got).reshape(t.shape)
            ctx.set(port.ready, 0)
        return tb

    levels = {}

    async def counter(ctx):
        fifos = sorted(top.fifos.items())
        while True:
            _, _, *values = await ctx.tick().sample(*(q.level for _, q in fifos))
            clock["n"] += 1
            levels.update(zip((name for name, _ in fifos), values))

    sim = Simulator(top)
    sim.add_clock(1e-8)
    for t in graph.inputs:
        sim.add_testbench(driver(t, random.Random(rng.random())))
    for t in graph.outputs:
        sim.add_testbench(sink(t, random.Random(rng.random())))
    sim.add_process(counter)
    while clock["n"] < budget and len(results[-1]) < len(graph.outputs):
        sim.advance()
    if len(results[-1]) != len(graph.outputs):
        want = {t.name: int(np.prod(t.shape)) // top.lanes[t.name] * len(problems)
            for t in graph.tensors.values()}
        stuck = [f"{k} ({progress.get(k, 0)}/{n} beats)" for k, n in want.items()
                 if progress.get(k, 0) < n]
        raise HwgenError(f"simulation stopped after {budget} cycles; ports still waiting: "
                         + ", ".join(stuck) + stream_states(graph, levels))
    cycles = [last[p] - first[p] + 1 for p in range(len(problems))]
    return results, cycles, [last[p] for p in range(len(problems))]
