"""``flow.timing_run``: one design placed and routed, and its resources by part."""
import pytest

from hwgen.flow.timing_run import resources_by_part, time_design
from hwgen.pipeline import load_design
from tests.conftest import example


@pytest.mark.pnr
def test_resources_by_part_add_up_to_the_design(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 1, "N": 2, "K": 3})
    report, workdir, top = time_design(graph, str(tmp_path), "ecp5-85k")
    parts = resources_by_part(workdir, top)
    assert {"g0", "in_A", "in_B", "out_C"} <= set(parts)
    assert parts["g0"]["DSP"] == report["used"]["DSP"] == 2
    for kind in ("FF", "DSP", "BRAM"):
        assert sum(part[kind] for part in parts.values()) == report["used"][kind], kind
    assert 0.8 * report["used"]["LUT"] <= sum(p["LUT"] for p in parts.values()) \
        <= report["used"]["LUT"]


@pytest.mark.pnr
def test_hwgen_timing_prints_fmax_resources_and_the_report(tmp_path, capsys):
    from hwgen.cli import main
    assert main(["timing", example("producer_consumer"), "--params", "N=8", "--out",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Fmax" in out and "LUT" in out and (tmp_path / "timing_ecp5-85k" /
                                                 "timing.json").is_file()
