"""The cost model's FPGA resources against nextpnr on ECP5-85k, without running nextpnr.

``nextpnr_ecp5.json`` holds what Yosys + nextpnr used (seed 1) for generated design points of
GEMM, GEMV and conv2d in different dataflows and sizes, as measured by
``benchmarks/calibrate.py --export tests/dataflow/nextpnr_ecp5.json``. The estimates of
``hwgen.dataflow.cost`` (the model of ``hwgen.dataflow.resources``) must stay within 15% of
those on LUT, FF and DSP for every point, and count block RAMs exactly: change the model (or
re-measure) together with this file.
"""
import json
import os

import pytest

from hwgen.dataflow.cost import cost
from hwgen.dataflow.design import Design
from hwgen.dataflow.expr import parse_expr
from hwgen.dataflow.resources import COUNTS, RESOURCE_MODEL

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 0.15
KINDS = ("LUT", "FF", "DSP")


def _points():
    with open(os.path.join(HERE, "nextpnr_ecp5.json")) as f:
        return json.load(f)["points"]


def _design(p):
    e = parse_expr(p["expr"])
    return Design(e, e.check_sizes(p["sizes"]), tuple(p["array"]), tuple(p["space"]), p["inner"],
                  tuple(p["skew"]))


def _error(est, measured):
    return (est - measured) / measured if measured else (0.0 if est == 0 else float("inf"))


def _table():
    rows = []
    for p in _points():
        d = _design(p)
        res = cost(d).resources
        errs = {k: _error(res[k], p["used"][k]) for k in KINDS}
        ok = all(abs(e) <= TOLERANCE for e in errs.values())
        rows.append((p, res, errs, ok))
    return rows


def _report(rows):
    lines = [f"{'design':<44} {'sizes':<24} " + " ".join(f"{k + ' est/nextpnr':>21}"
                                                          for k in KINDS + ("BRAM",))]
    for p, res, errs, ok in rows:
        cells = []
        for k in KINDS + ("BRAM",):
            e = _error(res[k], p["used"][k])
            cells.append(f"{res[k]:>6}/{p['used'][k]:<6} {100 * e:+6.1f}%")
        lines.append(f"{p['design']:<44} {p['sizes']:<24} " + " ".join(cells) +
                     ("" if ok else "  <- outside 15%"))
    return "\n".join(lines)


def test_points_are_diverse_and_realisable():
    points = _points()
    assert len(points) >= 10
    exprs = {p["expr"] for p in points}
    shapes = {tuple(p["array"]) for p in points}
    maps = {(p["expr"], p["sizes"], tuple(p["array"]), tuple(p["space"]), p["inner"],
             tuple(p["skew"]))
            for p in points}
    assert len(exprs) >= 3 and len(shapes) >= 4 and len(maps) == len(points)
    for p in points:
        d = _design(p)
        assert d.unrealisable is None and d.exact
        assert str(d) == p["design"]


def test_model_prices_only_counted_features():
    """Every coefficient prices a count ``structure`` makes (``estimate`` indexes strictly:
    a misspelt feature is a KeyError, not a silent count of 1)."""
    assert all(set(model) <= set(COUNTS) for model in RESOURCE_MODEL.values())
    for p in _points():
        counts = cost(_design(p)).counts
        assert set(counts) == set(COUNTS) and counts["base"] == 1


def test_estimates_within_15_percent_of_nextpnr(capsys):
    rows = _table()
    good = [r for r in rows if r[3]]
    with capsys.disabled():
        print(f"\ncost model vs nextpnr (ECP5-85k): {len(good)}/{len(rows)} points within "
              f"{TOLERANCE:.0%} on {', '.join(KINDS)}; worst " +
              ", ".join(f"{k} {100 * max(abs(r[2][k]) for r in rows):.1f}%" for k in KINDS))
    assert len(good) == len(rows), "points outside 15%:\n" + _report(rows)


@pytest.mark.parametrize("kind", KINDS)
def test_each_resource_within_15_percent(kind):
    rows = _table()
    outside = [r for r in rows if abs(r[2][kind]) > TOLERANCE]
    assert not outside, f"{kind}: {len(outside)} points outside 15%:\n" + _report(rows)


def test_block_rams_follow_yosys_memory_mapping():
    rows = _table()
    assert all(r[1]["BRAM"] == r[0]["used"]["BRAM"] for r in rows), _report(rows)
