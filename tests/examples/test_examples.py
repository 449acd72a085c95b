"""Every example in hwgen/examples is verified at the two sizes it lists in TEST_SIZES (one of
them odd): the functional interpreter equals the example's numpy reference, and the generated
RTL equals numpy in Amaranth's simulator and in cocotb on Verilator and Icarus, under random
input gaps and output back-pressure, with cycle counts equal to the schedule's prediction.
Icarus runs both sizes; Verilator, whose C++ build costs far more than the run, the first, of
the examples in `VERILATED` in make test and of every example in the slow tier."""
import glob
import os

import numpy as np
import pytest

from hwgen.check.reference import call_reference, differences
from hwgen.flow.simulate import simulate, summary
from hwgen.ir.interp import run
from hwgen.pipeline import load_design, load_module
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from hwgen.ir import floats
from tests.conftest import EXAMPLES, example_inputs, golden

NAMES = sorted(os.path.splitext(os.path.basename(p))[0]
               for p in glob.glob(os.path.join(EXAMPLES, "*.py")) if not p.endswith("__init__.py"))
CASES = [(name, sizes) for name in NAMES
         for sizes in load_module(os.path.join(EXAMPLES, f"{name}.py")).TEST_SIZES]


def _ids(case):
    name, sizes = case
    return f"{name}-" + "-".join(f"{k}{v}" for k, v in sizes.items())


def _load(name, sizes):
    path = os.path.join(EXAMPLES, f"{name}.py")
    return load_module(path), load_design(path, sizes)


def _same(graph, name, got, want):
    """Outputs equal to the reference's (float outputs: bit for bit, a NaN as a NaN)."""
    return differences(name, np.asarray(got), want, dtype=graph.tensors[name].dtype) is None


def _problems(module, graph, n=3):
    return [example_inputs(module, graph, seed, extreme=(seed == 0)) for seed in range(n)]


def test_the_library_is_complete():
    assert {"producer_consumer", "systolic_1d", "gemm_os", "gemm_ws", "gemm_daisy_chain",
            "gemm_tiled", "conv2d_systolic", "gemv_cooperative", "smith_waterman",
            "mlp_pipeline"} <= set(NAMES)
    for name in NAMES:
        sizes = load_module(os.path.join(EXAMPLES, f"{name}.py")).TEST_SIZES
        assert len(sizes) >= 2 and any(v % 2 for s in sizes for v in s.values()), name


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_interpreter_equals_numpy(case):
    module, graph = _load(*case)
    assert graph.warnings == []
    for inputs in _problems(module, graph, 4):
        got = run(graph, inputs)
        for name, want in call_reference(module.reference, graph, inputs).items():
            if hasattr(module, "TOLERANCE"):
                values = floats.from_bits(got[name], graph.tensors[name].dtype)
                assert np.max(np.abs(values - want)) <= module.TOLERANCE, name
            else:
                assert _same(graph, name, got[name], want), name


# Amaranth's simulator at each example's first size (the generic target's lowering); every
# size runs on Icarus below, the ECP5 target's Verilog, against the same reference.
FIRST = [case for k, case in enumerate(CASES) if k == 0 or CASES[k - 1][0] != case[0]]


@pytest.mark.parametrize("case", FIRST, ids=_ids)
def test_rtl_in_amaranth_sim(case):
    module, graph = _load(*case)
    top = Top(plan(graph))
    problems = _problems(module, graph)
    outs, cycles, done = run_top(top, problems)
    assert cycles[0] == top.expected_cycles
    assert list(np.diff(done)) == [top.interval_cycles] * (len(problems) - 1)
    outs_bp, _, _ = run_top(top, problems, in_gap=0.4, out_gap=0.5, seed=3)
    for p, inputs in enumerate(problems):
        for name, want in golden(module, graph, inputs).items():
            assert _same(graph, name, outs[p][name], want), (p, name)
            assert _same(graph, name, outs_bp[p][name], want), (p, name, "back-pressure")


# On Verilator in make test: one of each kind of hardware (a systolic array and its DSP
# blocks, floats, exp and division, tables, a window of pixels, a recurrence).
VERILATED = {"gemm_os", "gemv_float", "conv2d_systolic", "smith_waterman"}
SIMULATED = [pytest.param(case, sim, id=f"{_ids(case)}-{sim}",
                          marks=[pytest.mark.slow] * (sim == "verilator" and
                                                      case[0] not in VERILATED))
             for case in CASES for sim in ("verilator", "icarus")
             if sim == "icarus" or case == next(c for c in CASES if c[0] == case[0])]


@pytest.mark.parametrize("case, sim", SIMULATED)
def test_cocotb(tmp_path, case, sim):
    _, graph = _load(*case)
    result = simulate(graph, tmp_path, sim=sim, problems=3)
    text = "\n".join(summary(result))
    assert result["failed"] == 0 and result["total"] == 2, text
    assert all(t["pass"] for t in result["tests"].values()), text
    assert result["tests"]["no_stall"]["cycles"][0] == result["design"].expected_cycles, text
