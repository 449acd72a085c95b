"""map_jobs on a local process pool and on a local Dask cluster: job order, the cache, crashed
workers, errors in the job, bad input."""
import os
import socket
import time
import uuid

import pytest

from hwgen.errors import HwgenError
from hwgen.flow import executor
from hwgen.flow.executor import map_jobs


# -- jobs (module level: workers import them) -----------------------------------------------

def square(job):
    """``{"n": n, "square": n * n}``; leaves a file per call in ``job["dir"]``."""
    open(os.path.join(job["dir"], f"call_{job['n']}_{uuid.uuid4().hex}"), "w").close()
    time.sleep(job.get("sleep", 0))
    return {"n": job["n"], "square": job["n"] ** 2}


def crash_once(job):
    """The worker dies the first time (no marker file yet), the job succeeds after."""
    marker = os.path.join(job["dir"], f"crashed_{job['n']}")
    if job.get("crash") and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return square(job)


def crash_always(job):
    if job.get("crash"):
        os._exit(1)
    return square(job)


def fails(job):
    square(job)
    if job["n"] == 1:
        raise ValueError("no such n")
    return {"n": job["n"]}


def calls(folder, n=None):
    return len([f for f in os.listdir(folder)
                if f.startswith("call_") and (n is None or f.split("_")[1] == str(n))])


def jobs_in(folder, count, **extra):
    return [{"dir": str(folder), "n": n, **extra} for n in range(count)]


def by_n(job):
    return f"n{job['n']}"


# -- a local pool ---------------------------------------------------------------------------

def test_results_come_back_in_job_order(tmp_path):
    jobs = [{"dir": str(tmp_path), "n": n, "sleep": 0.3 * (n == 0)} for n in range(5)]
    assert map_jobs(square, jobs, workers=2) == [{"n": n, "square": n * n} for n in range(5)]


def test_a_cached_result_is_not_run_again(tmp_path):
    cache = tmp_path / "cache"
    first = map_jobs(square, jobs_in(tmp_path, 4), key=by_n, cache=str(cache), workers=2)
    assert calls(tmp_path) == 4 and sorted(os.listdir(cache)) == [f"n{n}.json" for n in range(4)]
    again = map_jobs(square, jobs_in(tmp_path, 5), key=by_n, cache=str(cache), workers=2)
    assert again[:4] == first and again[4] == {"n": 4, "square": 16}
    assert calls(tmp_path) == 5 and calls(tmp_path, 4) == 1     # only the new job ran


def test_a_crashed_worker_is_replaced_and_its_jobs_run_again(tmp_path):
    jobs = jobs_in(tmp_path, 4)
    jobs[2]["crash"] = True
    assert map_jobs(crash_once, jobs, workers=2) == [{"n": n, "square": n * n} for n in range(4)]
    assert os.path.exists(tmp_path / "crashed_2")


def test_a_job_that_always_crashes_ends_as_an_error_after_its_retries(tmp_path):
    jobs = jobs_in(tmp_path, 3)
    jobs[1]["crash"] = True
    results = map_jobs(crash_always, jobs, workers=1, retries=1, key=by_n,
                       cache=str(tmp_path / "cache"))
    assert results[0] == {"n": 0, "square": 0} and results[2] == {"n": 2, "square": 4}
    assert results[1] == {"error": "the worker running this job died (2 tries)"}
    assert not os.path.exists(tmp_path / "cache" / "n1.json")     # errors are not cached


def test_an_exception_in_the_job_is_an_error_result_not_retried_nor_cached(tmp_path):
    results = map_jobs(fails, jobs_in(tmp_path, 3), key=by_n, cache=str(tmp_path / "cache"))
    assert results[0] == {"n": 0} and results[2] == {"n": 2}
    assert results[1] == {"error": "ValueError: no such n"}
    assert calls(tmp_path, 1) == 1
    assert not os.path.exists(tmp_path / "cache" / "n1.json")


def test_each_result_is_handed_over_as_it_arrives_cached_ones_first(tmp_path):
    cache = str(tmp_path / "cache")
    map_jobs(square, jobs_in(tmp_path, 2), key=by_n, cache=cache)
    seen = []
    results = map_jobs(square, jobs_in(tmp_path, 4), key=by_n, cache=cache, workers=2,
                       on_result=lambda n, r: seen.append((n, r)))
    assert seen[:2] == [(0, results[0]), (1, results[1])]
    assert sorted(seen) == list(enumerate(results))


def test_nothing_to_do_is_no_work():
    assert map_jobs(square, []) == []


@pytest.mark.parametrize("kwargs, message", [
    ({"fn": "square"}, "needs a function"),
    ({"cache": "somewhere"}, "needs key="),
    ({"workers": 0}, "workers must be"),
    ({"retries": -1}, "retries must be"),
    ({"cluster": "localhost:8786"}, "tcp://host:8786"),
    ({"key": lambda job: "../up", "cache": "c"}, "plain file name"),
    ({"on_result": "print"}, "on_result must be a function"),
])
def test_bad_input_is_a_clear_error(tmp_path, kwargs, message):
    kwargs = {"fn": square, **kwargs}
    if "cache" in kwargs:
        kwargs["cache"] = str(tmp_path / kwargs["cache"])
    with pytest.raises(HwgenError, match=message):
        map_jobs(jobs=jobs_in(tmp_path, 1), **kwargs)
    assert calls(tmp_path) == 0


def test_an_unreachable_cluster_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(executor, "CONNECT_TIMEOUT", 2)
    with socket.socket() as s:              # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # The connection gives up after CONNECT_TIMEOUT (here 2 s), which the error reports.
    with pytest.raises(HwgenError, match=f"cannot reach the Dask scheduler at tcp://127.0.0.1:"
                                         f"{port} \\(waited 2 s\\)"):
        map_jobs(square, jobs_in(tmp_path, 2), cluster=f"tcp://127.0.0.1:{port}")


# -- a local Dask cluster -------------------------------------------------------------------

@pytest.fixture(scope="module")
def dask_cluster():
    """Two worker processes; a worker that dies fails its task at once (KilledWorker), so
    map_jobs' own retries are what runs it again."""
    dask = pytest.importorskip("dask")
    from distributed import LocalCluster
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            yield cluster.scheduler_address


def test_a_dask_cluster_gives_the_local_pool_results(tmp_path, dask_cluster):
    jobs = jobs_in(tmp_path, 6)
    local = map_jobs(square, jobs, workers=2)
    assert map_jobs(square, jobs, cluster=dask_cluster) == local
    assert calls(tmp_path) == 12


def test_a_dask_cluster_uses_the_cache_and_retries_killed_workers(tmp_path, dask_cluster):
    jobs = jobs_in(tmp_path, 3)
    jobs[1]["crash"] = True
    cache = str(tmp_path / "cache")
    results = map_jobs(crash_once, jobs, key=by_n, cache=cache, cluster=dask_cluster)
    assert results == [{"n": n, "square": n * n} for n in range(3)]
    assert os.path.exists(tmp_path / "crashed_1")
    assert map_jobs(crash_once, jobs, key=by_n, cache=cache, cluster=dask_cluster) == results
    assert calls(tmp_path) == 3
    jobs[1]["n"] = 3                        # not cached: always crashes, no retries
    results = map_jobs(crash_always, jobs, key=by_n, cache=cache, cluster=dask_cluster,
                       retries=0)
    assert results[1] == {"error": "the worker running this job died (1 tries)"}
