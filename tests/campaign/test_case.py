"""One random program through the flow: a pass, and every kind of finding it can report."""
import os

import numpy as np
import pytest

from hwgen.campaign.case import hardware_finding, inputs, run_case
from hwgen.ir.interp import run
from hwgen.pipeline import load_design
from hwgen.schedule import plan
from tests.conftest import example, program

SOURCE = open(program("fifo_skew")).read()


def test_a_good_program_passes(tmp_path):
    result = run_case(SOURCE, str(tmp_path))
    assert result["status"] == "pass", result["detail"]


def test_a_wrong_golden_value_is_a_mismatch():
    graph = load_design(program("fifo_skew"))
    problems = [inputs(graph, k) for k in range(2)]
    golden = [run(graph, p) for p in problems]
    golden[1]["C"] = golden[1]["C"].copy()
    golden[1]["C"][3] += 1
    found = hardware_finding(plan(graph), problems, golden, (0.3, 0.3), 0)
    assert found.startswith("mismatch") and "C[3]" in found and "problem 1" in found


def test_a_program_the_checks_refuse_is_rejected(tmp_path):
    result = run_case(SOURCE.replace("s.put(A[i] * 2)", "s.put(A[i] * 2)\n"
                                     "                s.put(A[i])"), str(tmp_path))
    assert result["status"] == "rejected" and result["detail"]


def test_a_broken_file_is_a_crash_or_rejection_not_an_exception(tmp_path):
    result = run_case("def build(:\n", str(tmp_path))
    assert result["status"] in ("rejected", "crash") and result["detail"]


def test_inputs_cover_each_tensor():
    graph = load_design(program("fifo_skew"))
    got = inputs(graph, 0)
    assert set(got) == {t.name for t in graph.inputs}
    assert all(np.shape(got[t.name]) == t.shape for t in graph.inputs)


@pytest.mark.verilator
def test_a_sampled_program_also_passes_on_verilator(tmp_path):
    result = run_case(SOURCE, str(tmp_path), lanes=2, verilator=True)
    assert result["status"] == "pass", result["detail"]
    assert os.path.exists(tmp_path / "verilator" / "design.json")


@pytest.mark.parametrize("dsps", [0, 2])
def test_multiplies_in_logic_pass_in_amaranths_simulator(tmp_path, dsps):
    """A case whose multiplies past ``dsps`` DSP blocks are built in logic (the campaign
    draws 0 and 1), gemm_os at 2x3: values and cycles as the schedule says."""
    with open(example("gemm_os")) as f:
        source = f.read().replace("M: int = 8, N: int = 8, K: int = 64",
                                  "M: int = 2, N: int = 3, K: int = 5")
    result = run_case(source, str(tmp_path), dsps=dsps)
    assert result["status"] == "pass", result["detail"]
