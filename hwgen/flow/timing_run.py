"""Place and route one design: its Verilog for the device's target, Yosys and nextpnr
(``pnr.timing``); the iCE40's too-few pins take the self-test wrapper instead."""
import os
import shutil

from . import verilog
from .board import selftest_verilog
from .pnr import ROUTERS, describe_path, timing


def time_design(graph, out, device, lanes=None, freq=None, seeds=(1,), router=ROUTERS[0],
                progress=None):
    """``(report, workdir)``: ``pnr.timing``'s report of ``graph`` on ``device``, its files
    under ``out``."""
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
                  router=router), workdir


def print_timing(t):
    """Print Fmax, its critical path and the resources used of a ``pnr.timing`` report."""
    u, a = t["used"], t["available"]
    print(f"Fmax {t['fmax_mhz']:.1f} MHz on {t['device']} (seeds: " + ", ".join(
        f"{f:.1f}" for f in t["fmax_seeds"]) + f"); {describe_path(t.get('critical_path'))}")
    print(f"{'resource':<8} {'used':>8} {'available':>10} {'%':>6}")
    for col in ("LUT", "FF", "DSP", "BRAM", "LUTRAM"):
        if a.get(col):
            print(f"{col:<8} {u[col]:>8} {a[col]:>10} {100 * u[col] / a[col]:>6.1f}")
