"""Layout inference and grids of every rank."""
import numpy as np

from hwgen.flow import verilog
from hwgen.ir.interp import run
from hwgen.pipeline import load_design
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import example, program, random_inputs


def test_layouts_are_inferred_from_the_accesses():
    graph = load_design(program("gemm_inferred"), {"M": 3, "N": 2, "K": 4})
    assert {n: repr(t.type) for n, t in graph.tensors.items()} == {
        "A": "int8[3, 4] @ [S(0), R]", "B": "int8[4, 2] @ [R, S(1)]",
        "C": "int32[3, 2] @ [S(0), S(1)]"}
    assert all(t.inferred for t in graph.tensors.values())


def test_inferred_layouts_give_the_same_verilog_as_written_ones(tmp_path):
    sizes = {"M": 3, "N": 2, "K": 4}
    verilog.write(load_design(program("gemm_inferred"), sizes), tmp_path / "inferred")
    verilog.write(load_design(example("gemm_os"), sizes), tmp_path / "written")
    assert (tmp_path / "inferred" / "gemm_os.v").read_text() == \
        (tmp_path / "written" / "gemm_os.v").read_text()


def test_ambiguous_or_crossing_uses_stay_replicated():
    graph = load_design(example("systolic_1d"), {"T": 4, "N": 8})
    assert graph.tensors["X"].type.layout is None       # only tap 0 reads X, all of it
    graph = load_design(example("conv2d_systolic"))
    assert graph.tensors["I"].type.layout is None       # windows overlap between PEs


def test_a_three_dimensional_grid():
    graph = load_design(program("grid3d"))
    assert len(graph.instances) == 12 and "pe[1,2,1]" in graph.instances
    problems = [random_inputs(graph, s, extreme=(s == 0)) for s in range(2)]
    outs, cycles, _ = run_top(Top(plan(graph)), problems, in_gap=0.3, out_gap=0.3, seed=2)
    for p, ins in enumerate(problems):
        want = ins["A"].astype(np.int64).sum(axis=3)
        assert np.array_equal(run(graph, ins)["B"], want)
        assert np.array_equal(outs[p]["B"], want)
