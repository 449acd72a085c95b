"""make bench: generated gemm_os vs the hand-written reference vs the single-MAC device limit.

For each array size on ECP5-85k: Fmax (median of nextpnr seeds), LUT / FF / DSP per PE, cycles
per problem and MAC utilization in cocotb simulation (Verilator), throughput in GOP/s, and the
ratios generated/reference and generated/limit. Also the largest gemm_os array that fits the
iCE40 UP5K, with its iCEBreaker bitstream. Writes results.md, results.json and PNG plots to
build/bench/.
"""
import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT]

DEVICE = "ecp5-85k"
DSP_BLOCKS = 156            # MULT18X18D on the LFE5U-85F


def _timing(kind, size, K, seeds, out):
    """Synthesize once, place and route per seed. Runs in a worker process."""
    import designs
    from hwgen.flow.pnr import timing
    work = os.path.join(out, f"{kind}_{size}x{size}" if kind != "limit" else "limit")
    if kind == "gen":
        info, _ = designs.generated(size, size, K, work)
    elif kind == "ref":
        info = designs.reference(size, size, K, work)
    else:
        info = designs.single_mac(work)
    t = timing(work, info["verilog"], info["top"], DEVICE, seeds=seeds)
    return kind, size, t


def _simulate(kind, size, K, out):
    import designs
    from hwgen.flow.simulate import run_manifest
    work = os.path.join(out, f"{kind}_{size}x{size}_sim")
    _, graph = designs.generated(size, size, K, os.path.join(out, f"gen_{size}x{size}_sim"))
    if kind == "ref":
        designs.reference(size, size, K, work)
    result = run_manifest(work if kind == "ref" else os.path.join(out, f"gen_{size}x{size}_sim"),
                          graph, sim="verilator", problems=3, tests=["no_stall"])
    r = result["tests"].get("no_stall", {"pass": False, "cycles": [], "intervals": []})
    info = result["design"]
    # Steady state: cycles between consecutive problems sent back to back. A design without
    # interval_cycles (the reference) runs one problem at a time: its per-problem cycles.
    if "interval_cycles" in info:
        steady, expected = (r["intervals"] or [None])[-1], info["interval_cycles"]
    else:
        steady, expected = (r["cycles"] or [None])[-1], info["expected_cycles"]
    return kind, size, {"pass": r["pass"] and not result["failed"], "cycles": steady,
                        "expected": expected, "first": (r["cycles"] or [None])[0],
                        "first_expected": info["expected_cycles"]}


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
            return {"M": M, "N": N, "K": K, "bitstream": os.path.relpath(path, ROOT), **t}
        except HwgenError as e:
            last = str(e).splitlines()[0]
    return {"error": last}


def run(sizes, seeds, out, jobs, ice40, kfactor):
    from tqdm import tqdm
    os.makedirs(out, exist_ok=True)
    tasks = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for size in sizes:
            K = kfactor * size
            for kind in ("gen", "ref"):
                tasks.append(pool.submit(_simulate, kind, size, K, out))
                tasks.append(pool.submit(_timing, kind, size, K, seeds, out))
        tasks.append(pool.submit(_timing, "limit", 0, 0, seeds, out))
        if ice40:
            tasks.append(pool.submit(_ice40, out, 16))
        results = {"sim": {}, "timing": {}, "ice40": None}
        for fut in tqdm(as_completed(tasks), total=len(tasks), desc="bench", unit="run"):
            r = fut.result()
            if isinstance(r, dict):
                results["ice40"] = r
            elif "used" in r[2]:
                results["timing"][f"{r[0]}_{r[1]}"] = r[2]
            else:
                results["sim"][f"{r[0]}_{r[1]}"] = r[2]
    return results


def rows(results, sizes, kfactor):
    limit = results["timing"]["limit_0"]["fmax_mhz"]
    table = []
    for size in sizes:
        K, pes = kfactor * size, size * size
        row = {"array": f"{size}x{size}", "K": K}
        for kind in ("gen", "ref"):
            t = results["timing"][f"{kind}_{size}"]
            s = results["sim"][f"{kind}_{size}"]
            cycles = s["cycles"]
            util = K / cycles if cycles else None
            row[kind] = {"fmax": t["fmax_mhz"], "seeds": t["fmax_seeds"],
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


def markdown(table, limit, results, seeds):
    from hwgen.flow.pnr import describe_path
    peak = DSP_BLOCKS * limit * 2 / 1000
    lines = [f"# gemm_os on {DEVICE}: generated vs hand-written reference vs device limit", "",
             f"Device limit: one pipelined int8 MAC reaches {limit:.1f} MHz (median of seeds "
             f"{', '.join(map(str, seeds))}); peak = {DSP_BLOCKS} MULT18X18D x {limit:.1f} MHz x 2 "
             f"= {peak:.1f} GOP/s.", "",
             "Cycles per problem are measured in steady state (problems back to back, host never "
             "stalls) in cocotb on Verilator, next to the model's prediction; MAC utilization = "
             "useful MACs / (PEs x cycles) = K / cycles.", "",
             "| array | K | design | Fmax MHz | LUT/PE | FF/PE | DSP/PE | cycles/problem (expected) "
             "| MAC util | GOP/s |", "|---|---|---|---|---|---|---|---|---|---|"]
    f = lambda v, p=2: "-" if v is None else f"{v:.{p}f}"  # noqa: E731
    for row in table:
        for kind, label in (("gen", "generated"), ("ref", "reference")):
            d = row[kind]
            ok = "" if d["sim_pass"] and d["cycles"] == d["expected"] else " MISMATCH"
            lines.append(f"| {row['array']} | {row['K']} | {label} | {f(d['fmax'], 1)} | "
                         f"{f(d['lut_pe'], 1)} | {f(d['ff_pe'], 1)} | {f(d['dsp_pe'])} | "
                         f"{d['cycles']} ({d['expected']}){ok} | {f(d['util'], 3)} | "
                         f"{f(d['gops'])} |")
    lines += ["", "| array | Fmax gen/ref | Fmax gen/limit | LUT/PE gen/ref | util gen/ref |",
              "|---|---|---|---|---|"]
    for row in table:
        r = row["ratio"]
        lines.append(f"| {row['array']} | {f(r['fmax_gen_ref'])} | {f(r['fmax_gen_limit'])} | "
                     f"{f(r['lut_gen_ref'])} | {f(r['util_gen_ref'])} |")
    lines += ["", "Critical paths (nextpnr, first seed):", ""]
    for row in table:
        for kind, label in (("gen", "generated"), ("ref", "reference")):
            lines.append(f"- {row['array']} {label}: {describe_path(row[kind]['critical_path'])}")
    lines.append(f"- single MAC (limit): "
                 f"{describe_path(results['timing']['limit_0'].get('critical_path'))}")
    ice = results.get("ice40")
    if ice:
        lines.append("")
        if "error" in ice:
            lines.append(f"iCE40 UP5K: no gemm_os array fits ({ice['error']}).")
        else:
            u = ice["used"]
            lines.append(f"iCE40 UP5K: largest gemm_os that fits is {ice['M']}x{ice['N']} (K="
                         f"{ice['K']}) behind the UART bridge: {ice['fmax_mhz']:.1f} MHz, "
                         f"{u['LUT']} LC, {u['DSP']} DSP, {u['BRAM']} BRAM; bitstream "
                         f"`{ice['bitstream']}`.")
    return "\n".join(lines) + "\n"


def plots(table, limit, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = [int(r["array"].split("x")[0]) for r in table]
    for key, ylabel, fname, with_limit in (("fmax", "Fmax (MHz)", "fmax.png", True),
                                           ("lut_pe", "LUT per PE", "lut_per_pe.png", False)):
        fig, ax = plt.subplots(figsize=(5, 3.5), dpi=120)
        ax.plot(x, [r["gen"][key] for r in table], "o-", label="generated (hwgen)")
        ax.plot(x, [r["ref"][key] for r in table], "s--", label="hand-written reference")
        if with_limit:
            ax.axhline(limit, color="gray", ls=":", label=f"single-MAC limit {limit:.0f} MHz")
        ax.set_xlabel("array size (N x N)")
        ax.set_ylabel(ylabel)
        ax.set_xticks(x, [r["array"] for r in table])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(f"gemm_os on {DEVICE}")
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname))
        plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 12], help="N for N x N arrays")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="nextpnr seeds")
    p.add_argument("--kfactor", type=int, default=8, help="K = kfactor x N (default 8)")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--no-ice40", action="store_true", help="skip the iCE40 UP5K run")
    args = p.parse_args(argv)
    if any(s < 1 or s > 12 for s in args.sizes):
        p.error("sizes must be 1..12 (12x12 uses 144 of the 156 multipliers)")
    t0 = time.time()
    results = run(args.sizes, args.seeds, args.out, args.jobs, not args.no_ice40, args.kfactor)
    table, limit = rows(results, args.sizes, args.kfactor)
    text = markdown(table, limit, results, args.seeds)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"table": table, "limit_mhz": limit, "raw": results}, f, indent=1)
    plots(table, limit, args.out)
    print(text)
    print(f"wrote {args.out}/results.md, results.json, fmax.png, lut_per_pe.png "
          f"in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
