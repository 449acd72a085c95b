"""Component -> Verilog and ``design.json``, the manifest every testbench and flow reads."""
import os
import shutil

from amaranth.back import rtlil, verilog
from amaranth.hdl import Fragment
from amaranth.hdl._ir import PortDirection
from amaranth.lib.wiring import In

from ..rtl.kinds import Kinds
from ..rtl.target import sim_models
from ..rtl.top import Top, fifo_instance
from ..schedule import plan
from ..schedule.host_timing import row_pad
from ..schedule.plan import array_starts
from .manifest import Manifest, Port, Schedule, Stream
from .pnr import device_info


def target_of(device):
    """The multiplier target of a DEVICE name (``ecp5-85k`` -> ``ecp5``)."""
    return device_info(device)["family"]


def manifest(top, verilog_files):
    """The ``manifest.Manifest`` of ``top`` (an ``rtl.top.Top``) whose Verilog is in
    ``verilog_files``: everything in it comes from the top's plan."""
    graph = top.graph
    ports = tuple(Port(name=graph.host_name(t.name), dir=t.direction, dtype=t.dtype.name,
                       shape=tuple(t.shape), lanes=top.lanes[t.name],
                       row_pad=row_pad(t, top.lanes[t.name]), payload=f"{t.name}__payload",
                       valid=f"{t.name}__valid", ready=f"{t.name}__ready",
                       resident=t.type.resident)
                  for t in graph.tensors.values())
    streams = tuple(Stream(name, graph.channels[name].depth, fifo_instance(n))
                    for n, name in enumerate(top.schedule.fifos))
    schedule = Schedule(len(top.schedule.groups), array_starts(top.schedule),
                        sum(len(g.links) for g in top.schedule.groups), len(top.schedule.fifos))
    return Manifest(top=graph.name, verilog=tuple(verilog_files), target=top.target,
                    clock="clk", reset="rst", params=dict(graph.params), ports=ports,
                    streams=streams, expected_cycles=top.expected_cycles,
                    interval_cycles=top.interval_cycles, schedule=schedule,
                    tiles=graph.tiles or None)


def convert(top, name, step=None, label=None, kinds=None):
    """``amaranth.back.verilog.convert`` in its two stages, each announced by ``step(text)``:
    Amaranth elaborates ``top`` into a netlist (RTLIL), Yosys writes it as Verilog. Modules
    that have siblings of their kind (an array's PEs, a buffer's banks) become instances of
    one module per kind (``rtl.kinds``), gathered in ``kinds`` when given: the ``Kinds`` that
    ``top`` was built with (``rtl.top.Top``), where its groups keep their members' kinds."""
    step = step or (lambda text: None)
    step(f"elaborating {label or name} into a netlist (Amaranth)")
    fragment = Fragment.get(top, None)
    ports = {"__".join(map(str, path)): (value, PortDirection.Input if member.flow == In
                                          else PortDirection.Output)
             for path, member, value in top.signature.flatten(top)}
    kinds = Kinds(name) if kinds is None else kinds
    kinds.share(fragment, [value for value, _ in ports.values()])
    text = rtlil.convert(fragment, name=name, ports=ports, emit_src=False) + kinds.rtlil()
    step("writing Verilog (Yosys)")
    # Amaranth 0.5's own second stage (pinned in pyproject.toml).
    return verilog._convert_rtlil_text(text)


def write(graph, out_dir, lanes=None, step=None, target="generic", kinds=None):
    """Write ``<top>.v`` and ``design.json`` into ``out_dir``; return the ``Manifest``.
    ``step(text)`` announces each stage (see `convert`). ``target`` (``rtl.target.TARGETS``)
    selects the multipliers; the simulation models its primitives need are copied beside the
    Verilog and listed in ``design.json`` with it, so any simulator runs the same files Yosys
    synthesizes (Yosys skips the models). ``kinds`` (an ``rtl.kinds.Kinds``): see `convert`."""
    os.makedirs(out_dir, exist_ok=True)
    kinds = Kinds(graph.name) if kinds is None else kinds
    top = Top(plan(graph, lanes=lanes), target, kinds)
    text = convert(top, graph.name, step,
                   f"{graph.name} ({len(graph.instances)} task instances)", kinds)
    vname = f"{graph.name}.v"
    with open(os.path.join(out_dir, vname), "w") as f:
        f.write(text)
    # A model is listed only when the design instantiates its primitive (file = module name).
    models = [p for p in sim_models(target)
              if os.path.splitext(os.path.basename(p))[0] in text]
    for path in models:
        shutil.copy(path, out_dir)
    info = manifest(top, [vname] + [os.path.basename(p) for p in models])
    info.write(os.path.join(out_dir, "design.json"))
    return info
