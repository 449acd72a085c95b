"""``hwgen model``: a quantized ONNX model as a hwgen program, checked against onnxruntime in
hwgen's interpreter and in RTL simulation, then placed and routed."""
import os
import time

from .errors import HwgenError


def _print_table(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, row in enumerate(rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))


def _step(t0, text):
    print(f"[{time.time() - t0:6.1f}s] {text}", flush=True)


def cmd_model(args):
    from .model import compare, design as designs, onnx_import
    if args.batch < 1 or args.sim < 0 or (args.images is not None and args.images < 1):
        raise HwgenError("--batch and --images take a positive number, --sim zero or more")
    t0 = time.time()
    model = onnx_import.load(args.model)
    out = args.out or os.path.join("build", f"model_{model.name}")
    _step(t0, f"{args.model}: {len(model.layers)} layers, {model.features} inputs -> "
          f"{model.outputs} outputs; writing the program, stream depths from the schedule")
    unroll = args.unroll or designs.unroll_for_rate(model, args.rate, args.clock)
    design = designs.build(model, args.model, out, args.batch, unroll)
    _print_table(designs.rows(model, design))
    for line in designs.reasons(model, design):
        print(f"  {line}")
    per_sample = design.built.interval_cycles / args.batch
    print(f"program: {design.path} (PARAMS=\"" + " ".join(f"{k}={v}" for k, v in
          design.params.items()) + f"\"): {design.built.interval_cycles:,} clocks per "
          f"problem of {args.batch} back to back, {per_sample:,.0f} a sample; the first "
          f"problem's results after {design.built.expected_cycles:,}: "
          f"{args.clock * 1e6 / per_sample:,.0f} inferences/s at {args.clock:g} MHz")
    samples = compare.load_samples(model, args.data, args.images, args.seed)
    want = compare.onnxruntime_outputs(args.model, model, samples)
    runs = []
    if samples.labels is not None:
        acc = (want.argmax(axis=1) == samples.labels).mean()
        print(f"onnxruntime: {len(want)} samples, accuracy {acc:.3f}")
    _step(t0, f"hwgen's interpreter on {len(want)} samples")
    runs.append(compare.agreement("interpreter", model, samples, compare.interpreted(
        design.graph, model, samples, args.batch, progress=True), want))
    print(runs[-1].line())
    if args.sim:
        few = samples.first(args.sim)
        _step(t0, f"the RTL in Amaranth's simulator on {len(few.inputs)} samples, random "
              "input gaps and output back-pressure")
        runs.append(compare.agreement("RTL", model, few, compare.simulated(
            design.built, model, few, args.batch, args.seed), want[:len(few.inputs)]))
        print(runs[-1].line())
    if args.pnr:
        _place_and_route(args, design, per_sample, t0)
    return 0 if all(r.exact for r in runs) else 1


def _place_and_route(args, design, per_sample, t0):
    from .flow.timing_run import print_timing, resources_by_part, time_design
    t, workdir, top = time_design(design.graph, os.path.dirname(design.path), args.device,
                                  progress=lambda text: _step(t0, text))
    print_timing(t)
    parts = resources_by_part(workdir, top)
    rows, rest = [("task", "modules", "LUT", "FF", "DSP", "BRAM")], dict(parts)
    for group in design.built.schedule.groups:
        used = rest.pop(group.name, {})
        rows.append((", ".join(group.members), group.name) + tuple(
            str(used.get(k, 0)) for k in ("LUT", "FF", "DSP", "BRAM")))
    rows.append(("buffers, streams, control", ", ".join(sorted(p for p in rest if p)) or "-")
                + tuple(str(sum(u[k] for u in rest.values())) for k in
                        ("LUT", "FF", "DSP", "BRAM")))
    print("after synthesis, by task (layer<i> computes layer i and the constant adds after "
          "it):")
    _print_table(rows)
    fmax = t["fmax_mhz"]
    print(f"at {fmax:.1f} MHz: {fmax * 1e6 / per_sample:,.0f} inferences/s back to back, "
          f"latency {design.built.expected_cycles / fmax:,.1f} us for a problem of "
          f"{args.batch}")
