"""hwgen's command line: check, build, sim, timing, bitstream, graph, fusion, demo (and, from
``cli_explore``, dse and layers, from ``cli_model``, model); the Makefile calls these, ``cli_args`` declares their
arguments."""
import os
import sys
import time

from .cli_args import parser
from .cli_explore import (array_option, budget_of as _budget, cmd_dse,  # noqa: F401
                          cmd_layers, point_graph as _point)
from .cli_model import cmd_model  # noqa: F401
from .errors import HwgenError


def _out_dir(args):
    if args.out:
        return args.out
    if args.design.startswith("dse:"):
        point = "".join(c if c.isalnum() else "_" for c in args.design[4:]).strip("_")
        return os.path.join("build", f"dse_{point}")
    name = os.path.splitext(os.path.basename(args.design))[0]
    return os.path.join("build", name)


def _lanes(args):
    """--lanes: "auto" (default) or one number for every host port."""
    text = getattr(args, "lanes", "auto")
    if text in (None, "", "auto"):
        return None
    try:
        return int(text)
    except ValueError:
        raise HwgenError(f"--lanes must be 'auto' or an integer, got {text!r}") from None


def _design(args):
    """``(graph, reference, tolerance, input_range)``: the checked task graph, its numpy
    reference (None if undefined; for ``dse:``, the expression's) and ``declared`` values."""
    if args.design.startswith("dse:"):
        return _point(args)
    from .check.reference import declared
    from .pipeline import describe_folds, load_design, load_module, parse_params
    params = parse_params(args.params)
    module = load_module(args.design)
    budget, array = _budget(args), args.array and array_option(args.array)
    search = budget and (array is None or any(getattr(args, k) is not None
                                              for k in ("pes", "dsps", "ports", "luts")))
    if search:
        print(f"searching the array shapes within {budget} (seconds per shape scheduled "
              "exactly)", file=sys.stderr, flush=True)
    graph = load_design(args.design, params, module, array, budget if search else None,
                        **({"brams": budget["brams"]} if budget else {}))
    lines = describe_folds(graph)
    print("\n".join(lines), file=sys.stderr, end="\n" if lines else "")
    return (graph, getattr(module, "reference", None)) + declared(module)


def _graph(args):
    return _design(args)[0]


def _check_reference(graph, reference, cases, what, outputs=None, tolerance=None):
    """Print the interpreter against ``reference`` on ``cases``; whether they agree (within
    the design's declared ``tolerance``). ``outputs``: the interpreter's, when computed."""
    from .check.reference import check_reference
    from .flow.tiles import run_whole, whole
    if outputs is None:         # a tiled design: one run per tile, as the host runs it
        outputs = [run_whole(graph, inputs) for _, inputs in cases]
    graph = whole(graph)
    report = check_reference(graph, reference, cases, outputs, tolerance)
    if report.ok:
        print(f"PASS {graph.name} {graph.params}: the interpreter equals reference()"
              + (f" within {tolerance}" if tolerance else "") + f" on {what}")
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
        self.total = max(self.total, self.n)      # a retry (e.g. a slower clock) adds steps
        print(f"[{self.n}/{self.total} {time.time() - self.t0:6.1f}s] {text}", flush=True)


def _warn_if_too_big(graph, device):
    """Say at once when the design cannot fit ``device`` (elaboration may take minutes)."""
    from .flow.fit import fit_warnings
    for line in fit_warnings(graph, device):
        print(f"warning: {line}", file=sys.stderr, flush=True)


def cmd_build(args):
    from .flow import verilog
    from .flow.pnr import device_info
    from .rtl.kinds import Kinds
    device_info(args.device)
    out = _out_dir(args)
    graph = _graph(args)
    _warn_if_too_big(graph, args.device)
    steps = _Steps(3)
    kinds = Kinds(graph.name)
    info = verilog.write(graph, out, _lanes(args), steps, verilog.target_of(args.device), kinds)
    steps("done")
    s = info.schedule
    print(f"wrote {os.path.join(out, info.verilog[0])} and {os.path.join(out, 'design.json')}")
    print(f"  {info.top} {info.params}: expected_cycles {info.expected_cycles}, "
          f"{s.groups} lockstep group(s), {s.register_streams} stream(s) as registers, "
          f"{s.fifo_streams} as FIFOs")
    print(f"  interval_cycles {info.interval_cycles} per problem back to back; lanes "
          + ", ".join(f"{p.signal}={p.lanes}" for p in info.ports))
    shared = kinds.summary()
    if shared:
        print("  modules of one kind built once: " + ", ".join(
            f"{n} {stem} as {k}" for stem, (n, k) in sorted(shared.items())))
    _say_if_ports_bound(info, args.lanes == "auto")
    return 0


def _say_if_ports_bound(info, auto_lanes):
    """When moving a port's beats, not the array, sets the interval, say which port and why
    (``info``: the design's ``Manifest``)."""
    from .host import beats
    array, interval = info.schedule.array_cycles, info.interval_cycles
    # A load takes one cycle a beat; a drain one more (design.json: interval_cycles).
    count = {p: beats(p.shape, p.lanes, p.row_pad or 0) for p in info.ports}
    bound = [p for p in info.ports if count[p] + (p.dir == "out") == interval]
    if interval <= array or not bound:
        return
    port = bound[0]
    print(f"  note: the host ports bound the interval: the array could take a problem every "
          f"{array} cycles, but {port.name} moves {count[port]} beats of "
          f"{port.lanes} element(s) per problem"
          + (" (the most lanes that fit its layout)" if auto_lanes else
             "; --lanes auto chooses enough lanes where the layout allows"))


def cmd_check(args):
    from .check.reference import reference_cases
    from .flow.tiles import whole
    from .schedule import plan
    from .schedule.depths import depth_advice
    if args.problems < 0:
        raise HwgenError(f"--problems must be 0 or more (random problems besides the two "
                         f"extremes), not {args.problems}")
    graph, reference, tolerance, input_range = _design(args)
    if reference is None:
        raise HwgenError(f"{args.design} defines no reference(): write one that takes the input "
                         f"tensors as numpy arrays ({', '.join(t.name for t in graph.inputs)}) "
                         "and returns {" + ", ".join(f"'{t.name}': ..." for t in graph.outputs)
                         + "}")
    cases = reference_cases(whole(graph), args.problems, args.seed, input_range)
    what = f"{len(cases)} problems: all-minimum, all-maximum and {args.problems} random " \
           f"inputs (seed {args.seed})"
    ok = _check_reference(graph, reference, cases, what, tolerance=tolerance)
    # What hardware refuses is refused here too, at the line, before any hardware is built.
    built = plan(graph)
    print(f"the schedule builds it: expected_cycles {built.expected_cycles}, interval_cycles "
          f"{built.interval_cycles} per problem back to back")
    for advice in depth_advice(built):
        where = f"{os.path.basename(advice.loc[0])}:{advice.loc[1]}: " if advice.loc else ""
        print(f"  {where}{advice.message()}")
    return 0 if ok else 1


def cmd_sim(args):
    from .flow.simulate import make_vectors, simulate, summary
    _check_simulator(args.sim)
    steps = _Steps(4)
    graph, reference, tolerance, input_range = _design(args)
    if reference is None:
        print("golden model: the interpreter (the design defines no reference() to check it "
              "against)")
    # Inputs and interpreter outputs once, for the reference check and the testbench.
    vectors = make_vectors(graph, args.problems, args.seed, input_range)
    if reference is not None:
        cases = [(f"simulated problem {p}", {t.name: vectors[f"in_{t.name}_{p}"]
                                             for t in graph.inputs}) for p in range(args.problems)]
        outputs = [{t.name: vectors[f"out_{t.name}_{p}"] for t in graph.outputs}
                   for p in range(args.problems)]
        if not _check_reference(graph, reference, cases, f"the {len(cases)} simulated "
                                "problems, so the hardware is held to both", outputs, tolerance):
            return 1
    result = simulate(graph, _out_dir(args), sim=args.sim, problems=args.problems, seed=args.seed,
                      lanes=_lanes(args), step=steps, vectors=vectors, device=args.device)
    steps("done")
    for line in summary(result):
        print(line)
    return 0 if _passed(result) else 1


def _check_simulator(name):
    from .flow.simulate import SIMULATORS
    if name not in SIMULATORS + ("auto",):
        raise HwgenError(f"unknown simulator {name!r}; use auto, {', '.join(SIMULATORS)}")


def _passed(result):
    """Whether a ``flow.simulate`` run ran its tests and all passed."""
    return bool(not result["failed"] and result["tests"]
                and all(r["pass"] for r in result["tests"].values()))


def cmd_timing(args):
    from .flow.pnr import check_router, device_info
    from .flow.timing_run import print_timing, time_design
    device_info(args.device)
    check_router(args.router)
    graph = _graph(args)
    _warn_if_too_big(graph, args.device)
    t, workdir, _ = time_design(graph, _out_dir(args), args.device, _lanes(args), args.freq,
                                args.seeds, args.router, _Steps(4 + len(args.seeds)))
    print_timing(t)
    print(f"report: {os.path.join(workdir, 'timing.json')}")
    return 0


def cmd_bitstream(args):
    from .flow.board import bitstream, board_spec
    from .flow.timing_run import print_timing
    board_spec(args.board)
    path, t = bitstream(_graph(args), _out_dir(args), args.board, args.selftest, _Steps(5))
    print_timing(t)
    what = "LED self-test" if args.selftest else f"UART bridge at {t['baud']:,} baud"
    print(f"bitstream: {path} ({what}; Fmax {t['fmax_mhz']:.1f} MHz >= the "
          f"{t['clock_mhz']:g} MHz clock it needs)")
    return 0


def cmd_graph(args):
    from .flow.diagram import draw
    out = args.out or os.path.join(_out_dir(args), "graph.svg")
    print(f"wrote {draw(_graph(args), out)}")
    return 0


def cmd_fusion(args):
    from .check.reference import reference_cases
    from .flow.simulate import simulate, summary
    from .mapping.fusion import fused_stages, fusion_decisions, report
    from .mapping.materialise import run_stages
    if args.sim is not None:
        _check_simulator(args.sim)
    graph, reference, tolerance, input_range = _design(args)
    decisions = fusion_decisions(graph, args.brams, args.device)
    stages = fused_stages(graph, decisions)
    print("\n".join(report(graph, decisions, stages)))
    ok = True
    if reference is not None and len(stages) > 1:
        cases = reference_cases(graph, 2, args.seed, input_range)
        outputs = [{t.name: run_stages(stages, inputs)[t.name] for t in graph.outputs}
                   for _, inputs in cases]
        ok = _check_reference(graph, reference, cases, "4 problems (all-minimum, "
                              "all-maximum, 2 random) with the stages run one after another",
                              outputs, tolerance)
    for stage in stages if args.sim else ():
        result = simulate(stage, os.path.join(_out_dir(args), stage.name), sim=args.sim,
                          problems=args.problems, seed=args.seed, device=args.device)
        print("\n".join(summary(result)))
        ok = ok and _passed(result)
    return 0 if ok else 1


def cmd_demo(args):
    from .flow.pnr import timing
    from .flow.simulate import simulate, summary
    import shutil
    graph = _graph(args)
    out = _out_dir(args)
    steps = _Steps(4)
    print(f"{graph.name} {graph.params}: Verilog, simulation against the numpy golden model, "
          f"Yosys + nextpnr for {args.device}", flush=True)
    sim = simulate(graph, out, sim=args.sim, step=steps, device=args.device)
    info = sim["design"]
    steps(f"Yosys + nextpnr for {args.device}")
    workdir = os.path.join(out, f"timing_{args.device}")
    os.makedirs(workdir, exist_ok=True)
    for v in info.verilog:
        shutil.copy(os.path.join(out, v), workdir)
    t = timing(workdir, list(info.verilog), info.top, args.device, seeds=(1,))
    print()
    for line in summary(sim):
        print(line)
    pes = len(graph.instances)
    u = t["used"]
    ok = not sim["failed"] and all(r["pass"] for r in sim["tests"].values())
    run = sim["tests"].get("no_stall", {})
    cycles, gaps = run.get("cycles", []), run.get("intervals", [])
    print(f"\nSUMMARY {graph.name} {graph.params}: {'PASS' if ok else 'FAIL'} | first problem "
          f"{cycles[0] if cycles else '-'} cycles vs expected {info.expected_cycles} | back to "
          f"back {gaps[-1] if gaps else '-'} cycles/problem vs interval {info.interval_cycles} | "
          f"Fmax {t['fmax_mhz']:.1f} MHz on {args.device} | LUT {u['LUT']} FF {u['FF']} "
          f"DSP {u['DSP']} BRAM {u['BRAM']} ({pes} PEs: {u['LUT'] / pes:.0f} LUT, "
          f"{u['FF'] / pes:.0f} FF, {u['DSP'] / pes:.2f} DSP per PE)")
    return 0 if ok else 1


def cmd_formal(args):
    from .flow.formal import PROOFS, prove, report, verdict
    from .flow.properties import FAULTS
    if args.list:
        for p in PROOFS:
            print(f"{p.name:<26} {p.mode:<5} {p.what}\n{'':<32} fault: {FAULTS[p.harness]}")
        return 0
    names = [p.name for p in PROOFS]
    unknown = [n for n in args.proofs if n not in names]
    if unknown:
        raise HwgenError(f"unknown proof {unknown[0]!r}; the proofs are {', '.join(names)}")
    chosen = [p for p in PROOFS if not args.proofs or p.name in args.proofs]
    from .pipeline import load_design
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")
    graphs = {p.name: load_design(os.path.join(examples, f"{p.design[0]}.py"), p.design[1],
                                  array=p.array) for p in chosen if p.design}
    steps, results = _Steps(2 * len(chosen)), []
    for fault in (False, True):
        for p in chosen:
            steps(f"{p.name}" + (f" with its fault: {FAULTS[p.harness]}" if fault else
                                 f" ({'k-induction' if p.mode == 'prove' else 'bounded'})"))
            results.append(prove(p, args.out, fault, graphs.get(p.name)))
    report(results, os.path.join(args.out, "formal.json"))
    for r in results:
        print(verdict(r))
    return 0 if all(r.passed != r.fault for r in results) else 1


def cmd_run(args):
    from .driver import Accelerator
    from .exercise import exercise
    graph = _graph(args)
    if args.port == "sim":
        acc = Accelerator.simulate(graph, line=args.line)
    else:
        acc = Accelerator.on_board(graph, args.board, args.port, _out_dir(args), _Steps(6))
    with acc:
        acc.progress = True
        return 0 if exercise(acc, graph, args.problems, args.seed) else 1


def cmd_campaign(args):
    from .campaign import campaign
    report = campaign(args.count, args.expressions, args.seed, args.out, args.keep, args.workers,
                      args.cluster, args.verilator_every)
    return 1 if report["findings"] or report["broken_shards"] else 0


def main(argv=None):
    """Run one subcommand; a user error prints ``error: ...`` and returns 2, not a traceback."""
    args = parser().parse_args(argv)
    try:
        return globals()[f"cmd_{args.command}"](args)
    except HwgenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
