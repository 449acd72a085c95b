"""Manifest-driven cocotb testbench for any hwgen design.

Reads ``design.json`` (ports, shapes, dtypes, expected_cycles) and ``vectors.npz`` (inputs and
golden outputs per problem, ``in_<port>_<p>`` / ``out_<port>_<p>``) from ``HWGEN_DESIGN_DIR``.
Every input port is driven concurrently and every output port drained concurrently, problems
back to back without reset. A tiled design (``tiles`` in design.json) gets whole tensors in
the vectors: each is split into one problem of the design per tile (``hwgen.host``), and the
outputs joined before they are compared; the cycle checks hold per tile problem. A resident
input (``"resident": true``) is sent once, from the first problem's vector (every problem's is
the same), before any other input: the host loads it once, and problems count from their other
inputs' beats. Two tests:

* ``no_stall``: the host never stalls; the first problem's cycles (first input beat to last
  output beat, the accelerator idle before it; without inputs, from the first clock edge out
  of reset) must equal ``expected_cycles`` and, when the
  manifest gives ``interval_cycles``, the cycles between the last output beats of consecutive
  problems (the steady-state cost of a problem sent back to back) must equal it.
* ``random_backpressure``: random valid gaps on every input, random ready on every output.

A cycle budget stops a stuck run and reports which ports still wait and which internal FIFO
streams (``design.json``'s ``streams``) are full or empty. Results go to
``sim_report.json`` in the test directory, the outputs received in ``outputs_<test>.npz``
(named like the golden vectors).
"""
import json
import os
import random

import numpy as np

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb.utils import get_sim_time

from hwgen.host import Sink, Source, beats, fifo_state, join_tiles, pack, split_tiles, unpack

PERIOD_NS = 10
DESIGN_DIR = os.environ.get("HWGEN_DESIGN_DIR", ".")


def _load():
    with open(os.path.join(DESIGN_DIR, "design.json")) as f:
        design = json.load(f)
    vectors = dict(np.load(os.path.join(DESIGN_DIR, "vectors.npz")))
    problems = int(vectors["problems"])
    if "tiles" in design:           # whole tensors: one problem of the design per tile
        tiles = design["tiles"]
        inputs = [s["name"] for s in design["ports"] if s["dir"] == "in"]
        blocks = [b for p in range(problems) for b in split_tiles(
            tiles, {n: vectors[f"in_{n}_{p}"] for n in inputs})]
        vectors.update({f"in_{n}_{q}": b[n] for q, b in enumerate(blocks) for n in inputs})
        problems = len(blocks)
    return design, vectors, problems


def _cycle():
    return int(get_sim_time("ns")) // PERIOD_NS


class _Port:
    """One stream port of the DUT and the ``hwgen.host`` Source or Sink driving it."""

    def __init__(self, dut, spec, problems, vectors, gap, seed):
        self.spec = spec
        self.payload = getattr(dut, spec["payload"])
        self.valid = getattr(dut, spec["valid"])
        self.ready = getattr(dut, spec["ready"])
        pad = spec.get("row_pad", 0)
        self.per_problem = beats(spec["shape"], spec["lanes"], pad)
        self.resident = spec.get("resident", False)
        if spec["dir"] == "in":
            payloads = [b for p in range(1 if self.resident else problems)
                        for b in pack(np.reshape(vectors[f"in_{spec['name']}_{p}"], spec["shape"]),
                                      spec["dtype"], spec["lanes"], pad)]
            self.host = Source(payloads, gap, seed)
        else:
            self.host = Sink(self.per_problem * problems, gap, seed)

    def outputs(self, problems):
        """The elements received, one array per problem."""
        flat = unpack(self.host.received, self.spec["dtype"], self.spec["lanes"])
        return [part.reshape(self.spec["shape"]) for part in flat.reshape(problems, -1)]


async def _drive(clk, port, stamps, after=()):
    """Feed an input port from its Source once every port in ``after`` is done (the resident
    inputs loaded); stamp each problem's first accepted beat, but a resident input's."""
    src = port.host
    while not all(p.host.done for p in after):
        await RisingEdge(clk)
    while not src.done:
        valid, payload = src.step()
        port.valid.value = int(valid)
        port.payload.value = payload
        await ReadOnly()
        if src.edge(port.ready.value == 1) and not port.resident:
            stamps.setdefault(("in", (src.taken - 1) // port.per_problem), _cycle())
        await RisingEdge(clk)
    port.valid.value = 0


async def _sink(clk, port, stamps):
    """Drain an output port into its Sink; stamp each problem's last beat."""
    sink = port.host
    while not sink.done:
        port.ready.value = int(sink.step())
        await ReadOnly()
        fire = sink.ready and port.valid.value == 1     # the payload may be X otherwise
        if sink.edge(fire, port.payload.value.to_unsigned() if fire else 0):
            stamps[("out", (sink.taken - 1) // port.per_problem, port.spec["name"])] = _cycle()
        await RisingEdge(clk)
    port.ready.value = 0


async def _reset(dut):
    """Reset for three cycles; the cycle whose edge first sees reset low (a design without
    inputs starts its first problem on it)."""
    cocotb.start_soon(Clock(dut.clk, PERIOD_NS, unit="ns").start())
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    released = _cycle()
    await RisingEdge(dut.clk)
    return released


async def _run(dut, in_gap, out_gap, seed, name):
    design, vectors, problems = _load()
    rng = random.Random(seed)
    ports = [_Port(dut, s, problems, vectors, in_gap if s["dir"] == "in" else out_gap,
                   rng.random()) for s in design["ports"]]
    for port in ports:
        (port.valid if port.spec["dir"] == "in" else port.ready).value = 0
    released = await _reset(dut)
    stamps = {}
    resident = [p for p in ports if p.resident]
    tasks = [cocotb.start_soon(_drive(dut.clk, port, stamps, () if port.resident else resident)
                               if port.spec["dir"] == "in" else _sink(dut.clk, port, stamps))
             for port in ports]
    expected = design["expected_cycles"]
    slack = 1 + 4 * max(in_gap, out_gap) / max(1e-9, 1 - max(in_gap, out_gap))
    budget = int(os.environ.get("HWGEN_BUDGET") or problems * (expected * (1 + slack) * 2 + 100))
    start = _cycle()
    while not all(t.done() for t in tasks):
        await RisingEdge(dut.clk)
        if _cycle() - start > budget:
            stuck = [f"{p.spec['name']} ({p.spec['dir']}: {p.host.taken}/{p.host.total} beats)"
                     for p in ports if not p.host.done]
            stuck = ", ".join(stuck) + _stream_states(dut, design)
            for t in tasks:
                t.cancel()
            _report(name, design, problems, [], False, f"stuck after {budget} cycles: " + stuck)
            assert False, f"cycle budget of {budget} exceeded; ports still waiting: " + stuck
    outputs = {port.spec["name"]: _outputs(port, problems, vectors, design.get("tiles"))
               for port in ports if port.spec["dir"] == "out"}
    np.savez(f"outputs_{name}.npz", **{f"out_{n}_{p}": got for n, outs in outputs.items()
                                        for p, got in enumerate(outs)})
    mismatches = _compare(outputs, vectors)
    cycles, lasts = [], []
    for p in range(problems):
        last = max(v for k, v in stamps.items() if k[0] == "out" and k[1] == p)
        # without inputs, a problem starts on its own: out of reset, or after the one before
        stamps.setdefault(("in", p), lasts[-1] + 1 if lasts else released)
        lasts.append(last)
        cycles.append(last - stamps[("in", p)] + 1)
    intervals = [b - a for a, b in zip(lasts, lasts[1:])]
    ok = not mismatches
    _report(name, design, problems, cycles, ok, "; ".join(mismatches), intervals)
    assert ok, "output mismatch: " + "; ".join(mismatches[:5])
    return cycles, intervals, design


def _outputs(port, problems, vectors, tiles):
    """What an output port received, one array per problem (of a tiled design: per whole
    problem, its tiles joined)."""
    outs = port.outputs(problems)
    if not tiles:
        return outs
    name, per = port.spec["name"], problems // int(vectors["problems"])
    return [join_tiles(tiles, [{name: o} for o in outs[p:p + per]])[name]
            for p in range(0, problems, per)]


def _compare(outputs, vectors):
    """One line per output and problem that differs from the golden vectors."""
    mismatches = []
    for name, outs in outputs.items():
        for p, got in enumerate(outs):
            want = vectors[f"out_{name}_{p}"]
            if not np.array_equal(want, got):
                bad = np.argwhere(want != got)[0]
                mismatches.append(f"{name} problem {p} at {tuple(int(i) for i in bad)}"
                                  f": got {got[tuple(bad)]}, expected {want[tuple(bad)]}")
    return mismatches


def _stream_states(dut, design):
    """Which internal FIFO streams are full and which empty, read from the design."""
    parts = []
    for s in design.get("streams", []):
        try:
            level = int(getattr(dut, s["instance"]).level.value)
        except (AttributeError, ValueError):
            parts.append(f"{s['name']} (level not visible)")
            continue
        parts.append(fifo_state(s["name"], level, s["depth"]))
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
