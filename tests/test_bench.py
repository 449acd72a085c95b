"""A fast smoke run of `make bench`: one tiny array, one seed, all three designs measured."""
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.pnr
def test_bench_smoke(tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "bench.py"),
                           "--sizes", "2", "--seeds", "1", "--kfactor", "2", "--no-ice40",
                           "--jobs", "1", "--out", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "results.json").read_text())
    row = data["table"][0]
    for kind in ("gen", "ref"):
        assert row[kind]["sim_pass"] and row[kind]["cycles"] == row[kind]["expected"]
        assert row[kind]["dsp_pe"] == 1.0 and row[kind]["fmax"] > 30
    assert data["limit_mhz"] > 50
    for name in ("results.md", "fmax.png", "lut_per_pe.png"):
        assert (tmp_path / name).stat().st_size > 100


def test_bench_rejects_bad_sizes():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "bench.py"),
                           "--sizes", "13"], capture_output=True, text=True)
    assert proc.returncode == 2 and "sizes must be" in proc.stderr


def test_dse_speed_benchmark_smoke(tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "dse_speed.py"),
                           "--arrays", "2x2", "--repeat", "1", "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "speed ratio" in (tmp_path / "dse_speed.md").read_text()
