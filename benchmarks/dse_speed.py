"""How fast the exploration is, side by side with brute force (part of make bench).

hwgen's exploration of GEMM (entry tuples, pruning, every map of the realisable family on every
array shape up to the budget, full costing) against the brute-force enumeration of every 3x3
space-time matrix with entries in {-1, 0, 1} (classification only, no costing). Median of
``--repeat`` runs each; writes build/bench/dse_speed.md.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from hwgen.dataflow.explore import explore  # noqa: E402
from hwgen.dataflow.expr import parse_expr  # noqa: E402
from hwgen.dataflow.search import enumerate_dataflows  # noqa: E402


def _median_time(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", default="i=32 j=32 k=32", help="GEMM loop sizes")
    p.add_argument("--arrays", nargs="+", default=["4x4", "8x8", "16x16"])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = p.parse_args(argv)
    gemm = parse_expr("C[i,j] += A[i,k] * B[k,j]")
    brute_s, brute = _median_time(lambda: enumerate_dataflows(gemm), args.repeat)
    lines = [f"GEMM {args.sizes}: exploration vs brute-force enumeration of 3x3 maps in "
             f"{{-1,0,1}} (median of {args.repeat})", "",
             "| array budget | explore s | costed points | realised tuples | brute force s | "
             "brute-force tuples | speed ratio (brute / explore) |", "|---|---|---|---|---|---|---|"]
    for text in args.arrays:
        array = tuple(int(n) for n in text.split("x"))
        seconds, result = _median_time(lambda: explore(gemm, args.sizes, array), args.repeat)
        tuples = {p.tuple for p in result.points}
        lines.append(f"| {text} | {seconds:.3f} | {len(result.points)} | {len(tuples)} | "
                     f"{brute_s:.3f} | {len(brute.dataflows)} ({brute.unimodular} unimodular of "
                     f"{brute.candidates}) | {brute_s / seconds:.2f} |")
    text = "\n".join(lines)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "dse_speed.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
