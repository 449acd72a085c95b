"""A campaign: shards of random programs (`programs`, through `case.run_case`) or of random
tensor expressions and maps (`exploration`), each shard a ``hypothesis`` run of its own seed,
spread over workers by the flow's executor.

A shard stops at its first finding (anything but a pass); ``hypothesis`` then shrinks it to a
small case with the same kind of finding, which the campaign writes out as a regression case
(`keep`): a design file for a program, a JSON file for an expression."""
import hashlib
import json
import os

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from ..errors import HwgenError
from .case import run_case
from .exploration import expression_points, run_point
from .programs import stalls
from .shapes import programs

SHARD = 50                  # cases per shard (one hypothesis run)
OK = ("pass", "empty")      # "empty": an expression with no realisable map on its array


class Finding(Exception):
    """Raised inside a hypothesis run so that it shrinks the case."""


def _program(drawn, job, n, verilator):
    (program, lanes, dsps), gaps = drawn
    result = run_case(program.source, job["workdir"], seed=n, gaps=gaps, lanes=lanes,
                      verilator=verilator, dsps=dsps)
    return dict(result, source=program.source, shape=program.shape,
                replay={"seed": n, "gaps": list(gaps), "lanes": lanes, "dsps": dsps})


def _expression(drawn, job, n, verilator):
    (text, sizes, array, pick), gaps = drawn
    result = run_point(text, sizes, array, pick, gaps=gaps, seed=n)
    return dict(result, source="", shape="expression", replay={
        "expr": text, "sizes": sizes, "array": list(array), "pick": pick, "gaps": list(gaps),
        "seed": n})


def _programs_and_lanes():
    """A program, its lanes, and its DSP blocks (None: every multiply on one; else the
    multiplies past that many in logic)."""
    return st.tuples(programs(), st.sampled_from([None, 1, 2, 4]), st.sampled_from([None, 0, 1]))


KINDS = {"programs": (_programs_and_lanes, _program),
         "expressions": (expression_points, _expression)}


def shard(job):
    """Run ``job["count"]`` cases of ``job["kind"]`` (default programs) from seed
    ``job["seed"]``; every ``verilator_every``-th program also on Verilator. Returns the counts
    per status and the shrunk finding (or None)."""
    counts, state = {}, {"n": 0, "finding": None}
    strategy, check = KINDS[job.get("kind", "programs")]

    @seed(job["seed"])
    @settings(max_examples=job["count"], deadline=None, database=None,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    @given(st.tuples(strategy(), stalls()))
    def one(drawn):
        state["n"] += 1
        every = job.get("verilator_every") or 0
        index = job.get("first", 0) + state["n"]          # over the whole campaign
        verilator = bool(every) and state["finding"] is None and index % every == 0
        result = check(drawn, job, state["n"], verilator)
        if state["finding"] is None:
            counts[result["status"]] = counts.get(result["status"], 0) + 1
            counts["verilator"] = counts.get("verilator", 0) + verilator
        if result["status"] not in OK:
            # Shrinking keeps a case only while it fails the same way.
            if state["finding"] and state["finding"]["status"] != result["status"]:
                return
            state["finding"] = result
            raise Finding(result["status"])

    try:
        one()
    except Exception:           # noqa: BLE001 (Finding, or hypothesis' report of a flaky one)
        if state["finding"] is None:
            raise
    return {"seed": job["seed"], "counts": counts, "finding": state["finding"]}


def jobs(count, first_seed, workdir, verilator_every=0, kind="programs"):
    """The shards of a campaign of ``count`` cases of ``kind``."""
    out, s = [], first_seed
    while count > 0:
        n = min(SHARD, count)
        out.append({"seed": s, "count": n, "workdir": workdir, "kind": kind,
                    "first": len(out) * SHARD, "verilator_every": verilator_every})
        count, s = count - n, s + 1
    return out


def keep(finding, directory):
    """Write a finding's shrunk case to ``directory``, what was found in its header: a design
    file whose first line is ``# campaign: {replay}`` for a program, a JSON file for an
    expression. Returns the path."""
    what = [f"campaign finding ({finding['status']}, {finding['shape']}):"] + \
        finding["detail"].strip().splitlines()[-6:]
    if finding["shape"] == "expression":
        text, suffix = json.dumps(dict(finding["replay"], finding=what), indent=1), ".json"
    else:
        text = "".join(f"# {line}\n" for line in
                       [f"campaign: {json.dumps(finding['replay'])}"] + what) + finding["source"]
        suffix = ".py"
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{finding['status']}_"
                        f"{hashlib.sha1(text.encode()).hexdigest()[:8]}{suffix}")
    with open(path, "w") as f:
        f.write(text)
    return path


def replay(path, workdir):
    """Run a case `keep` wrote again; the result as `case.run_case` gives it."""
    with open(path) as f:
        text = f.read()
    try:
        if path.endswith(".json"):
            case = json.loads(text)
            return run_point(case["expr"], case["sizes"], tuple(case["array"]), case["pick"],
                             tuple(case["gaps"]), case["seed"])
        case = json.loads(text.splitlines()[0].removeprefix("# campaign: "))
        seed, gaps, lanes = case["seed"], tuple(case["gaps"]), case["lanes"]
        dsps = case.get("dsps")
    except (ValueError, KeyError, TypeError, IndexError) as e:
        raise HwgenError(f"{path} is not a case the campaign kept (a design file starting "
                         f"with '# campaign: {{\"seed\": ...}}', or a point's JSON): {e!r}",
                         (path, 1)) from None
    return run_case(text, workdir, seed=seed, gaps=gaps, lanes=lanes, dsps=dsps)


def total(results):
    """Counts per status over all shards."""
    out = {}
    for r in results:
        for k, v in r["counts"].items():
            out[k] = out.get(k, 0) + v
    return out

