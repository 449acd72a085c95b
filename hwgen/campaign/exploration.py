"""Random tensor expressions and space-time maps of the dataflow exploration, through the
generated hardware: a drawn expression (a GEMM, GEMV, 1-D or 2-D convolution or a batched
product, its operands' indices in a drawn order) at drawn sizes on a drawn array; one of the
explored points, not only the front, is generated, simulated in Amaranth's simulator with
random stalls and compared with numpy and with the cost model's latency and cycles."""
import time
import traceback

from hypothesis import strategies as st

from ..dataflow.explore import explore
from ..dataflow.expr import parse_expr
from ..dataflow.generate import reference
from ..errors import HwgenError
from ..flow.tiles import whole
from ..host import split_tiles
from ..pipeline import load_point
from .case import PROBLEMS, hardware_finding, inputs

# (output, inputs) index lists; a drawn order of each operand's indices makes the variants.
FAMILIES = {
    "gemm": ("C", ["i", "j"], [("A", ["i", "k"]), ("B", ["k", "j"])]),
    "gemv": ("y", ["i"], [("A", ["i", "j"]), ("x", ["j"])]),
    "conv1d": ("O", ["k", "p"], [("I", ["c", "p+r"]), ("W", ["k", "c", "r"])]),
    "conv2d": ("O", ["p", "q"], [("I", ["p+r", "q+s"]), ("W", ["r", "s"])]),
    "batched": ("C", ["b", "i"], [("A", ["b", "i", "k"]), ("B", ["b", "k"])]),
}


@st.composite
def expression_points(draw):
    """``(expression text, sizes text, array, point pick)``."""
    out, out_idx, inputs = FAMILIES[draw(st.sampled_from(sorted(FAMILIES)))]
    operands = [f"{t}[{','.join(draw(st.permutations(idx)))}]" for t, idx in inputs]
    text = f"{out}[{','.join(out_idx)}] += " + " * ".join(operands)
    loops = sorted({c for _, idx in inputs for i in idx for c in i if c.isalpha()})
    sizes = " ".join(f"{name}={draw(st.integers(1, 5))}" for name in loops)
    array = (draw(st.integers(2, 4)), draw(st.integers(2, 4)))
    return text, sizes, array, draw(st.integers(0, 10 ** 6))


def run_point(text, sizes, array, pick, gaps=(0.3, 0.3), seed=0):
    """One drawn point through generation and simulation; the result as in `case.run_case`
    (status ``pass``, ``empty`` when no map is realisable on the array, ``rejected``,
    ``unsupported``, ``mismatch``, ``hang`` or ``crash``)."""
    from ..schedule import plan
    t0, status, detail = time.time(), "rejected", ""
    try:
        expr = parse_expr(text)
        result = explore(expr, sizes, array)
        if not result.points:
            return {"status": "empty", "detail": "no realisable map", "seconds": 0.0}
        point = result.points[pick % len(result.points)]
        status, detail = "unsupported", f"point {point.id} of {len(result.points)}: "
        graph = load_point(point.design)        # padded where the array does not divide
        p = plan(graph)
        problems = [inputs(whole(graph), seed * PROBLEMS + k) for k in range(PROBLEMS)]
        golden = [reference(expr, result.sizes, x) for x in problems]
        if graph.tiles:         # one problem of the design per tile, the padding zeros
            problems, golden = ([b for x in xs for b in split_tiles(graph.tiles, x)]
                                for xs in (problems, golden))
        found = ""
        one = not graph.tiles or all(loop["count"] == 1 for loop in graph.tiles["loops"])
        if one and (point.cost.latency, point.cost.cycles) != (p.expected_cycles,
                                                               p.interval_cycles):
            found = (f"cost model: latency {point.cost.latency}, cycles {point.cost.cycles}; "
                     f"schedule {p.expected_cycles}, {p.interval_cycles}")
        found = found or hardware_finding(p, problems, golden, gaps, seed)
        status, detail = ("mismatch" if found else "pass"), detail + found
    except HwgenError as e:
        detail += str(e)
        status = "hang" if str(e).startswith("simulation stopped after") else status
    except Exception:                                       # noqa: BLE001 (a finding)
        status, detail = "crash", detail + traceback.format_exc(limit=-4)
    return {"status": status, "detail": detail, "seconds": round(time.time() - t0, 2)}
