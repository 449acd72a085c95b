"""Folding to a budget: the array shape searched under PE, DSP and block RAM budgets, the
schedule deciding among the model's best."""
import re

import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.flow import verilog
from hwgen.flow.tiles import run_whole
from hwgen.flow.fit import multipliers
from hwgen.pipeline import describe_folds, load_design
from hwgen.schedule import plan
from tests.conftest import example, program


def test_a_dsp_budget_folds_onto_the_squarest_fastest_shape():
    graph = load_design(example("gemm_os"), {"M": 32, "N": 32, "K": 32}, budget={"dsps": 16})
    assert graph.folds == {"pe": ((32, 32), (4, 4))} and multipliers(graph) == 16
    report = describe_folds(graph)
    assert report[0].startswith("searched 38 array shapes under the budget; chosen 4x4: "
                                "16 PEs, 16 DSP, 64 turns")
    assert "(exact)" in report[0]
    assert any("1x16" in line and "the same PEs and turns as a squarer shape" in line
               for line in report)


def test_the_search_gives_the_same_verilog_as_the_array_and_the_bundle(tmp_path):
    """``--dsps 16``, ``--array 4x4`` and ``hwgen.bundle`` by hand choose one fold: one
    Verilog."""
    params = {"M": 8, "N": 8, "K": 32}
    texts = []
    for name, graph in [
            ("budget", load_design(example("gemm_os"), params, budget={"dsps": 16})),
            ("array", load_design(example("gemm_os"), params, array=(4, 4))),
            ("hand", load_design(program("gemm_bundled"), params))]:
        verilog.write(graph, tmp_path / name, target="ecp5")
        texts.append((tmp_path / name / "gemm_os.v").read_text())
    assert texts[0] == texts[1] == texts[2]


def test_fewer_dsp_blocks_win_where_the_host_ports_bound_the_interval():
    """16x16x64 within 156 DSPs: 128 PEs (2 turns) and 96 PEs (3 turns) both reach the
    interval the host ports allow; the search takes the 96 and says why it left the 128."""
    graph = load_design(example("gemm_os"), {"M": 16, "N": 16, "K": 64},
                        budget={"dsps": 156})
    report = describe_folds(graph)
    assert multipliers(graph) == 96 < 128
    assert any(line.strip().startswith("rejected 8x16: 128 PEs, 128 DSP, 2 turns")
               and "as fast, more DSP blocks" in line for line in report)


def test_shapes_over_the_dsp_budget_are_rejected_with_the_reason():
    graph = load_design(example("gemm_os"), {"M": 32, "N": 32, "K": 8},
                        budget={"pes": 16, "dsps": 8})
    assert multipliers(graph) <= 8
    assert any("over the DSP budget of 8" in line for line in describe_folds(graph))


def test_multiplies_past_the_dsp_budget_are_built_in_logic_within_the_lut_budget():
    """8x8 within 16 DSP blocks: the whole grid, 16 PEs on DSP blocks and 48 in logic; with
    no DSP blocks, every PE in logic; a LUT budget too small for the grid folds it."""
    params = {"M": 8, "N": 8, "K": 32}
    mixed = load_design(example("gemm_os"), params, budget={"dsps": 16, "luts": 40000})
    assert mixed.folds == {}        # the grid as written
    assert multipliers(mixed) == 16 and len(mixed.fabric) == 48
    assert "chosen 8x8: 64 PEs, 16 DSP + 48 multiplies in logic (~4,896 LUT)" in mixed.search[0]
    logic = load_design(example("gemm_os"), params, budget={"dsps": 0, "luts": 40000})
    assert multipliers(logic) == 0 and logic.fabric == frozenset(logic.instances)
    small = load_design(example("gemm_os"), params, budget={"dsps": 0, "luts": 1700})
    assert len(small.instances) == 16 == len(small.fabric)
    assert any("~6,528 LUT, over the budget of 1,700" in line for line in small.search)


def test_a_program_without_grids_has_nothing_to_fold():
    graph = load_design(example("mlp_pipeline"), budget={"dsps": 4})
    assert graph.folds == {} and graph.search == [
        "nothing to fold: no task runs on a grid of more than one instance"]


@pytest.mark.parametrize("budget,words", [
    ({"dsps": -1}, "the DSP budget must be a whole number, at least 0 .e.g. --dsps 16., got -1"),
    ({"dsps": 0}, "no DSP blocks and no LUT budget: give one for the multiplies in logic "
                  ".--luts, make ... LUTS=."),
    ({"dsps": 0, "luts": -5}, "the LUT budget must be a whole number, at least 0"),
    ({"dsps": 0, "luts": 50}, "no fold fits 0 DSP blocks and 50 LUT for multiplies in logic: "
                              "the smallest takes ~102 LUT"),
    ({"pes": -2}, "the PE budget must be a whole number, at least 1"),
    ({"brams": -1}, "the block RAM budget must be a whole number, at least 0"),
    ({"ports": 0}, "the port pin budget must be a whole number, at least 1"),
    ({"ports": 20}, "no fold fits 20 host-port pins: the fewest, .*, takes 56; give more .--ports"),
])
def test_a_bad_budget_is_a_clear_error(budget, words):
    with pytest.raises(HwgenError, match=words):
        load_design(example("gemm_os"), budget=budget)


def test_a_problem_over_the_block_ram_budget_is_tiled_on_the_chosen_shape():
    graph = load_design(example("gemm_os"), {"M": 32, "N": 32, "K": 16},
                        budget={"dsps": 16, "brams": 8})
    assert graph.search[0].startswith("searched") and "chosen 4x4" in graph.search[0]
    assert graph.folds == {"pe": ((32, 8), (4, 4))}
    assert [(loop["count"], loop["size"]) for loop in graph.tiles["loops"]] == [(1, 32), (4, 8)]
    rng = np.random.default_rng(0)
    a, b = rng.integers(-128, 128, (32, 16)), rng.integers(-128, 128, (16, 32))
    assert np.array_equal(run_whole(graph, {"A": a, "B": b})["C"], a @ b)


def test_shapes_whose_host_ports_exceed_the_pin_budget_are_rejected(tmp_path):
    """16x16x16 within 60 pins: the faster shapes need two lanes on A and B (104 pins, or 72
    with fewer PEs); the search schedules slower shapes until one fits, and the pins it counts
    are the generated top's ports."""
    graph = load_design(example("gemm_os"), {"M": 16, "N": 16, "K": 16},
                        budget={"dsps": 156, "ports": 60})
    report = describe_folds(graph)
    assert any("its host ports take 72 pins, over the budget of 60" in line for line in report)
    assert plan(graph).host_pins <= 60
    info = verilog.write(graph, str(tmp_path), None, None, "generic")
    text = open(tmp_path / info.verilog[0]).read()
    top = text[text.index(f"module {info.top}("):].split("endmodule", 1)[0]
    widths = re.findall(r"^ *(?:input|output) (?:\[(\d+):0\] )?\w+;", top, re.M)
    assert sum(int(w) + 1 if w else 1 for w in widths) == plan(graph).host_pins


def test_the_cli_budget_defaults_are_the_devices_and_the_boards():
    """Budgets not given are the device's; --dsps 0 brings half its LUTs for multiplies in
    logic; a board's budget is its device's, without a pin budget (the UART bridge carries the
    ports)."""
    from argparse import Namespace
    from hwgen.cli_explore import budget_of
    none = dict(pes=None, dsps=None, brams=None, ports=None, luts=None)
    assert budget_of(Namespace(**none)) is None
    assert budget_of(Namespace(**dict(none, dsps=16))) == {
        "pes": 16, "dsps": 16, "brams": 208, "ports": 365, "luts": None}
    assert budget_of(Namespace(**dict(none, dsps=0))) == {
        "pes": None, "dsps": 0, "brams": 208, "ports": 365, "luts": 41820}
    assert budget_of(Namespace(**dict(none, dsps=8), board="icebreaker")) == {
        "pes": 8, "dsps": 8, "brams": 30, "ports": None, "luts": None}
    assert budget_of(Namespace(**dict(none, luts=900), device="ice40-up5k")) == {
        "pes": None, "dsps": 8, "brams": 30, "ports": 39, "luts": 900}
