"""One small real place-and-route on ECP5: Fmax and utilization come from nextpnr's report."""
import pytest

from hwgen import HwgenError
from hwgen.flow import pnr, verilog
from hwgen.pipeline import load_design
from tests.conftest import example


@pytest.mark.pnr
def test_small_gemm_on_ecp5_has_one_multiplier_per_pe(tmp_path):
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 4})
    info = verilog.write(graph, tmp_path, target="ecp5")    # MULT18X18D blocks; model skipped
    t = pnr.timing(str(tmp_path), info.verilog, info.top, "ecp5-85k", router="router2")
    assert "Router2 time" in (tmp_path / "nextpnr_1.log").read_text()     # the router asked for
    command = (tmp_path / "nextpnr_1.out").read_text().splitlines()[0]     # the log's first line
    assert " ".join(pnr.PLACER_ARGS["ecp5"]) in command and "--seed 1" in command
    assert t["used"]["DSP"] == 4
    assert t["pinned_grid"] == (2, 2)                     # flow.floorplan, before nextpnr
    assert "BEL" in (tmp_path / "gemm_os.json").read_text()
    assert t["critical_path"]["ns"] > 0 and t["critical_path"]["from"]
    assert t["fmax_mhz"] > 30
    assert 0 < t["used"]["LUT"] < 5000 and t["used"]["FF"] > 0
    assert (tmp_path / "timing.json").exists()


def test_unknown_device_is_an_error():
    with pytest.raises(HwgenError, match="unknown DEVICE"):
        pnr.device_info("xc7a35t")


def test_a_report_without_register_paths_has_no_critical_path():
    assert pnr.critical_path({}) is None
    only_pins = {"critical_paths": [{"from": "<async>", "to": "posedge clk", "path": [
        {"type": "routing", "delay": 1.0, "from": {"cell": "a"}, "to": {"cell": "b"}}]}]}
    assert pnr.critical_path(only_pins) is None
    assert pnr.describe_path(None) == "critical path: none reported"


def test_an_unknown_router_is_an_error():
    with pytest.raises(HwgenError, match="unknown nextpnr router 'router3'; use one of router1"):
        pnr.place_and_route("/nonexistent", "x.json", "ecp5-85k", 100, router="router3")
