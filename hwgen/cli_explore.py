"""hwgen's exploration commands: dse (the dataflows of a tensor expression, their Pareto front
and its measurement) and layers (VGG-16 and ResNet-50 layers on a PE array); a dse point as a
design, and the budgets (--pes/--dsps/--brams) designs fold and tile within."""
import os
import sys

from .cli_args import DEFAULT_ARRAY, array_size
from .errors import HwgenError


def array_option(text):
    try:
        return array_size(text)
    except ValueError as e:
        raise HwgenError(str(e)) from None


def exploration(args, progress=False):
    from .dataflow.expr import parse_expr
    from .dataflow.explore import explore
    expr = parse_expr(args.expr)
    bar = None
    if progress:
        from tqdm import tqdm

        def bar(items):
            return tqdm(items, desc="costing points", unit="point", leave=False)
    return explore(expr, args.sizes, array_option(args.array or DEFAULT_ARRAY), progress=bar)


def cmd_dse(args):
    from .dataflow import report
    result = exploration(args, progress=args.point is None)
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
    return _measure(args, result, out) if args.measure or args.cluster else 0


def _measure(args, result, out):
    """``dse --measure``: place and route the Pareto front; the model against nextpnr."""
    from .dataflow.generate import generate
    from .flow.measure import measure_front
    points = [{"id": p.id, "map": p.design.spacetime_text(), "model": {
        "cycles": p.cost.cycles, "latency": p.cost.latency, **p.cost.resources},
        "array": "x".join(map(str, p.design.array)), "graph": generate(p.design.padded)}
        for p in result.front]                  # padded: the hardware the model prices
    text, _, ok = measure_front(points, out, seeds=args.seeds, cluster=args.cluster,
                                workers=args.workers)
    print(f"\n{text}\n\nwrote {os.path.join(out, 'measured.md')}")
    return 0 if ok else 1


def cmd_layers(args):
    from tqdm import tqdm
    from .dataflow.layers import build_lines, evaluate, format_rows
    array = array_option(args.array)
    for table in args.tables:
        rows = evaluate(table, array, progress=lambda xs: tqdm(xs, desc=table, leave=False))
        print(f"## {table} on a {'x'.join(map(str, array))} array\n")
        print(format_rows(rows))
        print()
        for line in build_lines(rows, array):
            print(line)
    return 0


def point_graph(args):
    """``cli._design`` for ``dse:<point>``: tiled when its buffers exceed --brams (the device's
    block RAMs by default) or its array does not divide its loops."""
    from .dataflow.generate import reference
    from .mapping.fusion import DEVICE_BRAMS
    from .pipeline import describe_folds, load_point
    if args.params:
        raise HwgenError("a dse: design takes its sizes from --sizes (make ... SIZES=...), "
                         "not --params")
    if any(getattr(args, k, None) is not None for k in ("pes", "dsps", "ports", "luts")):
        raise HwgenError("a dse: point has its array (--array, make ... ARRAY=RxC); --pes, "
                         "--dsps, --ports and --luts fold programs: leave them out")
    budget = budget_of(args)
    device = getattr(args, "device", None)
    brams = budget["brams"] if budget else DEVICE_BRAMS.get(device, DEVICE_BRAMS["ecp5-85k"])
    result = exploration(args)
    graph = load_point(result.find(args.design[4:]).design, brams)
    lines = describe_folds(graph)
    print("\n".join(lines), file=sys.stderr, end="\n" if lines else "")
    return graph, lambda **inputs: reference(result.expr, result.sizes, inputs), None, None


def budget_of(args):
    """--pes/--dsps/--brams/--ports/--luts: None when none is given, else each (checked), the
    device's by default. With --array, --brams alone is the budget a problem too large for it
    is tiled within; --pes, --dsps, --ports or --luts search the array shape
    (``mapping.search``). LUTs for multiplies in logic: none unless --luts or --dsps 0 is
    given, then by default half the device's (the other half for the rest of the design); PEs
    default to the DSP budget when every multiply takes a DSP block. For a board (`bitstream`)
    the device is the board's, and its host ports have no pin budget (the UART bridge carries
    them)."""
    from .flow.fit import CAPACITY
    from .mapping.fusion import DEVICE_BRAMS
    from .mapping.search import check_budgets
    given = {k: getattr(args, k, None) for k in ("pes", "dsps", "brams", "ports", "luts")}
    if all(v is None for v in given.values()):
        return None
    device, board = getattr(args, "device", None), getattr(args, "board", None)
    if board:               # `bitstream`: the board's device, its ports behind the UART bridge
        from .flow.board import board_spec
        device = board_spec(board)["device"]
    device = device if device in CAPACITY else "ecp5-85k"
    def pick(name, default):
        return default if given[name] is None else given[name]
    dsps = pick("dsps", CAPACITY[device]["DSP"])
    luts = pick("luts", CAPACITY[device]["LUT"] // 2 if dsps == 0 else None)
    budget = {"pes": pick("pes", dsps if luts is None else None), "dsps": dsps,
              "brams": pick("brams", DEVICE_BRAMS[device]),
              "ports": pick("ports", None if board else CAPACITY[device]["pins"]), "luts": luts}
    check_budgets(**budget)
    return budget
