"""The designs the benchmark compares, each written as Verilog + design.json so the same
manifest-driven testbench and the same place-and-route measure them."""
import json
import math
import os

from amaranth.back import verilog
from amaranth.hdl import Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hwgen.flow import verilog as hwgen_verilog
from hwgen.flow.fit import CAPACITY
from hwgen.pipeline import load_design
from hwgen.rtl.multiply import multiply
from hwgen.schedule.levels import MULT_STAGES

from reference import ReferenceGemm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEMM = os.path.join(ROOT, "hwgen", "examples", "gemm_os.py")
CONV2D = os.path.join(ROOT, "hwgen", "examples", "conv2d_systolic.py")
# The dataflow-exploration point measured: the default GEMM expression on an 8x8 array.
DSE_EXPR, DSE_SIZES, DSE_ARRAY = "C[i,j] += A[i,k] * B[k,j]", "i=8 j=8 k=64", (8, 8)


def generated(M, N, K, out_dir, dsps=None):
    """hwgen's gemm_os: returns (design.json dict, task graph); ``dsps``: a DSP budget, the
    multiplies past it in logic (within half the device's LUTs, as ``--dsps 0`` does)."""
    budget = None if dsps is None else {"dsps": dsps, "luts": CAPACITY["ecp5-85k"]["LUT"] // 2}
    graph = load_design(GEMM, {"M": M, "N": N, "K": K}, budget=budget)
    return hwgen_verilog.write(graph, out_dir, target="ecp5").to_json(), graph


def conv2d(out_dir, params=None):
    """hwgen's conv2d_systolic (default parameters unless ``params``): (design.json, graph)."""
    graph = load_design(CONV2D, params or {})
    return hwgen_verilog.write(graph, out_dir, target="ecp5").to_json(), graph


def dse_best(expr=DSE_EXPR, sizes=DSE_SIZES, array=DSE_ARRAY):
    """The first point of the exploration's Pareto front (the fastest, and the one `make dse`
    offers to build), as `hwgen ... dse:<id>` explores it."""
    from hwgen.dataflow.explore import explore
    from hwgen.dataflow.expr import parse_expr
    return explore(parse_expr(expr), sizes, array).front[0]


def dse_point(out_dir, **exploration):
    """The best exploration point (``dse_best``) generated: (design.json, graph, point)."""
    from hwgen.dataflow.generate import generate
    point = dse_best(**exploration)
    graph = generate(point.design)
    return hwgen_verilog.write(graph, out_dir, target="ecp5").to_json(), graph, point


def useful_macs(kind, graph):
    """Multiply-accumulates one problem needs (no padding or idle slots), from the graph's
    parameters: what MAC utilization divides by."""
    p = graph.params
    if kind == "conv2d":
        return (p["F"] * p["C"] * p["KH"] * p["KW"] * (p["H"] - p["KH"] + 1)
                * (p["W"] - p["KW"] + 1))
    if kind == "dse":               # a single-product expression: one MAC per loop point
        return math.prod(p.values())
    return p["M"] * p["N"] * p["K"]


def reference(M, N, K, out_dir):
    """The hand-written array with a design.json of the same form."""
    os.makedirs(out_dir, exist_ok=True)
    top = ReferenceGemm(M, N, K)
    with open(os.path.join(out_dir, "gemm_ref.v"), "w") as f:
        f.write(verilog.convert(top, name="gemm_ref", emit_src=False))
    port = lambda name, d, dtype, shape: {  # noqa: E731
        "name": name, "dir": d, "dtype": dtype, "shape": shape, "lanes": 1,
        "payload": f"{name}__payload", "valid": f"{name}__valid", "ready": f"{name}__ready"}
    info = {"top": "gemm_ref", "verilog": ["gemm_ref.v"], "clock": "clk", "reset": "rst",
            "params": {"M": M, "N": N, "K": K},
            "ports": [port("A", "in", "int8", [M, K]), port("B", "in", "int8", [K, N]),
                      port("C", "out", "int32", [M, N])],
            "expected_cycles": top.expected_cycles}
    with open(os.path.join(out_dir, "design.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


class SingleMac(wiring.Component):
    """The device limit: one int8 MAC between I/O registers, its multiply on a MULT18X18D with
    the block's own input, pipeline and output registers (``rtl.multiply``, as every generated
    PE), a 32-bit accumulator in the fabric: the fastest a PE can be on the part."""
    a: In(signed(8))
    b: In(signed(8))
    clear: In(1)
    acc: Out(signed(32))

    def elaborate(self, platform):
        m = Module()
        a, b = Signal(signed(8), reset_less=True), Signal(signed(8), reset_less=True)
        prod = multiply(m, a, b, 1, "mac", "ecp5")
        clear = [Signal(name=f"clear{k}") for k in range(MULT_STAGES + 1)]
        acc = Signal(signed(32), reset_less=True)
        m.d.sync += [a.eq(self.a), b.eq(self.b), clear[0].eq(self.clear),
                     *(c.eq(p) for c, p in zip(clear[1:], clear)),
                     acc.eq(Mux(clear[-1], 0, acc) + prod), self.acc.eq(acc)]
        return m


def single_mac(out_dir):
    """The limit design's Verilog in ``out_dir``: its (partial) design.json dict."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "mac.v"), "w") as f:
        f.write(verilog.convert(SingleMac(), name="mac", emit_src=False))
    return {"top": "mac", "verilog": ["mac.v"]}       # Yosys needs no simulation model
