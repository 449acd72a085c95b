"""hwgen's command line: build, sim, timing, bitstream and demo (the Makefile calls these)."""
import argparse
import os
import sys
import time

from .errors import HwgenError

DEFAULT_DESIGN = "hwgen/examples/gemm_os.py"


DEFAULT_EXPR = "C[i,j] += A[i,k] * B[k,j]"
DEFAULT_SIZES = "i=8 j=8 k=32"
DEFAULT_ARRAY = "4x4"


def _out_dir(args):
    if args.out:
        return args.out
    if args.design.startswith("dse:"):
        point = "".join(c if c.isalnum() else "_" for c in args.design[4:]).strip("_")
        return os.path.join("build", f"dse_{point}")
    name = os.path.splitext(os.path.basename(args.design))[0]
    return os.path.join("build", name)


def _array(text):
    """``"4x4"`` -> (4, 4); ``"8"`` -> (8,)."""
    try:
        array = tuple(int(n) for n in str(text).lower().split("x"))
    except ValueError:
        array = ()
    if len(array) not in (1, 2) or any(n < 1 for n in array):
        raise HwgenError(f"ARRAY must look like 4x4 (2-D) or 8 (1-D), got {text!r}")
    return array


def _exploration(args, progress=False):
    from .dataflow.expr import parse_expr
    from .dataflow.explore import explore
    expr = parse_expr(args.expr)
    bar = None
    if progress:
        from tqdm import tqdm

        def bar(items):
            return tqdm(items, desc="costing points", unit="point", leave=False)
    return explore(expr, args.sizes, _array(args.array), progress=bar)


def _lanes(args):
    """--lanes: "auto" (default) or one number for every host port."""
    text = getattr(args, "lanes", "auto")
    if text in (None, "", "auto"):
        return None
    try:
        return int(text)
    except ValueError:
        raise HwgenError(f"--lanes must be 'auto' or an integer, got {text!r}") from None


def _graph(args):
    if args.design.startswith("dse:"):
        from .dataflow.generate import generate
        if args.params:
            raise HwgenError("a dse: design takes its sizes from --sizes (make ... SIZES=...), "
                             "not --params")
        return generate(_exploration(args).find(args.design[4:]).design)
    from .pipeline import load_design, parse_params
    return load_design(args.design, parse_params(args.params))


def _reference(args):
    """The design's numpy reference, or None: ``reference()`` in the design file; for a
    ``dse:`` point, the tensor expression itself."""
    if args.design.startswith("dse:"):
        from .dataflow.generate import reference
        result = _exploration(args)
        return lambda **inputs: reference(result.expr, result.sizes, inputs)
    from .pipeline import load_module
    return getattr(load_module(args.design), "reference", None)


def _check_reference(graph, reference, cases, what):
    """Print the interpreter against ``reference`` on ``cases``; whether they agree."""
    from .check.reference import check_reference
    report = check_reference(graph, reference, cases)
    if report.ok:
        print(f"PASS {graph.name} {graph.params}: the interpreter equals reference() on {what}")
        return True
    print(f"FAIL {graph.name} {graph.params}: the program and its reference() disagree")
    for line in report.failures[:10]:
        print(f"  {line}")
    return False


class _Steps:
    """Numbered progress lines with elapsed time, for steps that take seconds to minutes."""

    def __init__(self, total):
        self.total, self.n, self.t0 = total, 0, time.time()

    def __call__(self, text):
        self.n += 1
        print(f"[{self.n}/{self.total} {time.time() - self.t0:6.1f}s] {text}", flush=True)


def cmd_build(args):
    from .flow import verilog
    out = _out_dir(args)
    info = verilog.write(_graph(args), out, lanes=_lanes(args))
    s = info["schedule"]
    print(f"wrote {os.path.join(out, info['verilog'][0])} and {os.path.join(out, 'design.json')}")
    print(f"  {info['top']} {info['params']}: expected_cycles {info['expected_cycles']}, "
          f"{s['groups']} lockstep group(s), {s['register_streams']} stream(s) as registers, "
          f"{s['fifo_streams']} as FIFOs")
    print(f"  interval_cycles {info['interval_cycles']} per problem back to back; lanes "
          + ", ".join(f"{p['name']}={p['lanes']}" for p in info["ports"]))
    return 0


def cmd_check(args):
    from .check.reference import reference_cases
    graph = _graph(args)
    reference = _reference(args)
    if reference is None:
        raise HwgenError(f"{args.design} defines no reference(): write one that takes the input "
                         f"tensors as numpy arrays ({', '.join(t.name for t in graph.inputs)}) "
                         "and returns {" + ", ".join(f"'{t.name}': ..." for t in graph.outputs)
                         + "}")
    cases = reference_cases(graph, args.problems, args.seed)
    what = f"{len(cases)} problems: all-minimum, all-maximum and {args.problems} random " \
           f"inputs (seed {args.seed})"
    return 0 if _check_reference(graph, reference, cases, what) else 1


def cmd_sim(args):
    from .flow.simulate import SIMULATORS, problem_inputs, simulate, summary
    if args.sim not in SIMULATORS:
        raise HwgenError(f"unknown simulator {args.sim!r}; use one of {', '.join(SIMULATORS)}")
    steps = _Steps(2)
    graph = _graph(args)
    reference = _reference(args)
    if reference is None:
        print("golden model: the interpreter (the design defines no reference() to check it "
              "against)")
    else:
        cases = [(f"simulated problem {p}", inputs) for p, inputs in
                 enumerate(problem_inputs(graph, args.problems, args.seed))]
        if not _check_reference(graph, reference, cases, f"the {len(cases)} simulated "
                                "problems, so the hardware is held to both"):
            return 1
    steps(f"building and simulating {graph.name} {graph.params} on {args.sim} "
          f"({args.problems} problems, random gaps and back-pressure)")
    result = simulate(graph, _out_dir(args), sim=args.sim, problems=args.problems, seed=args.seed,
                      lanes=_lanes(args))
    steps("done")
    for line in summary(result, args.sim):
        print(line)
    ok = not result["failed"] and result["tests"] and all(r["pass"] for r in result["tests"].values())
    return 0 if ok else 1


def _print_timing(t):
    u, a = t["used"], t["available"]
    print(f"Fmax {t['fmax_mhz']:.1f} MHz on {t['device']} (seeds: "
          + ", ".join(f"{f:.1f}" for f in t["fmax_seeds"]) + ")")
    print(f"{'resource':<8} {'used':>8} {'available':>10} {'%':>6}")
    for col in ("LUT", "FF", "DSP", "BRAM", "LUTRAM"):
        if a.get(col):
            print(f"{col:<8} {u[col]:>8} {a[col]:>10} {100 * u[col] / a[col]:>6.1f}")


def cmd_timing(args):
    from .flow import verilog
    from .flow.pnr import device_info, timing
    from .flow.board import selftest_verilog
    device_info(args.device)
    graph = _graph(args)
    out = _out_dir(args)
    steps = _Steps(2 + len(args.seeds))
    info = verilog.write(graph, out, lanes=_lanes(args))
    workdir = os.path.join(out, f"timing_{args.device}")
    os.makedirs(workdir, exist_ok=True)
    if args.device.startswith("ice40"):
        # The UP5K package has too few pins for raw host ports: time the self-test wrapper.
        files, top = selftest_verilog(graph, workdir)
    else:
        import shutil
        for v in info["verilog"]:
            shutil.copy(os.path.join(out, v), workdir)
        files, top = info["verilog"], info["top"]
    steps(f"wrote Verilog; synthesizing {top} for {args.device} with Yosys")
    t = timing(workdir, files, top, args.device, args.freq, args.seeds, progress=steps)
    _print_timing(t)
    print(f"report: {os.path.join(workdir, 'timing.json')}")
    return 0


def cmd_bitstream(args):
    from .flow.board import bitstream
    graph = _graph(args)
    steps = _Steps(4)
    path, t = bitstream(graph, _out_dir(args), args.board, progress=steps)
    print(f"bitstream: {path} (Fmax {t['fmax_mhz']:.1f} MHz, needs the board clock)")
    return 0


def cmd_graph(args):
    from .flow.diagram import draw
    out = args.out or os.path.join(_out_dir(args), "graph.svg")
    print(f"wrote {draw(_graph(args), out)}")
    return 0


def cmd_dse(args):
    from .dataflow import report
    result = _exploration(args, progress=args.point is None)
    out = args.out or os.path.join("build", "dse")
    os.makedirs(out, exist_ok=True)
    if args.point is not None:
        for line in report.details(result.find(args.point)):
            print(line)
        return 0
    for line in report.summary(result):
        print(line)
    print()
    print(report.table(result.front))
    with open(os.path.join(out, "front.md"), "w") as f:
        f.write("\n".join(report.summary(result)) + "\n\n## Pareto front\n\n"
                + report.table(result.front) + "\n\n## All points\n\n"
                + report.table(result.points) + "\n")
    plot = report.plot(result, os.path.join(out, "front.png"))
    print(f"\nwrote {os.path.join(out, 'front.md')} (every point) and {plot}")
    best = result.front[0] if result.front else None
    if best is not None:
        print(f"build one: make sim DESIGN=dse:{best.id} EXPR=\"{args.expr}\" "
              f"SIZES=\"{args.sizes}\" ARRAY={args.array}")
    return 0


def cmd_layers(args):
    from tqdm import tqdm
    from .dataflow.layers import evaluate, format_rows
    array = _array(args.array)
    for table in args.tables:
        rows = evaluate(table, array, progress=lambda xs: tqdm(xs, desc=table, leave=False))
        print(f"## {table} on a {'x'.join(map(str, array))} array\n")
        print(format_rows(rows))
        print()
    return 0


def cmd_demo(args):
    from .flow import verilog
    from .flow.pnr import timing
    from .flow.simulate import simulate, summary
    import shutil
    graph = _graph(args)
    out = _out_dir(args)
    steps = _Steps(4)
    steps(f"{graph.name} {graph.params}: generating Verilog")
    info = verilog.write(graph, out)
    steps(f"simulating on {args.sim} against the numpy golden model (3 problems back to back)")
    sim = simulate(graph, out, sim=args.sim)
    steps(f"Yosys + nextpnr for {args.device}")
    workdir = os.path.join(out, f"timing_{args.device}")
    os.makedirs(workdir, exist_ok=True)
    for v in info["verilog"]:
        shutil.copy(os.path.join(out, v), workdir)
    t = timing(workdir, info["verilog"], info["top"], args.device, seeds=(1,))
    print()
    for line in summary(sim, args.sim):
        print(line)
    pes = len(graph.instances)
    u = t["used"]
    ok = not sim["failed"] and all(r["pass"] for r in sim["tests"].values())
    run = sim["tests"].get("no_stall", {})
    cycles, gaps = run.get("cycles", []), run.get("intervals", [])
    print(f"\nSUMMARY {graph.name} {graph.params}: {'PASS' if ok else 'FAIL'} | first problem "
          f"{cycles[0] if cycles else '-'} cycles vs expected {info['expected_cycles']} | back to "
          f"back {gaps[-1] if gaps else '-'} cycles/problem vs interval {info['interval_cycles']} | "
          f"Fmax {t['fmax_mhz']:.1f} MHz on {args.device} | LUT {u['LUT']} FF {u['FF']} "
          f"DSP {u['DSP']} BRAM {u['BRAM']} ({pes} PEs: {u['LUT'] / pes:.0f} LUT, "
          f"{u['FF'] / pes:.0f} FF, {u['DSP'] / pes:.2f} DSP per PE)")
    return 0 if ok else 1


def _add_exploration_options(p):
    """The options that name an exploration (expression, sizes, array budget), shared by
    `dse` and every command that can build a point of it."""
    p.add_argument("--expr", default=DEFAULT_EXPR, help="tensor expression (default "
                   f"'{DEFAULT_EXPR}')")
    p.add_argument("--sizes", default=DEFAULT_SIZES, help=f"loop sizes (default "
                   f"'{DEFAULT_SIZES}')")
    p.add_argument("--array", default=DEFAULT_ARRAY, help="PE array budget, e.g. 4x4 or 8 "
                   f"(default {DEFAULT_ARRAY})")
    return p


def _add_design_options(p):
    """The options of every command that takes a design: the design, its sizes, the output
    folder and the host lanes."""
    p.add_argument("design", nargs="?", default=DEFAULT_DESIGN,
                   help=f"design file (default {DEFAULT_DESIGN}), or dse:<point> for a point "
                   "of `hwgen dse` (its id or map, e.g. dse:3 or \"dse:x=j, y=i, t1=i+j+k\", "
                   "with the same --expr/--sizes/--array)")
    _add_exploration_options(p)
    p.add_argument("--params", default="", help='sizes, e.g. "M=8 N=8 K=64" (defaults: '
                   "the build() signature)")
    p.add_argument("--out", default=None, help="output folder (default build/<design>)")
    p.add_argument("--lanes", default="auto", help="elements per host beat: 'auto' (enough "
                   "to keep up with compute, per port) or one number for every port")
    return p


def _add_flow_commands(sub):
    """`check`, `build`, `sim`, `timing` and `bitstream`: the steps from a design to
    hardware."""
    p = _add_design_options(sub.add_parser(
        "check", help="the program in the interpreter against its own numpy reference()",
        description="Run the program in hwgen's functional interpreter and the design file's "
        "reference() on the same inputs (all at the minimum, all at the maximum, random) and "
        "print the first elements where they differ, with both values. No hardware is built."))
    p.add_argument("--problems", type=int, default=3, help="random problems (default 3)")
    p.add_argument("--seed", type=int, default=0, help="random seed for the data")
    p.set_defaults(fn=cmd_check)
    p = _add_design_options(sub.add_parser("build", help="write Verilog and design.json"))
    p.set_defaults(fn=cmd_build)
    p = _add_design_options(sub.add_parser(
        "sim", help="cocotb simulation against the interpreter and the design's reference()"))
    p.add_argument("--sim", default="verilator", help="verilator (default) or icarus")
    p.add_argument("--problems", type=int, default=3, help="problems back to back (default 3)")
    p.add_argument("--seed", type=int, default=0, help="random seed for data and back-pressure")
    p.set_defaults(fn=cmd_sim)
    p = _add_design_options(sub.add_parser("timing", help="Yosys + nextpnr: Fmax and utilization"))
    p.add_argument("--device", default="ecp5-85k", help="ecp5-85k (default) or ice40-up5k")
    p.add_argument("--freq", type=float, default=None, help="target MHz (default 200 / 60)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1], help="nextpnr seeds (median)")
    p.set_defaults(fn=cmd_timing)
    p = _add_design_options(sub.add_parser(
        "bitstream", help="board bitstream running an on-board self-test"))
    p.add_argument("--board", default="ulx3s-85f", help="ulx3s-85f (default) or icebreaker")
    p.set_defaults(fn=cmd_bitstream)


def _add_inspection_commands(sub):
    """`graph`, `dse` and `layers`: look at a design or at the dataflows of an expression
    without building hardware."""
    p = _add_design_options(sub.add_parser(
        "graph", conflict_handler="resolve",
        help="draw the task graph: tasks on their grids, streams, tensors"))
    p.add_argument("--out", default=None, help="picture to write, .svg or .png (default "
                   "build/<design>/graph.svg)")
    p.set_defaults(fn=cmd_graph)
    p = _add_exploration_options(sub.add_parser(
        "dse", help="explore the dataflows of a tensor expression: Pareto table and plot",
        description="Enumerate access-entry tuples, prune the unrealisable, solve for the "
        "space-time maps of each on arrays up to --array, cost them (cycles, banks, ports, "
        "buffers, interconnect, LUT/FF/DSP/BRAM) and print the Pareto front of cycles per "
        "problem against LUTs; writes front.md and front.png into --out. Build a point with "
        "`hwgen build|sim|timing dse:<id>` and the same --expr/--sizes/--array."))
    p.add_argument("--out", default=None, help="output folder (default build/dse)")
    p.add_argument("--point", default=None, help="explain one point (id or map): tiles, time "
                   "loops, entries and data layouts (A·T⁻¹ = L·E), costs")
    p.set_defaults(fn=cmd_dse)
    p = sub.add_parser("layers", help="best dataflow and utilization of VGG-16 and ResNet-50 "
                       "layers on a PE array (cost model only)")
    p.add_argument("tables", nargs="*", default=["vgg16", "resnet50"],
                   help="layer tables: vgg16, resnet50 (default both)")
    p.add_argument("--array", default="12x12", help="PE array (default 12x12, fits the 156 "
                   "DSPs of an ECP5-85k)")
    p.set_defaults(fn=cmd_layers)


def _parser():
    """The argument parser of every subcommand, each with its ``fn`` default."""
    parser = argparse.ArgumentParser(
        prog="hwgen", description="Turn a Python task-and-stream program into verified Verilog, "
        "timing reports and bitstreams. DESIGN is a Python file defining build(**params) that "
        "returns a @hwgen.region.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_flow_commands(sub)
    _add_inspection_commands(sub)
    p = _add_design_options(sub.add_parser(
        "demo", help="build, simulate and time one design; one summary"))
    p.add_argument("--sim", default="verilator")
    p.add_argument("--device", default="ecp5-85k")
    p.set_defaults(fn=cmd_demo)
    return parser


def main(argv=None):
    """Run one subcommand; a user error prints ``error: ...`` and returns 2, not a traceback."""
    args = _parser().parse_args(argv)
    try:
        return args.fn(args)
    except HwgenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
