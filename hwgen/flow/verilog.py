"""Component -> Verilog and ``design.json``, the manifest every testbench and flow reads."""
import json
import os

from amaranth.back import verilog

from ..rtl.top import Top, fifo_instance
from ..schedule import plan
from ..schedule.host_timing import row_pad
from ..schedule.plan import array_starts


def manifest(top, verilog_files):
    graph = top.graph
    ports = []
    for t in graph.tensors.values():
        ports.append({"name": t.name, "dir": t.direction, "dtype": t.dtype.name,
                      "shape": list(t.shape), "lanes": top.lanes[t.name],
                      "row_pad": row_pad(t, top.lanes[t.name]),
                      "payload": f"{t.name}__payload", "valid": f"{t.name}__valid",
                      "ready": f"{t.name}__ready"})
    return {"top": graph.name, "verilog": list(verilog_files), "clock": "clk", "reset": "rst",
            "params": dict(graph.params), "ports": ports,
            "streams": [{"name": name, "depth": graph.channels[name].depth,
                         "instance": fifo_instance(n)}
                        for n, name in enumerate(top.schedule.fifos)],
            "expected_cycles": top.expected_cycles,
            "interval_cycles": top.interval_cycles,
            "schedule": {"groups": len(top.schedule.groups),
                         "array_cycles": array_starts(top.schedule),
                         "register_streams": sum(len(g.links) for g in top.schedule.groups),
                         "fifo_streams": len(top.schedule.fifos)}}


def write(graph, out_dir, lanes=None):
    """Write ``<top>.v`` and ``design.json`` into ``out_dir``; return the manifest."""
    os.makedirs(out_dir, exist_ok=True)
    top = Top(plan(graph, lanes=lanes))
    text = verilog.convert(top, name=graph.name, emit_src=False)
    vname = f"{graph.name}.v"
    with open(os.path.join(out_dir, vname), "w") as f:
        f.write(text)
    info = manifest(top, [vname])
    with open(os.path.join(out_dir, "design.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    return info
