"""Fingerprint the Verilog hwgen generates: one SHA-256 per design, for every example at its
test sizes and odd sizes, the test programs, and every explored point of the test spaces.

A refactor of the hardware compiler must leave every digest unchanged:

    .venv/bin/python scripts/verilog_digests.py --out before.json      # on the old commit
    .venv/bin/python scripts/verilog_digests.py --compare before.json  # on the new one
"""
import argparse
import functools
import glob
import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

ODD = {"systolic_1d": [{"T": 1, "N": 5}, {"T": 2, "N": 97}],
       "gemm_ws": [{"M": 1, "N": 3, "K": 5}, {"M": 3, "N": 5, "K": 3}],
       "gemm_os": [{"M": 3, "N": 5, "K": 97}, {"M": 1, "N": 1, "K": 1}],
       "gemm_tiled": [{"P": 3, "Q": 5, "TM": 1, "TN": 2, "K": 7}],
       "gemm_daisy_chain": [{"M": 3, "N": 5, "K": 97}],
       "conv2d_systolic": [{"F": 3, "C": 1, "H": 5, "W": 3, "KH": 3, "KW": 1}],
       "gemv_cooperative": [{"P": 5, "M": 3, "K": 15}],
       "smith_waterman": [{"P": 7, "L": 1}],
       "mlp_pipeline": [{"N0": 3, "N1": 33, "N2": 5, "N3": 7}]}
PROGRAMS = {"fifo_skew": [{"N": 6, "D": 2}, {"N": 5, "D": 1}], "gemm_inferred": [{}],
            "grid3d": [{}], "narrow_acc": [{}]}
SPACES = [("C[i,j] += A[i,k] * B[k,j]", "i=8 j=8 k=8", (4, 4)),
          ("C[i,j] += A[i,k] * B[k,j]", "i=4 j=6 k=5", (4, 3)),
          ("y[i] += A[i,j] * x[j]", "i=8 j=12", (4, 4)),
          ("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]", "k=4 p=4 q=2 c=2 r=3 s=2", (4, 4)),
          ("C[i,j] += A[i,k] * B[k,j]", "i=4 j=6 k=4", (2, 3)),
          ("y[i] += A[i,j] * x[j]", "i=6 j=4", (3, 2)),
          ("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]", "k=2 p=3 q=2 c=2 r=2 s=3", (2, 3)),
          ("C[i,j] += A[i,k] * B[k,j]", "i=8 j=8 k=32", (4, 4)),
          ("y[i] += A[i,j] * x[j]", "i=16 j=32", (4, 4)),
          ("O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]", "k=4 p=4 q=4 c=2 r=3 s=3", (4, 4))]


def _programs():
    from hwgen.pipeline import load_module
    jobs = []
    for path in sorted(glob.glob(os.path.join(ROOT, "hwgen", "examples", "*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if name == "__init__":
            continue
        for sizes in load_module(path).TEST_SIZES + ODD.get(name, []):
            for lanes in (None, 1):
                jobs.append(("program", path, sizes, lanes))
    for name, cases in PROGRAMS.items():
        for sizes in cases:
            jobs.append(("program", os.path.join(ROOT, "tests", "programs", f"{name}.py"),
                         sizes, None))
    return jobs


def _points():
    from hwgen.dataflow.explore import explore
    from hwgen.dataflow.expr import parse_expr
    jobs = []
    for text, sizes, array in SPACES:
        for point in explore(parse_expr(text), sizes, array).points:
            jobs.append(("point", text, sizes, array, str(point.design)))
    return jobs


@functools.lru_cache(maxsize=None)
def _explored(text, sizes, array):
    from hwgen.dataflow.explore import explore
    from hwgen.dataflow.expr import parse_expr
    return {str(p.design): p for p in explore(parse_expr(text), sizes, array).points}


def _digest(job):
    from amaranth.back import verilog
    if job[0] == "program":
        from hwgen.pipeline import load_design
        _, path, sizes, lanes = job
        graph = load_design(path, sizes)
        key = f"{os.path.relpath(path, ROOT)} {json.dumps(sizes, sort_keys=True)} lanes={lanes}"
    else:
        from hwgen.dataflow.generate import generate
        _, text, sizes, array, design = job
        point = _explored(text, sizes, array)[design]
        key = f"{text} | {sizes} | {array} | {design}"
        try:
            graph, lanes = generate(point.design), None
        except Exception as e:      # a point generate refuses: its message is its digest
            return key, f"refused: {e}"
    top = _top(graph, lanes)
    text = verilog.convert(top, name=graph.name, emit_src=False)
    extra = f"{top.expected_cycles} {top.interval_cycles} {sorted(top.lanes.items())}"
    return key, hashlib.sha256((text + extra).encode()).hexdigest()


def _top(graph, lanes):
    """The generated top; before the scheduling layer existed, Top took the graph itself."""
    from hwgen.rtl.top import Top
    try:
        from hwgen.schedule import plan
    except ImportError:
        return Top(graph, lanes=lanes)
    return Top(plan(graph, lanes=lanes))


def _init():
    import hwgen.dataflow.explore  # noqa: F401  (warm the import in each worker)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="write the digests to this JSON file")
    ap.add_argument("--compare", help="compare with the digests in this JSON file")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--programs-only", action="store_true", help="skip the exploration points")
    args = ap.parse_args()
    jobs = _programs() + ([] if args.programs_only else _points())
    from tqdm import tqdm
    with ProcessPoolExecutor(args.jobs, initializer=_init) as pool:
        digests = dict(tqdm(pool.map(_digest, jobs, chunksize=4), total=len(jobs),
                            desc="designs", unit="design"))
    print(f"{len(digests)} designs")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(digests, f, indent=0, sort_keys=True)
    if args.compare:
        with open(args.compare) as f:
            old = json.load(f)
        common = [k for k in old if k in digests]
        differ = [k for k in common if old[k] != digests[k]]
        missing = sorted(set(old) - set(digests))
        for k in differ[:20]:
            print("DIFFERS:", k)
        for k in missing[:20]:
            print("MISSING:", k)
        print(f"{len(common) - len(differ)} of {len(old)} identical, {len(differ)} differ, "
              f"{len(missing)} missing")
        sys.exit(1 if differ or missing else 0)


if __name__ == "__main__":
    main()
