"""Component -> Verilog and ``design.json``, the manifest every testbench and flow reads."""
import json
import os
import shutil

from amaranth.back import rtlil, verilog

from ..rtl.target import sim_models
from ..rtl.top import Top, fifo_instance
from ..schedule import plan
from ..schedule.host_timing import row_pad
from ..schedule.plan import array_starts
from .pnr import device_info


def target_of(device):
    """The multiplier target of a DEVICE name (``ecp5-85k`` -> ``ecp5``)."""
    return device_info(device)["family"]


def manifest(top, verilog_files):
    graph = top.graph
    ports = []
    for t in graph.tensors.values():
        ports.append({"name": graph.host_name(t.name), "dir": t.direction, "dtype": t.dtype.name,
                      "shape": list(t.shape), "lanes": top.lanes[t.name],
                      "row_pad": row_pad(t, top.lanes[t.name]),
                      "payload": f"{t.name}__payload", "valid": f"{t.name}__valid",
                      "ready": f"{t.name}__ready"})
    tiles = {"tiles": graph.tiles} if graph.tiles else {}
    return {"top": graph.name, "verilog": list(verilog_files), "target": top.target,
            "clock": "clk", "reset": "rst",
            "params": dict(graph.params), "ports": ports,
            "streams": [{"name": name, "depth": graph.channels[name].depth,
                         "instance": fifo_instance(n)}
                        for n, name in enumerate(top.schedule.fifos)],
            "expected_cycles": top.expected_cycles,
            "interval_cycles": top.interval_cycles,
            "schedule": {"groups": len(top.schedule.groups),
                         "array_cycles": array_starts(top.schedule),
                         "register_streams": sum(len(g.links) for g in top.schedule.groups),
                         "fifo_streams": len(top.schedule.fifos)}, **tiles}


def convert(top, name, step=None, label=None):
    """``amaranth.back.verilog.convert`` in its two stages, each announced by ``step(text)``
    (minutes on large designs): Amaranth elaborates ``top`` into a netlist (RTLIL), Yosys
    writes it as Verilog. The text is byte for byte ``verilog.convert``'s."""
    step = step or (lambda text: None)
    step(f"elaborating {label or name} into a netlist (Amaranth)")
    text = rtlil.convert(top, name=name, emit_src=False)
    step("writing Verilog (Yosys)")
    # Amaranth 0.5's own second stage (pinned in pyproject.toml).
    return verilog._convert_rtlil_text(text)


def write(graph, out_dir, lanes=None, step=None, target="generic"):
    """Write ``<top>.v`` and ``design.json`` into ``out_dir``; return the manifest.
    ``step(text)`` announces each stage (see `convert`). ``target`` (``rtl.target.TARGETS``)
    selects the multipliers; the simulation models its primitives need are copied beside the
    Verilog and listed in ``design.json`` with it, so any simulator runs the same files Yosys
    synthesizes (Yosys skips the models)."""
    os.makedirs(out_dir, exist_ok=True)
    top = Top(plan(graph, lanes=lanes), target)
    text = convert(top, graph.name, step,
                   f"{graph.name} ({len(graph.instances)} task instances)")
    vname = f"{graph.name}.v"
    with open(os.path.join(out_dir, vname), "w") as f:
        f.write(text)
    # A model is listed only when the design instantiates its primitive (file = module name).
    models = [p for p in sim_models(target)
              if os.path.splitext(os.path.basename(p))[0] in text]
    for path in models:
        shutil.copy(path, out_dir)
    info = manifest(top, [vname] + [os.path.basename(p) for p in models])
    with open(os.path.join(out_dir, "design.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    return info
