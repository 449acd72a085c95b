"""Random programs against the golden model: a generator of well-formed programs
(`programs`), one program through the whole flow (`case`), shards of them on the flow's
executor (`run`), and `campaign`, what ``hwgen campaign`` runs."""
import json
import os
import time

from ..errors import HwgenError


def campaign(count, expressions=0, first_seed=0, out="build/campaign", keep_dir=None,
             workers=None, cluster=None, verilator_every=0, say=print):
    """Run ``count`` random programs and ``expressions`` random points of the exploration;
    print the counts per status and every finding (shrunk, written to ``keep_dir``); returns
    the report (also ``out/campaign.json``)."""
    from ..flow.executor import map_jobs
    from .run import SHARD, jobs, keep, shard, total
    if count < 0 or expressions < 0 or count + expressions < 1:
        raise HwgenError(f"--count and --expressions must be 0 or more, and one of them at "
                         f"least 1; got {count} and {expressions}")
    if verilator_every < 0:
        raise HwgenError(f"--verilator-every must be 0 (never) or more, got {verilator_every}")
    t0 = time.time()
    work = jobs(count, first_seed, os.path.abspath(os.path.join(out, "programs")),
                verilator_every)
    work += jobs(expressions, first_seed + len(work), "", kind="expressions")
    say(f"{count} random programs and {expressions} random points of the exploration in "
        f"{len(work)} shards of up to {SHARD} (seeds {first_seed}..{first_seed + len(work) - 1}"
        f") on {cluster or 'a local process pool'}")
    results = map_jobs(shard, work, cluster=cluster, workers=workers, desc="shards")
    broken = [(job, r["error"]) for job, r in zip(work, results) if "error" in r]
    results = [r for r in results if "error" not in r]
    counts = total(results)
    findings = [r["finding"] for r in results if r["finding"]]
    kept = [keep(f, keep_dir or os.path.join(out, "findings")) for f in findings]
    report = {"cases": sum(v for k, v in counts.items() if k != "verilator"),
              "counts": counts, "seconds": round(time.time() - t0, 1),
              "findings": [dict(f, kept=k) for f, k in zip(findings, kept)],
              "broken_shards": [{"seed": j["seed"], "kind": j["kind"], "error": e}
                                for j, e in broken]}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "campaign.json"), "w") as f:
        json.dump(report, f, indent=1)
    say(f"{report['cases']} cases in {report['seconds']} s: " + ", ".join(
        f"{v} {k}" for k, v in sorted(counts.items())))
    for job, error in broken:
        say(f"SHARD FAILED ({job['kind']}, seed {job['seed']}): {error}")
    for f, k in zip(findings, kept):
        say(f"FINDING ({f['status']}, shrunk): {k}\n  " + f["detail"].strip().splitlines()[-1])
    return report
