"""make bench: generated gemm_os vs the hand-written reference vs the single-MAC device limit.

For each R x C array on ECP5-85k (M=R, N=C, K = kfactor x R): Fmax (median of nextpnr seeds),
LUT / FF / DSP per PE, cycles per problem and MAC utilization in cocotb simulation (Verilator),
throughput in GOP/s, and the ratios generated/reference and generated/limit. Then two other
generated designs against the limit only (conv2d_systolic and the best dataflow-exploration
point of an 8x8 GEMM), a summary (Fmax scaling, throughput against the device peak), and the
largest gemm_os array that fits the iCE40 UP5K, with its iCEBreaker bitstream; and 8x8 with
every multiply in logic against its DSP build (``logic_bench``). Writes results.md,
results.json and PNG plots to build/bench/.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT]

import logic_bench  # noqa: E402  (benchmarks/logic_bench.py, found through HERE)

DEVICE = "ecp5-85k"
DSP_BLOCKS = 156            # MULT18X18D on the LFE5U-85F
DEFAULT_ARRAYS = [(4, 4), (8, 8), (12, 12), (12, 13)]
ARRAY_HINT = f"arrays must look like 8x8, with R*C <= {DSP_BLOCKS} multipliers"
# The other generated designs (no hand-written peer): kind -> name in the tables.
EXTRA = {"conv2d": "conv2d_systolic", "dse": "dse best point (8x8 GEMM)"}


def label(shape):
    """(R, C) -> "RxC", the name of an array in keys, rows and plots."""
    return f"{shape[0]}x{shape[1]}"


def parse_array(text):
    """argparse type for one --arrays item: "8x12" -> (8, 12). Bad input exits 2 (argparse)
    saying what to write instead."""
    try:
        r, c = (int(n) for n in str(text).lower().split("x"))
    except ValueError:
        r = c = 0
    if r < 1 or c < 1 or r * c > DSP_BLOCKS:
        raise argparse.ArgumentTypeError(f"{ARRAY_HINT}; got {text!r}")
    return r, c


def _key(kind, shape):
    """Results key of one design: "gen_8x8", "ref_8x8", "logic_8x8", or the kind itself."""
    return f"{kind}_{label(shape)}" if kind in ("gen", "ref", "logic") else kind


def _build(kind, shape, K, work):
    """Write one design's Verilog and design.json into ``work``: (design.json dict, graph,
    facts); graph is None for the designs hwgen does not generate, facts (PEs, useful MACs,
    what it is) are filled for the other generated designs only."""
    import designs
    if kind in ("gen", "logic"):
        return (*designs.generated(*shape, K, work, 0 if kind == "logic" else None), {})
    if kind == "ref":
        return designs.reference(*shape, K, work), None, {}
    if kind == "limit":
        return designs.single_mac(work), None, {}
    if kind == "conv2d":
        info, graph = designs.conv2d(work)
        about = "default parameters " + " ".join(f"{k}={v}" for k, v in graph.params.items())
    else:
        info, graph, point = designs.dse_point(work)
        about = (f"dse:{point.id} = {point.design}, front[0] (the fastest point) of `make dse "
                 f"EXPR=\"{designs.DSE_EXPR}\" SIZES=\"{designs.DSE_SIZES}\" "
                 f"ARRAY={label(designs.DSE_ARRAY)}`")
    facts = {"pes": len(graph.instances), "macs": designs.useful_macs(kind, graph),
             "about": about}
    return info, graph, facts


def _timing(kind, shape, K, seeds, out):
    """Synthesize once, place and route per seed. Runs in a worker process."""
    from hwgen.flow.pnr import timing
    t0, key = time.time(), _key(kind, shape)
    work = os.path.join(out, key)
    info, _, facts = _build(kind, shape, K, work)
    return "timing", key, {**timing(work, info["verilog"], info["top"], DEVICE, seeds=seeds),
                           **facts, "seconds": round(time.time() - t0)}


def _simulate(kind, shape, K, out):
    """Cocotb on Verilator with problems back to back, golden outputs from hwgen's graph:
    steady-state cycles per problem. Runs in a worker process."""
    import designs
    from hwgen.flow.simulate import run_manifest
    t0, key = time.time(), _key(kind, shape)
    work = os.path.join(out, f"{key}_sim")
    if kind == "ref":       # the same problems as gemm_os; its graph only gives the vectors
        graph, facts = designs.load_design(designs.GEMM, dict(zip("MNK", (*shape, K)))), {}
        info = designs.reference(*shape, K, work)
    else:
        info, graph, facts = _build(kind, shape, K, work)
    result = run_manifest(work, graph, sim="verilator", problems=3, tests=["no_stall"])
    r = result["tests"].get("no_stall", {"pass": False, "cycles": [], "intervals": []})
    info = result["design"]
    # Steady state: cycles between consecutive problems sent back to back. A design without
    # interval_cycles (the reference) runs one problem at a time: its per-problem cycles.
    if info.interval_cycles is not None:
        steady, expected = (r["intervals"] or [None])[-1], info.interval_cycles
    else:
        steady, expected = (r["cycles"] or [None])[-1], info.expected_cycles
    return "sim", key, {"pass": r["pass"] and not result["failed"], "cycles": steady,
                        "expected": expected, "first": (r["cycles"] or [None])[0],
                        "first_expected": info.expected_cycles, **facts,
                        "seconds": round(time.time() - t0)}


def _ice40(out, K):
    """The largest gemm_os (by PEs) that the UP5K fits behind the UART bridge, at the
    iCEBreaker's bridge clock (24 MHz from the PLL, or 12 MHz when that misses)."""
    from hwgen import HwgenError
    from hwgen.flow.board import bitstream
    import designs
    from hwgen.pipeline import load_design
    for M, N in ((2, 4), (2, 3), (2, 2), (1, 2), (1, 1)):
        graph = load_design(designs.GEMM, {"M": M, "N": N, "K": K})
        try:
            path, t = bitstream(graph, os.path.join(out, f"ice40_{M}x{N}"), "icebreaker")
            return "ice40", None, {"M": M, "N": N, "K": K,
                                   "bitstream": os.path.relpath(path, ROOT), **t}
        except HwgenError as e:
            last = str(e).splitlines()[0]
    return "ice40", None, {"error": last}


def _jobs(arrays, seeds, out, kfactor, ice40, extra, logic=()):
    """Every run as (function, *arguments), the longest first (see `_cost`); ``logic``: the
    arrays also built with their multiplies in logic."""
    jobs = [(_timing, "limit", None, 0, seeds, out)]
    for shape in arrays:
        K = kfactor * shape[0]
        for kind in ("gen", "ref") + ("logic",) * (shape in logic):
            jobs += [(_simulate, kind, shape, K, out), (_timing, kind, shape, K, seeds, out)]
    for kind in (EXTRA if extra else ()):
        jobs += [(_simulate, kind, None, 0, out), (_timing, kind, None, 0, seeds, out)]
    if ice40:
        jobs.append((_ice40, out, 16))
    return sorted(jobs, key=_cost, reverse=True)


def _cost(job):
    """A run's rough length, to start the longest first: a long run started last keeps one
    core busy alone at the end. Place and route grows with the PEs and the seeds, and the
    hand-written array routes about three times slower per PE than gemm_os, one in logic
    about twice; a simulation is mostly Verilator's compile, about a third of one gemm_os
    place and route."""
    if job[0] is _ice40:
        return 20
    kind, shape = job[1], job[2]
    pes = shape[0] * shape[1] if shape else {"limit": 1, "conv2d": 24, "dse": 64}[kind]
    if job[0] is _simulate:
        return 1 + pes / 96
    return len(job[4]) * pes * {"ref": 3, "logic": 2}.get(kind, 1) / 16


def run_job(job):
    """One run, ``(function, *arguments)``, in a worker: a pool process or a Dask worker,
    which finds this folder's modules (``designs``, ``reference``) on its path."""
    for path in (HERE, ROOT):
        if path not in sys.path:
            sys.path.insert(0, path)
    return job[0](*job[1:])


def _collect(results, job, result):
    """File one finished run in ``results``. A failing other generated design is recorded as
    an error (its row shows it) rather than losing the whole benchmark."""
    if isinstance(result, dict) and "error" in result:
        if job[1] not in EXTRA:
            raise SystemExit(f"bench: {job[0].__name__[1:]} of {job[1]} "
                             f"{label(job[2]) if job[2] else ''} failed: {result['error']}")
        section, key, data = "sim" if job[0] is _simulate else "timing", job[1], result
    else:
        section, key, data = result
    if section == "ice40":
        results["ice40"] = data
    else:
        results[section][key] = data


def run(arrays, seeds, out, jobs, ice40, kfactor, extra=True, cluster=None, logic=()):
    """Every simulation and place-and-route through ``hwgen.flow.executor.map_jobs``: a pool
    of ``jobs`` processes, or the Dask scheduler at ``cluster``. Returns the raw results
    {"sim": {key: ...}, "timing": {key: ...}, "ice40": ...}, also written to partial.json as
    each run finishes, so that a stopped benchmark keeps what it measured."""
    from hwgen.flow.executor import map_jobs
    os.makedirs(out, exist_ok=True)
    results = {"sim": {}, "timing": {}, "ice40": None}
    todo = _jobs(arrays, seeds, out, kfactor, ice40, extra, logic)

    def keep(n, result):
        _collect(results, todo[n], result)
        with open(os.path.join(out, "partial.json"), "w") as f:   # kept if stopped
            json.dump(results, f, indent=1)

    map_jobs(run_job, todo, cluster=cluster, workers=jobs, retries=1, desc="bench",
             on_result=keep)
    return results


def rows(results, arrays, kfactor):
    """One row per R x C array: generated and reference measurements and their ratios."""
    limit = results["timing"]["limit"]["fmax_mhz"]
    table = []
    for shape in arrays:
        K, pes = kfactor * shape[0], shape[0] * shape[1]
        row = {"array": label(shape), "R": shape[0], "C": shape[1], "pes": pes, "K": K}
        for kind in ("gen", "ref"):
            t = results["timing"][_key(kind, shape)]
            s = results["sim"][_key(kind, shape)]
            cycles = s["cycles"]
            util = K / cycles if cycles else None
            row[kind] = {"fmax": t["fmax_mhz"], "seeds": t["fmax_seeds"],
                         "ooc": t.get("out_of_context", False),
                         "lut_pe": t["used"]["LUT"] / pes, "ff_pe": t["used"]["FF"] / pes,
                         "dsp_pe": t["used"]["DSP"] / pes, "cycles": cycles,
                         "expected": s["expected"], "sim_pass": s["pass"], "util": util,
                         "critical_path": t.get("critical_path"),
                         "gops": 2 * pes * K * t["fmax_mhz"] / cycles / 1000 if cycles else None}
        g, r = row["gen"], row["ref"]
        row["ratio"] = {"fmax_gen_ref": g["fmax"] / r["fmax"], "lut_gen_ref": g["lut_pe"] / r["lut_pe"],
                        "fmax_gen_limit": g["fmax"] / limit,
                        "util_gen_ref": (g["util"] / r["util"]) if g["util"] and r["util"] else None}
        table.append(row)
    return table, limit


def extra_rows(results, limit):
    """One row per other generated design that was run, measured against the limit only;
    a value that a failed run could not give is None."""
    table = []
    for kind, name in EXTRA.items():
        t, s = results["timing"].get(kind), results["sim"].get(kind)
        if t is None and s is None:
            continue
        t, s = t or {"error": "not run"}, s or {"error": "not run"}
        pes, macs = s.get("pes") or t.get("pes"), s.get("macs") or t.get("macs")
        fmax, cycles, used = t.get("fmax_mhz"), s.get("cycles"), t.get("used", {})
        per_pe = lambda r: used[r] / pes if pes and r in used else None  # noqa: E731
        table.append({
            "design": name, "kind": kind, "about": s.get("about") or t.get("about"),
            "pes": pes, "macs": macs, "fmax": fmax, "seeds": t.get("fmax_seeds"),
            "fmax_gen_limit": fmax / limit if fmax else None, "lut_pe": per_pe("LUT"),
            "ff_pe": per_pe("FF"), "dsp": used.get("DSP"), "cycles": cycles,
            "expected": s.get("expected"), "sim_pass": s.get("pass", False),
            "util": macs / (pes * cycles) if macs and pes and cycles else None,
            "gops": 2 * macs * fmax / cycles / 1000 if macs and fmax and cycles else None,
            "critical_path": t.get("critical_path"),
            "errors": {k: d["error"] for k, d in (("timing", t), ("sim", s)) if "error" in d}})
    return table


def summary(table, limit):
    """The headline numbers: how generated Fmax holds up as the array grows, the largest
    array's steady-state throughput against 0.8 x the device peak, and whether 8x8 and 12x12
    reach 0.9 x the single-MAC limit. Missing arrays are left out (or None)."""
    by = {row["array"]: row for row in table}
    fmax = lambda a: by[a]["gen"]["fmax"] if a in by else None  # noqa: E731
    peak = DSP_BLOCKS * limit * 2 / 1000
    out = {"limit_mhz": limit, "peak_gops": peak, "fmax_ratio": {}, "throughput": None,
           "fmax_vs_limit": {}}
    largest = max(table, key=lambda row: row["pes"])["array"] if table else None
    for a in (largest, "12x12"):
        if a and a != "4x4" and fmax(a) and fmax("4x4"):
            out["fmax_ratio"][f"{a}/4x4"] = fmax(a) / fmax("4x4")
    if largest:
        gops = by[largest]["gen"]["gops"]
        out["throughput"] = {"array": largest, "gops": gops, "target_gops": 0.8 * peak,
                             "fraction_of_peak": gops / peak if gops else None,
                             "meets": gops >= 0.8 * peak if gops else None}
    for a in ("8x8", "12x12"):
        f = fmax(a)
        out["fmax_vs_limit"][a] = None if f is None else {
            "fmax": f, "ratio": f / limit, "ge_0.9": f >= 0.9 * limit}
    return out


def _f(v, p=2):
    """A number for the tables, '-' when unknown."""
    return "-" if v is None else f"{v:.{p}f}"


def _summary_lines(s):
    """The summary as markdown bullets."""
    yes = lambda ok: "-" if ok is None else "yes" if ok else "no"  # noqa: E731
    lines = [f"- Fmax {a} (generated): {_f(r)}" for a, r in s["fmax_ratio"].items()]
    tp = s["throughput"]
    if tp:
        lines.append(f"- {tp['array']} (largest) steady state: {_f(tp['gops'])} GOP/s = "
                     f"{_f(tp['fraction_of_peak'], 3)} x peak, target 0.8 x peak = "
                     f"{_f(tp['target_gops'])} GOP/s: {yes(tp['meets'])}")
    for a, v in s["fmax_vs_limit"].items():
        lines.append(f"- {a} Fmax >= 0.9 x limit: not measured" if v is None else
                     f"- {a} Fmax >= 0.9 x limit: {yes(v['ge_0.9'])} ({v['fmax']:.1f} MHz = "
                     f"{v['ratio']:.3f} x {s['limit_mhz']:.1f} MHz)")
    return lines


def _array_tables(table):
    """The per-array measurement table and the ratio table. (OOC): placed and routed out of
    context, the design having more host-port bits than the package has pins."""
    lines = ["| array | PEs | K | design | Fmax MHz | LUT/PE | FF/PE | DSP/PE | cycles/problem "
             "(expected) | MAC util | GOP/s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in table:
        for kind, name in (("gen", "generated"), ("ref", "reference")):
            d = row[kind]
            ok = "" if d["sim_pass"] and d["cycles"] == d["expected"] else " MISMATCH"
            lines.append(f"| {row['array']} | {row['pes']} | {row['K']} | {name} | "
                         f"{_f(d['fmax'], 1)}{' (OOC)' if d.get('ooc') else ''} | "
                         f"{_f(d['lut_pe'], 1)} | {_f(d['ff_pe'], 1)} | "
                         f"{_f(d['dsp_pe'])} | {d['cycles']} ({d['expected']}){ok} | "
                         f"{_f(d['util'], 3)} | {_f(d['gops'])} |")
    lines += ["", "| array | Fmax gen/ref | Fmax gen/limit | LUT/PE gen/ref | util gen/ref |",
              "|---|---|---|---|---|"]
    for row in table:
        r = row["ratio"]
        lines.append(f"| {row['array']} | {_f(r['fmax_gen_ref'])} | {_f(r['fmax_gen_limit'])} | "
                     f"{_f(r['lut_gen_ref'])} | {_f(r['util_gen_ref'])} |")
    return lines


def _extra_table(extra):
    """The "Other generated designs" table: no reference, so against the limit only."""
    if not extra:
        return []
    lines = ["", "## Other generated designs", "",
             "No hand-written reference: each against the single-MAC limit. MAC util = useful "
             "MACs / (PEs x steady-state cycles), useful MACs counted from the graph's sizes.",
             "", "| design | PEs | Fmax MHz | Fmax gen/limit | LUT/PE | FF/PE | DSP | "
             "cycles/problem (expected) | sim | MAC util | GOP/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in extra:
        ok = "pass" if d["sim_pass"] and d["cycles"] == d["expected"] else "FAIL"
        lines.append(f"| {d['design']} | {d['pes'] or '-'} | {_f(d['fmax'], 1)} | "
                     f"{_f(d['fmax_gen_limit'])} | {_f(d['lut_pe'], 1)} | {_f(d['ff_pe'], 1)} | "
                     f"{'-' if d['dsp'] is None else d['dsp']} | {d['cycles'] or '-'} "
                     f"({d['expected'] or '-'}) | {ok} | {_f(d['util'], 3)} | "
                     f"{_f(d['gops'])} |")
    lines.append("")
    for d in extra:
        errors = "; ".join(f"{k} failed: {e}" for k, e in d["errors"].items())
        lines.append(f"- {d['design']}: {d['about'] or '-'}" + (f" ({errors})" if errors else ""))
    return lines


def _paths(table, extra, results):
    """The critical path of every measured design, named (nextpnr's first seed)."""
    from hwgen.flow.pnr import describe_path
    lines = ["", "Critical paths (nextpnr, first seed):", ""]
    for row in table:
        for kind, name in (("gen", "generated"), ("ref", "reference")):
            lines.append(f"- {row['array']} {name}: {describe_path(row[kind]['critical_path'])}")
    for d in extra:
        if "timing" not in d["errors"]:
            lines.append(f"- {d['design']}: {describe_path(d['critical_path'])}")
    lines.append(f"- single MAC (limit): "
                 f"{describe_path(results['timing']['limit'].get('critical_path'))}")
    return lines


def _ice40_lines(ice):
    """The iCE40 UP5K result, if that run was made."""
    if not ice:
        return []
    if "error" in ice:
        return ["", f"iCE40 UP5K: no gemm_os array fits ({ice['error']})."]
    u = ice["used"]
    return ["", f"iCE40 UP5K: largest gemm_os that fits is {ice['M']}x{ice['N']} (K={ice['K']})"
                f" behind the UART bridge: {ice['fmax_mhz']:.1f} MHz, {u['LUT']} LC, "
                f"{u['DSP']} DSP, {u['BRAM']} BRAM; bitstream `{ice['bitstream']}`."]


def markdown(table, limit, results, seeds, extra=(), summ=None):
    """results.md: intro, summary, the array tables, other designs, critical paths, iCE40."""
    peak = DSP_BLOCKS * limit * 2 / 1000
    lines = [f"# gemm_os on {DEVICE}: generated vs hand-written reference vs device limit", "",
             f"Device limit: one pipelined int8 MAC reaches {limit:.1f} MHz (median of seeds "
             f"{', '.join(map(str, seeds))}); peak = {DSP_BLOCKS} MULT18X18D x {limit:.1f} MHz x 2 "
             f"= {peak:.1f} GOP/s.", "",
             "An R x C array is gemm_os with M=R, N=C, PEs = R*C. Cycles per problem are measured "
             "in steady state (problems back to back, host never stalls) in cocotb on Verilator, "
             "next to the model's prediction; MAC utilization = useful MACs / (PEs x cycles) = "
             "K / cycles.", ""]
    summ = summ or summary(table, limit)
    lines += ["Summary:", "", *_summary_lines(summ), ""]
    lines += _array_tables(table) + _extra_table(list(extra))
    lines += _paths(table, list(extra), results) + _ice40_lines(results.get("ice40"))
    return "\n".join(lines) + "\n"


def plots(table, limit, out, extra=()):
    """fmax.png and lut_per_pe.png against PEs (R*C); the other designs as single points."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = [r["pes"] for r in table]
    for key, ylabel, fname, with_limit in (("fmax", "Fmax (MHz)", "fmax.png", True),
                                           ("lut_pe", "LUT per PE", "lut_per_pe.png", False)):
        fig, ax = plt.subplots(figsize=(5, 3.5), dpi=120)
        ax.plot(x, [r["gen"][key] for r in table], "o-", label="generated (hwgen)")
        ax.plot(x, [r["ref"][key] for r in table], "s--", label="hand-written reference")
        for d, marker in zip(extra, "^vD"):
            if d["pes"] and d[key] is not None:
                ax.plot([d["pes"]], [d[key]], marker, ls="none", label=d["design"])
        if with_limit:
            ax.axhline(limit, color="gray", ls=":", label=f"single-MAC limit {limit:.0f} MHz")
        ax.set_xlabel("PEs (R x C array)")
        ax.set_ylabel(ylabel)
        ax.set_xticks(x, [f"{r['array']} ({r['pes']})" for r in table], fontsize=7,
                      rotation=35, ha="right")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(f"gemm_os on {DEVICE}")
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname))
        plt.close(fig)


def parse_args(argv=None):
    """The command line; bad --arrays exits 2 with argparse's error."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--arrays", type=parse_array, nargs="+", default=DEFAULT_ARRAYS,
                   metavar="RxC", help="R x C gemm_os arrays, R*C <= 156 "
                   "(default 4x4 8x8 12x12 12x13)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="nextpnr seeds")
    p.add_argument("--kfactor", type=int, default=8, help="K = kfactor x R (default 8)")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    p.add_argument("--jobs", type=int, default=2, help="local worker processes (default 2)")
    p.add_argument("--cluster", metavar="tcp://host:8786",
                   help="run on this Dask scheduler instead (its workers need hwgen installed)")
    p.add_argument("--no-ice40", action="store_true", help="skip the iCE40 UP5K run")
    p.add_argument("--no-extra", action="store_true",
                   help="skip the other generated designs (conv2d_systolic, dse point)")
    p.add_argument("--logic", type=parse_array, nargs="*", default=None, metavar="RxC",
                   help="arrays of --arrays also built with every multiply in logic (--dsps 0), "
                   "against their DSP build (default 8x8 when it is measured; none: --logic)")
    args = p.parse_args(argv)
    args.arrays = list(dict.fromkeys(args.arrays))      # each array once, in the given order
    if args.logic is None:
        args.logic = [s for s in args.arrays if s == (8, 8)]
    if any(s not in args.arrays for s in args.logic):
        p.error("an array in logic is compared with its DSP build: give it in --arrays too")
    if args.kfactor < 1:
        p.error("kfactor must be a positive integer, e.g. --kfactor 8")
    if args.jobs < 1:
        p.error("jobs must be 1 or more worker processes, e.g. --jobs 2")
    if args.cluster and "://" not in args.cluster:
        p.error(f"a cluster is a Dask scheduler address such as tcp://host:8786, not "
                f"{args.cluster!r}")
    return args


def main(argv=None):
    """Run everything, write results.md, results.json and the plots, print the markdown."""
    args = parse_args(argv)
    t0 = time.time()
    results = run(args.arrays, args.seeds, args.out, args.jobs, not args.no_ice40,
                  args.kfactor, extra=not args.no_extra, cluster=args.cluster, logic=args.logic)
    table, limit = rows(results, args.arrays, args.kfactor)
    extra, summ = extra_rows(results, limit), summary(table, limit)
    in_logic = logic_bench.rows(results, args.logic, args.kfactor)
    text = markdown(table, limit, results, args.seeds, extra, summ)
    text += "\n".join(logic_bench.table(in_logic)) + "\n" * bool(in_logic)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"table": table, "extra": extra, "summary": summ, "limit_mhz": limit,
                   "logic": in_logic, "raw": results}, f, indent=1)
    plots(table, limit, args.out, extra)
    print(text)
    print(f"wrote {args.out}/results.md, results.json, fmax.png, lut_per_pe.png "
          f"in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
