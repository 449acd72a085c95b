"""Shards of the campaign: 100 random programs with no finding (the make-test version of the
1,000-program campaign), and a finding shrunk and kept as a regression program."""
import pytest

from hwgen.campaign import campaign, case, run
from hwgen.errors import HwgenError


def test_fifty_random_programs_match_the_interpreter(tmp_path):
    result = run.shard({"seed": 0, "count": 50, "workdir": str(tmp_path)})
    assert result["finding"] is None, result["finding"]
    assert result["counts"] == {"pass": 50, "verilator": 0}


def test_a_finding_shrinks_to_a_small_program_and_is_kept(tmp_path, monkeypatch):
    """A "bug" planted in the hardware of every reducing task; the hardware is not simulated
    (the fifty programs above are), so shrinking costs the checks and the interpreter."""
    real, planted = run.run_case, {}

    def fails_on_reductions(source, workdir, **kw):
        planted["on"] = "acc +=" in source
        return real(source, workdir, **kw)

    monkeypatch.setattr(case, "hardware_finding", lambda *args: "planted" * planted["on"])
    monkeypatch.setattr(run, "run_case", fails_on_reductions)
    result = run.shard({"seed": 1, "count": 60, "workdir": str(tmp_path)})
    finding = result["finding"]
    assert finding and finding["status"] == "mismatch" and "acc +=" in finding["source"]
    assert finding["source"].count("@hwgen.task") == 1 and "if " not in finding["source"]
    path = run.keep(finding, str(tmp_path / "kept"))
    assert "# campaign finding (mismatch" in open(path).read()
    assert run.replay(path, str(tmp_path))["status"] == "mismatch"   # replays the same finding


def test_shards_split_the_count():
    shards = run.jobs(120, 7, "/tmp/w")
    assert [s["count"] for s in shards] == [50, 50, 20]
    assert [s["seed"] for s in shards] == [7, 8, 9]
    assert [s["first"] for s in shards] == [0, 50, 100]      # every Nth counts over shards


@pytest.mark.parametrize("kw,words", [({"count": 0}, "--count"), ({"count": -1}, "--count"),
                                      ({"count": 5, "verilator_every": -1}, "--verilator")])
def test_bad_campaign_arguments_are_clear_errors(kw, words, tmp_path):
    with pytest.raises(HwgenError, match=words):
        campaign(out=str(tmp_path), say=lambda text: None, **kw)


def test_the_campaign_runs_the_same_on_a_dask_cluster(tmp_path):
    from dask.distributed import LocalCluster
    quiet = lambda text: None                                  # noqa: E731
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        on_dask = campaign(6, 4, first_seed=5, out=str(tmp_path / "dask"),
                           cluster=cluster.scheduler_address, say=quiet)
    local = campaign(6, 4, first_seed=5, out=str(tmp_path / "pool"), say=quiet)
    assert on_dask["counts"] == local["counts"] and not on_dask["findings"]
    assert on_dask["cases"] == 10
