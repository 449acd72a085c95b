"""One random program through the whole flow: checks, the interpreter (the golden model), the
generated hardware in Amaranth's simulator (and on Verilator when asked), compared beat for beat
and cycle for cycle."""
import hashlib
import os
import time
import traceback
import warnings

import numpy as np

from ..errors import HwgenError
from ..mapping.multipliers import assign
from ..pipeline import load_design

PROBLEMS = 3


def inputs(graph, seed):
    """Random inputs over each tensor's whole range."""
    rng = np.random.default_rng(seed)
    return {t.name: rng.integers(t.dtype.min, t.dtype.max, t.shape, endpoint=True)
            for t in graph.inputs}


def write(source, workdir):
    """``source`` as a design file in ``workdir`` named by its hash; returns the path."""
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, "p" + hashlib.sha1(source.encode()).hexdigest()[:12] + ".py")
    with open(path, "w") as f:
        f.write(source)
    return path


def _differences(got, want):
    """Where ``got`` and ``want`` (dicts of arrays) first differ, as text, or ``""``."""
    for name, w in want.items():
        g = np.asarray(got[name])
        if not np.array_equal(g, w):
            idx = tuple(int(i) for i in np.argwhere(g != w)[0])
            return f"{name}{list(idx)}: hardware {g[idx]}, interpreter {w[idx]}"
    return ""


def _plan(graph, lanes):
    """The plan with ``lanes`` per beat, or with automatic lanes where the design cannot take
    that many (a power of two that does not divide a sharded dimension)."""
    from ..schedule import plan
    try:
        return plan(graph, lanes=lanes)
    except HwgenError:
        return plan(graph)


def hardware_finding(plan, problems, golden, gaps, seed):
    """Run ``plan``'s top in Amaranth's simulator without and with ``gaps`` and compare with
    ``golden`` (per problem, name -> array) and the schedule's cycles; the finding as text or
    ``""``."""
    from ..rtl.simhelpers import run_top
    from ..rtl.top import Top
    top = Top(plan)
    outs, cycles, done = run_top(top, problems)
    intervals = list(np.diff(done))
    if cycles[0] != top.expected_cycles:
        return f"timing: first problem {cycles[0]} cycles, schedule says {top.expected_cycles}"
    if intervals != [top.interval_cycles] * (len(problems) - 1):
        return f"timing: intervals {intervals}, schedule says {top.interval_cycles}"
    for run in ((outs, "no stall"), (run_top(top, problems, *gaps, seed=seed)[0], f"gaps {gaps}")):
        for p, want in enumerate(golden):
            diff = _differences(run[0][p], want)
            if diff:
                return f"mismatch ({run[1]}, problem {p}): {diff}"
    return ""


def _verilator(graph, workdir):
    """The cocotb testbench on Verilator; the finding as text or ``""``."""
    from ..flow.simulate import simulate
    result = simulate(graph, os.path.join(workdir, "verilator"), sim="verilator")
    bad = [name for name, t in result["tests"].items() if not t["pass"]]
    return f"verilator: tests {bad} failed" if bad or result["failed"] else ""


def run_case(source, workdir, seed=0, gaps=(0.3, 0.3), lanes=None, verilator=False,
             array=None, dsps=None):
    """Run one program; returns ``{"status", "detail", "seconds", "path"}`` where status is
    ``pass``, ``rejected`` (the checks refused it), ``unsupported`` (the checks accepted it but
    hardware generation refused it), ``mismatch`` (values or cycles differ), ``hang`` (a run
    missed its cycle budget) or ``crash`` (any other exception). ``lanes``: elements per host
    beat on every port (None: automatic); ``array``: a PE array to fold the program onto;
    ``dsps``: the multiplies past that many DSP blocks are built in logic (None: none)."""
    t0 = time.time()
    path = write(source, workdir)
    status, detail = "rejected", ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = load_design(path, array=array)
        if dsps is not None:
            graph = assign(graph, dsps)
        status = "unsupported"
        from ..ir.interp import run
        problems = [inputs(graph, seed * PROBLEMS + k) for k in range(PROBLEMS)]
        golden = [run(graph, p) for p in problems]
        detail = hardware_finding(_plan(graph, lanes), problems, golden, gaps, seed)
        if not detail and verilator:
            detail = _verilator(graph, workdir)
        status = "mismatch" if detail else "pass"
    except HwgenError as e:
        detail = str(e)
        status = "hang" if detail.startswith("simulation stopped after") else status
    except Exception:                                       # noqa: BLE001 (a finding)
        status, detail = "crash", traceback.format_exc(limit=-4)
    return {"status": status, "detail": detail, "seconds": round(time.time() - t0, 2),
            "path": path}
