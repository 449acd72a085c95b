"""`make bench`: a fast smoke run (one tiny array, one seed, all three designs measured) and,
without place-and-route, its argument parsing and the summary it computes."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

BENCH = os.path.join(ROOT, "benchmarks", "bench.py")


def _bench_module():
    """benchmarks/bench.py imported, the sys.path entries it adds for its workers undone."""
    path = sys.path[:]
    spec = importlib.util.spec_from_file_location("bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path[:] = path
    return module


@pytest.fixture
def workers(request):
    """Where the bench runs: ``--jobs 1`` (a local pool), or a Dask ``LocalCluster`` of two
    worker processes (``--cluster``)."""
    if request.param == "pool":
        yield ["--jobs", "1"]
        return
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        yield ["--cluster", cluster.scheduler_address]


@pytest.mark.pnr
@pytest.mark.parametrize("workers", [pytest.param("pool", marks=pytest.mark.slow), "dask"],
                         indirect=True)
def test_bench_smoke(tmp_path, workers):
    """One 2x2 array end to end: generated, reference and in logic pass in simulation, are
    placed and routed, and the summary, tables and plots are written."""
    proc = subprocess.run([sys.executable, BENCH, "--arrays", "2x2", "--seeds", "1",
                           "--kfactor", "2", "--no-ice40", "--no-extra", "--logic", "2x2",
                           *workers, "--out", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "results.json").read_text())
    row = data["table"][0]
    assert row["array"] == "2x2" and row["pes"] == 4 and row["K"] == 4
    for kind in ("gen", "ref"):
        assert row[kind]["sim_pass"] and row[kind]["cycles"] == row[kind]["expected"]
        assert row[kind]["dsp_pe"] == 1.0 and row[kind]["fmax"] > 30
    assert data["limit_mhz"] > 50 and data["extra"] == []
    assert data["summary"]["throughput"]["array"] == "2x2"
    text = (tmp_path / "results.md").read_text()
    assert "Summary:" in text and "2x2 generated: critical path" in text
    assert "Other generated designs" not in text
    assert json.loads((tmp_path / "partial.json").read_text()) == data["raw"]
    logic = data["logic"][0]["logic"]
    assert logic["sim_pass"] and logic["cycles"] == logic["expected"] and logic["dsp"] == 0
    assert logic["lut_pe"] > row["gen"]["lut_pe"] and "## Multiplies in logic" in text
    for name in ("results.md", "fmax.png", "lut_per_pe.png"):
        assert (tmp_path / name).stat().st_size > 100


@pytest.mark.parametrize("args, message", [
    (["--jobs", "0"], "jobs must be 1 or more"),
    (["--cluster", "localhost:8786"], "tcp://host:8786"),
])
def test_bench_rejects_bad_workers(args, message):
    proc = subprocess.run([sys.executable, BENCH, *args], capture_output=True, text=True)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


@pytest.mark.parametrize("arrays", ["13x13", "banana", "0x4", "2x3x4"])
def test_bench_rejects_bad_arrays(arrays):
    """Bad --arrays exits 2 with argparse's error, saying what to write instead."""
    proc = subprocess.run([sys.executable, BENCH, "--arrays", arrays],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "arrays must look like 8x8, with R*C <= 156 multipliers" in proc.stderr


def test_bench_rejects_an_array_in_logic_not_measured_on_dsp_blocks():
    proc = subprocess.run([sys.executable, BENCH, "--arrays", "4x4", "--logic", "8x8"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "an array in logic is compared with its DSP build: give it in --arrays too" \
        in proc.stderr, proc.stderr


def test_bench_arguments(capsys):
    """--arrays parses RxC (deduplicated, in order); --no-extra; the 156-multiplier cap."""
    bench = _bench_module()
    args = bench.parse_args([])
    assert args.arrays == [(4, 4), (8, 8), (12, 12), (12, 13)] and not args.no_extra
    args = bench.parse_args(["--arrays", "2x3", "12X13", "2x3", "--no-extra"])
    assert args.arrays == [(2, 3), (12, 13)] and args.no_extra
    with pytest.raises(SystemExit) as e:
        bench.parse_args(["--arrays", "4x4", "13x13"])
    assert e.value.code == 2 and "R*C <= 156" in capsys.readouterr().err


def test_bench_schedule():
    """Runs start longest first: the hand-written largest array's place and route, then the
    generated one's; the single MAC last."""
    bench = _bench_module()
    jobs = bench._jobs([(4, 4), (12, 13)], [1, 2, 3], "out", 8, ice40=True, extra=True)
    names = [(job[0].__name__, job[1], job[2] if job[0] is not bench._ice40 else None)
             for job in jobs]
    assert names[:2] == [("_timing", "ref", (12, 13)), ("_timing", "gen", (12, 13))]
    assert names[-1] == ("_timing", "limit", None)      # one MAC: the shortest run
    assert len(jobs) == 1 + 2 * 2 * 2 + 2 * 2 + 1


def _fake_results(limit, fmax, extra=True):
    """Raw results as `run` returns them; ``fmax``: array label -> generated Fmax."""
    cp = {"ns": 5.0, "from": "a", "to": "b", "logic_ns": 2.0, "routing_ns": 3.0}
    timing = {"limit": {"fmax_mhz": limit, "critical_path": cp}}
    sim = {}
    for a, f in fmax.items():
        r, c = map(int, a.split("x"))
        for kind, mhz, cycles in (("gen", f, 2 * r), ("ref", f / 2, 4 * r)):
            timing[f"{kind}_{a}"] = {"fmax_mhz": mhz, "fmax_seeds": [mhz], "critical_path": cp,
                                     "used": {"LUT": 100 * r * c, "FF": 50 * r * c,
                                              "DSP": r * c}}
            sim[f"{kind}_{a}"] = {"pass": True, "cycles": cycles, "expected": cycles}
    if extra:
        timing["conv2d"] = {"fmax_mhz": 200.0, "fmax_seeds": [200.0], "critical_path": cp,
                            "used": {"LUT": 2400, "FF": 4800, "DSP": 24}, "pes": 24}
        sim["conv2d"] = {"pass": True, "cycles": 145, "expected": 145, "pes": 24,
                         "macs": 2592, "about": "default parameters"}
        sim["dse"] = {"error": "HwgenError: boom"}
    return {"timing": timing, "sim": sim, "ice40": None}


def test_bench_summary():
    """Rows, other designs, summary and markdown from fake results (no place-and-route)."""
    bench = _bench_module()
    fmax = {"4x4": 250.0, "8x8": 240.0, "12x12": 200.0, "12x13": 180.0}
    results = _fake_results(260.0, fmax)
    arrays = [bench.parse_array(a) for a in fmax]
    table, limit = bench.rows(results, arrays, kfactor=2)
    s = bench.summary(table, limit)
    assert s["fmax_ratio"] == pytest.approx({"12x13/4x4": 0.72, "12x12/4x4": 0.8})
    peak = 156 * 260.0 * 2 / 1000
    tp = s["throughput"]        # 12x13: K = 24, cycles = 2 x 12, 156 PEs at 180 MHz
    assert tp["array"] == "12x13" and tp["gops"] == pytest.approx(2 * 156 * 24 * 180 / 24 / 1000)
    assert tp["target_gops"] == pytest.approx(0.8 * peak) and tp["meets"] is False
    assert s["fmax_vs_limit"]["8x8"]["ge_0.9"] is True       # 240 >= 234
    assert s["fmax_vs_limit"]["12x12"]["ge_0.9"] is False    # 200 < 234
    extra = bench.extra_rows(results, limit)
    conv, dse = extra
    assert conv["util"] == pytest.approx(2592 / (24 * 145)) and conv["lut_pe"] == 100
    assert conv["fmax_gen_limit"] == pytest.approx(200 / 260) and not conv["errors"]
    assert dse["fmax"] is None and "sim" in dse["errors"] and "timing" in dse["errors"]
    text = bench.markdown(table, limit, results, [1], extra, s)
    assert "- Fmax 12x13/4x4 (generated): 0.72" in text
    assert "- 8x8 Fmax >= 0.9 x limit: yes" in text and "- 12x12 Fmax >= 0.9 x limit: no" in text
    assert "## Other generated designs" in text and "| conv2d_systolic | 24 | 200.0 |" in text
    assert text.count("critical path 5.00 ns") == 2 * len(fmax) + 1 + 1   # + limit, conv2d


def test_bench_summary_small():
    """Only 4x4 measured: no ratios, 8x8 and 12x12 reported as not measured."""
    bench = _bench_module()
    results = _fake_results(260.0, {"4x4": 250.0}, extra=False)
    table, limit = bench.rows(results, [(4, 4)], kfactor=8)
    s = bench.summary(table, limit)
    assert s["fmax_ratio"] == {} and s["throughput"]["array"] == "4x4"
    assert s["fmax_vs_limit"] == {"8x8": None, "12x12": None}
    text = bench.markdown(table, limit, results, [1], bench.extra_rows(results, limit), s)
    assert "8x8 Fmax >= 0.9 x limit: not measured" in text
    assert "Other generated designs" not in text


def test_logic_rows_compare_each_array_with_its_dsp_build():
    bench = _bench_module()
    results = _fake_results(260.0, {"8x8": 240.0}, extra=False)
    results["timing"]["logic_8x8"] = {"fmax_mhz": 216.0, "fmax_seeds": [216.0],
                                      "used": {"LUT": 160 * 64, "FF": 220 * 64, "DSP": 0}}
    results["sim"]["logic_8x8"] = {"pass": True, "cycles": 16, "expected": 16}
    row, = bench.logic_bench.rows(results, [(8, 8)], kfactor=2)
    assert row["ratio"]["fmax"] == pytest.approx(0.9) and row["logic"]["dsp"] == 0
    assert row["ratio"]["lut_pe"] == pytest.approx(1.6) and row["logic"]["util"] == 1.0
    text = "\n".join(bench.logic_bench.table([row]))
    assert "| 8x8 | in logic | 216.0 | 160.0 | 220.0 | 0 | 16 (16) | 1.000 |" in text
    assert "| 8x8 | 0.900 | 1.60 | 0.900 |" in text
    none, = bench.logic_bench.rows({"timing": {}, "sim": {}}, [(2, 2)], kfactor=2)
    assert none["ratio"] == {"fmax": None, "lut_pe": None, "gops": None}


def test_dse_speed_benchmark_smoke(tmp_path):
    """The exploration speed benchmark `make bench` runs first."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "dse_speed.py"),
                           "--arrays", "2x2", "--repeat", "1", "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "speed ratio" in (tmp_path / "dse_speed.md").read_text()
