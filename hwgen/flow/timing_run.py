"""Place and route one design: its Verilog for the device's target, Yosys and nextpnr
(``pnr.timing``); the iCE40's too-few pins take the self-test wrapper instead."""
import os
import shutil

from . import verilog
from .board import selftest_verilog
from .pnr import ROUTERS, describe_path, timing


def time_design(graph, out, device, lanes=None, freq=None, seeds=(1,), router=ROUTERS[0],
                progress=None):
    """``(report, workdir, top)``: ``pnr.timing``'s report of ``graph`` on ``device``, its
    files under ``out``, and the top module it placed."""
    info = verilog.write(graph, out, lanes, progress, verilog.target_of(device))
    workdir = os.path.join(out, f"timing_{device}")
    os.makedirs(workdir, exist_ok=True)
    if device.startswith("ice40"):
        # The UP5K package has too few pins for raw host ports: time the self-test wrapper.
        files, top = selftest_verilog(graph, workdir)
    else:
        for v in info.verilog:
            shutil.copy(os.path.join(out, v), workdir)
        files, top = list(info.verilog), info.top
    if progress:
        progress(f"synthesizing {top} for {device} with Yosys")
    return timing(workdir, files, top, device, freq, seeds, progress=progress,
                  router=router), workdir, top


def print_timing(t):
    """Print Fmax, its critical path and the resources used of a ``pnr.timing`` report."""
    u, a = t["used"], t["available"]
    print(f"Fmax {t['fmax_mhz']:.1f} MHz on {t['device']} (seeds: " + ", ".join(
        f"{f:.1f}" for f in t["fmax_seeds"]) + f"); {describe_path(t.get('critical_path'))}")
    print(f"{'resource':<8} {'used':>8} {'available':>10} {'%':>6}")
    for col in ("LUT", "FF", "DSP", "BRAM", "LUTRAM"):
        if a.get(col):
            print(f"{col:<8} {u[col]:>8} {a[col]:>10} {100 * u[col] / a[col]:>6.1f}")


# What a synthesized ECP5 cell counts as: LUTs (a carry cell holds two), flip-flops, DSP
# blocks, block RAMs.
_COUNTS = {"LUT4": ("LUT", 1), "CCU2C": ("LUT", 2), "TRELLIS_FF": ("FF", 1),
           "MULT18X18D": ("DSP", 1), "DP16KD": ("BRAM", 1)}


def resources_by_part(workdir, top):
    """LUT, FF, DSP and BRAM of each part of ``top`` (its submodules by name, ``""`` for the
    top's own cells) in the netlist Yosys synthesized into ``workdir``: counted before
    placement, so the LUTs are a little fewer than nextpnr's."""
    import json
    with open(os.path.join(workdir, f"{top}.json")) as f:
        cells = json.load(f)["modules"][top]["cells"]
    parts = {}
    for name, cell in cells.items():
        kind, count = _COUNTS.get(cell["type"], (None, 0))
        if kind:
            part = name.split(".")[0] if "." in name and not name.startswith("$") else ""
            used = parts.setdefault(part, dict.fromkeys(("LUT", "FF", "DSP", "BRAM"), 0))
            used[kind] += count
    return parts
