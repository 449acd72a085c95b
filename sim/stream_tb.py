"""Manifest-driven cocotb testbench for any hwgen design.

Reads ``design.json`` (ports, shapes, dtypes, expected_cycles) and ``vectors.npz`` (inputs and
golden outputs per problem, ``in_<port>_<p>`` / ``out_<port>_<p>``) from ``HWGEN_DESIGN_DIR``.
Every input port is driven concurrently and every output port drained concurrently, problems
back to back without reset. Two tests:

* ``no_stall``: the host never stalls; the first problem's cycles (first input beat to last
  output beat, the accelerator idle before it) must equal ``expected_cycles`` and, when the
  manifest gives ``interval_cycles``, the cycles between the last output beats of consecutive
  problems (the steady-state cost of a problem sent back to back) must equal it.
* ``random_backpressure``: random valid gaps on every input, random ready on every output.

A cycle budget stops a stuck run and reports which ports still wait and which internal FIFO
streams (``design.json``'s ``streams``) are full or empty. Results go to
``sim_report.json`` in the test directory.
"""
import json
import os
import random

import numpy as np

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb.utils import get_sim_time

PERIOD_NS = 10
DESIGN_DIR = os.environ.get("HWGEN_DESIGN_DIR", ".")


def _load():
    with open(os.path.join(DESIGN_DIR, "design.json")) as f:
        design = json.load(f)
    vectors = np.load(os.path.join(DESIGN_DIR, "vectors.npz"))
    problems = int(vectors["problems"])
    return design, vectors, problems


def _width(dtype):
    return int(dtype[4:]) if dtype.startswith("uint") else int(dtype[3:])


def _to_signed(value, dtype):
    w = _width(dtype)
    value &= (1 << w) - 1
    if not dtype.startswith("uint") and value >> (w - 1):
        value -= 1 << w
    return value


def _pack(values, dtype, lanes):
    """Elements -> beats: ``lanes`` elements per beat, element 0 in the low bits."""
    w = _width(dtype)
    beats = []
    for i in range(0, len(values), lanes):
        beat = 0
        for k, v in enumerate(values[i:i + lanes]):
            beat |= (int(v) & ((1 << w) - 1)) << (k * w)
        beats.append(beat)
    return beats


def _unpack(beat, dtype, lanes):
    w = _width(dtype)
    return [_to_signed(beat >> (k * w), dtype) for k in range(lanes)]


def _cycle():
    return int(get_sim_time("ns")) // PERIOD_NS


class _Port:
    def __init__(self, dut, spec):
        self.spec = spec
        self.payload = getattr(dut, spec["payload"])
        self.valid = getattr(dut, spec["valid"])
        self.ready = getattr(dut, spec["ready"])
        self.numel = int(np.prod(spec["shape"]))
        self.beats = -(-self.numel // spec["lanes"])
        self.done_beats = 0
        self.total_beats = 0


async def _drive(dut, port, problems, vectors, gap, rng, stamps):
    clk = dut.clk
    for p in range(problems):
        data = vectors[f"in_{port.spec['name']}_{p}"].flatten()
        beats = _pack(data, port.spec["dtype"], port.spec["lanes"])
        i = 0
        while i < len(beats):
            stall = rng.random() < gap
            port.valid.value = 0 if stall else 1
            port.payload.value = beats[i]
            await ReadOnly()
            fire = not stall and port.ready.value == 1
            if fire:
                stamps.setdefault(("in", p), _cycle())
            await RisingEdge(clk)
            if fire:
                i += 1
                port.done_beats += 1
    port.valid.value = 0


async def _sink(dut, port, problems, gap, rng, results, stamps):
    clk = dut.clk
    for p in range(problems):
        got = []
        while len(got) < port.numel:
            ready = rng.random() >= gap
            port.ready.value = 1 if ready else 0
            await ReadOnly()
            if ready and port.valid.value == 1:
                got.extend(_unpack(port.payload.value.to_unsigned(), port.spec["dtype"],
                                   port.spec["lanes"]))
                stamps[("out", p, port.spec["name"])] = _cycle()
                port.done_beats += 1
            await RisingEdge(clk)
        results[(port.spec["name"], p)] = np.array(got[:port.numel]).reshape(port.spec["shape"])
    port.ready.value = 0


async def _run(dut, in_gap, out_gap, seed, name):
    design, vectors, problems = _load()
    rng = random.Random(seed)
    ports = [_Port(dut, s) for s in design["ports"]]
    for port in ports:
        port.total_beats = port.beats * problems
        (port.valid if port.spec["dir"] == "in" else port.ready).value = 0
    cocotb.start_soon(Clock(dut.clk, PERIOD_NS, unit="ns").start())
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    stamps, results = {}, {}
    tasks = []
    for port in ports:
        if port.spec["dir"] == "in":
            tasks.append(cocotb.start_soon(_drive(dut, port, problems, vectors, in_gap,
                                                  random.Random(rng.random()), stamps)))
        else:
            tasks.append(cocotb.start_soon(_sink(dut, port, problems, out_gap,
                                                 random.Random(rng.random()), results, stamps)))
    expected = design["expected_cycles"]
    slack = 1 + 4 * max(in_gap, out_gap) / max(1e-9, 1 - max(in_gap, out_gap))
    budget = int(os.environ.get("HWGEN_BUDGET") or problems * (expected * (1 + slack) * 2 + 100))
    start = _cycle()
    while not all(t.done() for t in tasks):
        await RisingEdge(dut.clk)
        if _cycle() - start > budget:
            stuck = [f"{p.spec['name']} ({p.spec['dir']}: {p.done_beats}/{p.total_beats} beats)"
                     for p in ports if p.done_beats < p.total_beats]
            stuck = ", ".join(stuck) + _stream_states(dut, design)
            for t in tasks:
                t.cancel()
            _report(name, design, problems, [], False, f"stuck after {budget} cycles: " + stuck)
            assert False, f"cycle budget of {budget} exceeded; ports still waiting: " + stuck
    mismatches = []
    for port in ports:
        if port.spec["dir"] != "out":
            continue
        for p in range(problems):
            want = vectors[f"out_{port.spec['name']}_{p}"]
            got = results[(port.spec["name"], p)]
            if not np.array_equal(want, got):
                bad = np.argwhere(want != got)[0]
                mismatches.append(f"{port.spec['name']} problem {p} at {tuple(int(i) for i in bad)}"
                                  f": got {got[tuple(bad)]}, expected {want[tuple(bad)]}")
    cycles, lasts = [], []
    for p in range(problems):
        last = max(v for k, v in stamps.items() if k[0] == "out" and k[1] == p)
        lasts.append(last)
        cycles.append(last - stamps[("in", p)] + 1)
    intervals = [b - a for a, b in zip(lasts, lasts[1:])]
    ok = not mismatches
    _report(name, design, problems, cycles, ok, "; ".join(mismatches), intervals)
    assert ok, "output mismatch: " + "; ".join(mismatches[:5])
    return cycles, intervals, design


def _stream_states(dut, design):
    """Which internal FIFO streams are full and which empty, read from the design."""
    parts = []
    for s in design.get("streams", []):
        try:
            level = int(getattr(dut, s["instance"]).level.value)
        except (AttributeError, ValueError):
            parts.append(f"{s['name']} (level not visible)")
            continue
        state = "full" if level == s["depth"] else "empty" if level == 0 else "partly full"
        parts.append(f"{s['name']} {state} ({level}/{s['depth']})")
    return "; streams: " + ", ".join(parts) if parts else ""


def _report(name, design, problems, cycles, ok, detail, intervals=()):
    path = "sim_report.json"
    report = {}
    if os.path.exists(path):
        with open(path) as f:
            report = json.load(f)
    report[name] = {"pass": ok, "problems": problems, "cycles": cycles,
                    "intervals": list(intervals),
                    "expected_cycles": design["expected_cycles"], "detail": detail}
    with open(path, "w") as f:
        json.dump(report, f, indent=1)


@cocotb.test()
async def no_stall(dut):
    """The host never stalls: the first problem takes ``expected_cycles``, each further one
    ``interval_cycles`` more."""
    cycles, intervals, design = await _run(dut, 0.0, 0.0, 1, "no_stall")
    expected = design["expected_cycles"]
    assert cycles[0] == expected, \
        f"first problem took {cycles[0]} cycles, expected_cycles is {expected}"
    if "interval_cycles" in design:
        assert all(i == design["interval_cycles"] for i in intervals), \
            f"cycles between problems {intervals} differ from interval_cycles " \
            f"{design['interval_cycles']}"
    else:
        assert all(c == expected for c in cycles), \
            f"cycles per problem {cycles} differ from expected_cycles {expected}"


@cocotb.test()
async def random_backpressure(dut):
    """Random gaps on every input, random back-pressure on every output."""
    await _run(dut, 0.3, 0.3, int(os.environ.get("HWGEN_SEED", "7")), "random_backpressure")
