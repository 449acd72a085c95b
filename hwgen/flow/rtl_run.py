"""Run a design's generated RTL on the caller's inputs and return what the hardware produced
(Allo's ``df.build(top, target="verilator")``): one problem through the cocotb testbench with
random gaps and back-pressure, the outputs read back from the simulated ports."""
import os
import tempfile

import numpy as np

from ..errors import HwgenError
from ..ir.interp import check_inputs, run
from . import verilog
from .simulate import run_manifest

TEST = "random_backpressure"


class RTLMismatch(HwgenError):
    """The simulated RTL did not produce what the interpreter did: a hwgen bug."""


def run_rtl(graph, inputs, out_dir=None, sim="verilator"):
    """Outputs (name -> int64 array) of ``graph``'s RTL on ``inputs``, simulated by ``sim``
    in ``out_dir`` (a temporary folder when None). The testbench also compares them with the
    interpreter; a difference is an error (a hwgen bug), as is a run that never finishes."""
    arrays = check_inputs(graph, inputs)
    vectors = {"problems": np.array(1)}
    vectors.update({f"in_{name}_0": a for name, a in arrays.items()})
    vectors.update({f"out_{name}_0": a for name, a in run(graph, arrays).items()})
    if out_dir is None:
        with tempfile.TemporaryDirectory(prefix=f"hwgen_{graph.name}_") as tmp:
            return _simulate(graph, vectors, tmp, sim)
    os.makedirs(out_dir, exist_ok=True)
    return _simulate(graph, vectors, out_dir, sim)


def _simulate(graph, vectors, out_dir, sim):
    verilog.write(graph, out_dir)
    result = run_manifest(out_dir, graph, sim, problems=1, tests=[TEST], vectors=vectors)
    report = result["tests"].get(TEST, {})
    if not report.get("pass"):
        raise RTLMismatch(f"the generated RTL of {graph.name} did not reproduce the interpreter "
                         f"on {sim} ({report.get('detail') or 'no report'}); see "
                         f"{result['log']}")
    with np.load(os.path.join(out_dir, f"test_{sim}", f"outputs_{TEST}.npz")) as got:
        return {t.name: np.array(got[f"out_{t.name}_0"]) for t in graph.outputs}
