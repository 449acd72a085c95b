"""Sweeps of independent jobs (place and route of many designs and seeds, random campaigns) on
a local process pool or an existing Dask cluster, behind one call: ``map_jobs``.

Results are JSON (each is round-tripped through ``json``, so a fresh result and a cached one
are equal), cached one file per job under the job's key, and returned in job order.
"""
import concurrent.futures as cf
import json
import multiprocessing
import os

from ..errors import HwgenError

CONNECT_TIMEOUT = 10        # seconds to reach a cluster's scheduler before giving up
SCHEMES = ("tcp://", "tls://", "ws://", "wss://", "ucx://", "inproc://")
_STARTED = None             # in a pool worker: the queue it announces each job's start on


def map_jobs(fn, jobs, *, key=None, cache=None, cluster=None, workers=None, retries=2, desc="",
             on_result=None):
    """``[fn(job) for job in jobs]``, run in parallel; results in job order.

    ``fn``: a picklable module-level function of one picklable job, returning a
    JSON-serialisable result. ``key(job)``: the job's cache key (a file name, e.g. a hash of
    the design, device and seed); with ``cache`` (a folder), a job whose ``<cache>/<key>.json``
    exists is not run and that result is returned, and each new result is written there as
    soon as it arrives (an interrupted sweep keeps what finished).
    ``cluster``: None runs a local ``ProcessPoolExecutor`` of ``workers`` processes (default
    one per core); ``"tcp://host:port"`` runs on that Dask scheduler (``workers`` is then the
    cluster's business). An unreachable scheduler is a HwgenError after ``CONNECT_TIMEOUT`` s.
    A tqdm bar labelled ``desc`` counts finished jobs (cached ones included).
    ``on_result(n, result)``, when given, is called in this process as each job ``n`` (its
    index in ``jobs``) finishes, cached ones first (a caller keeps partial results with it).

    Errors: an exception raised by ``fn`` is not retried; that job's result is
    ``{"error": "<message>"}`` (the HwgenError's text, else ``"<Type>: <message>"``) and the
    others go on. A worker that dies (a crash, ``os._exit``, the OOM killer: a broken pool, or
    Dask's ``KilledWorker``) is replaced and the jobs in flight when it died are run again,
    up to ``retries`` times each; after that their result is ``{"error": "... died ..."}``. A
    result with an ``"error"`` key is never cached."""
    jobs = list(jobs)
    _check(fn, key, cache, cluster, workers, retries, on_result)
    results, todo = [None] * len(jobs), {}
    for n, job in enumerate(jobs):
        hit = _load(cache, key(job)) if cache else None
        if hit is None:
            todo[n] = job
        else:
            results[n] = hit
            if on_result:
                on_result(n, hit)
    if not todo:
        return results
    from tqdm import tqdm
    with tqdm(total=len(jobs), initial=len(jobs) - len(todo), desc=desc or None,
              unit="job") as bar:
        def done(n, result):
            results[n] = _json(result)
            if cache and not _failed(results[n]):
                _store(cache, key(jobs[n]), results[n])
            if on_result:
                on_result(n, results[n])
            bar.update(1)

        if cluster is None:
            _local(fn, todo, min(workers or os.cpu_count() or 1, len(todo)), retries, done)
        else:
            _dask(fn, todo, cluster, retries, done)
    return results


def _check(fn, key, cache, cluster, workers, retries, on_result):
    if not callable(fn):
        raise HwgenError(f"map_jobs needs a function to run, not {fn!r}")
    if on_result is not None and not callable(on_result):
        raise HwgenError(f"on_result must be a function of (index, result), not {on_result!r}")
    if cache is not None and not callable(key):
        raise HwgenError("map_jobs: a cache needs key=, the function naming each job's result")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise HwgenError(f"workers must be a whole number of processes, 1 or more, not "
                         f"{workers!r}")
    if not isinstance(retries, int) or retries < 0:
        raise HwgenError(f"retries must be 0 or more, not {retries!r}")
    if cluster is not None and not (isinstance(cluster, str) and cluster.startswith(SCHEMES)):
        raise HwgenError(f"a cluster is a Dask scheduler address such as tcp://host:8786, "
                         f"not {cluster!r}")


def _failed(result):
    return isinstance(result, dict) and "error" in result


def _json(result):
    """``result`` as JSON gives it back (or an error result if it is not JSON)."""
    try:
        return json.loads(json.dumps(result))
    except (TypeError, ValueError) as e:
        return {"error": f"the result is not JSON-serialisable: {e}"}


def _path(cache, name):
    name = str(name)
    if not name or os.sep in name or name.startswith("."):
        raise HwgenError(f"a cache key must be a plain file name, not {name!r}")
    return os.path.join(cache, f"{name}.json")


def _load(cache, name):
    try:
        with open(_path(cache, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _store(cache, name, result):
    path = _path(cache, name)
    os.makedirs(cache, exist_ok=True)
    with open(path + f".{os.getpid()}.tmp", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(path + f".{os.getpid()}.tmp", path)


def _call(fn, job, n=None):
    """``fn(job)`` in a worker; an exception becomes ``{"error": ...}``."""
    if _STARTED is not None and n is not None:
        _STARTED.put(n)
    try:
        return fn(job)
    except HwgenError as e:
        return {"error": str(e)}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


def _init(started):
    global _STARTED
    _STARTED = started


# -- a local process pool ----------------------------------------------------------------------

def _local(fn, todo, workers, retries, done):
    """Run ``todo`` (index -> job) on fresh pools until every job is done or out of retries."""
    crashes = dict.fromkeys(todo, 0)
    todo = dict(todo)
    while todo:
        started = multiprocessing.SimpleQueue()
        pool = cf.ProcessPoolExecutor(min(workers, len(todo)), initializer=_init,
                                      initargs=(started,))
        try:
            lost = _drain(pool, fn, todo, started, done)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        for n in lost:
            crashes[n] += 1
            if crashes[n] > retries:
                done(n, {"error": f"the worker running this job died ({crashes[n]} tries)"})
                del todo[n]


def _drain(pool, fn, todo, started, done):
    """Run ``todo`` on ``pool`` (removing each job as it finishes) until all are done or the
    pool breaks; returns the jobs that were running when it broke."""
    futures, broken = {}, False
    for n, job in todo.items():
        try:
            futures[pool.submit(_call, fn, job, n)] = n
        except cf.process.BrokenProcessPool:    # a job already started broke it: submit no more
            broken = True
            break
    running, pending = set(), set(futures)
    while pending and not broken:
        finished, pending = cf.wait(pending, timeout=0.5, return_when=cf.FIRST_COMPLETED)
        while not started.empty():          # read as it comes: a full pipe blocks workers
            running.add(started.get())
        for f in finished:
            n = futures[f]
            try:
                result = f.result()
            except cf.process.BrokenProcessPool:
                broken = True
                continue
            except Exception as e:          # the job or its result could not be pickled
                result = {"error": f"{type(e).__name__}: {e}"}
            done(n, result)
            del todo[n]
    if not broken:
        return set()
    for f in pending:                       # results that came in as the pool broke
        if f.done() and not f.cancelled() and f.exception() is None:
            done(futures[f], f.result())
            del todo[futures[f]]
    while not started.empty():
        running.add(started.get())
    return (running & set(todo)) or set(todo)


# -- a Dask cluster ----------------------------------------------------------------------------

def _connect(address):
    try:
        from distributed import Client
    except ImportError:
        raise HwgenError("running on a cluster needs Dask: pip install distributed") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise HwgenError(f"cannot reach the Dask scheduler at {address} "
                         f"(waited {CONNECT_TIMEOUT} s): {e}") from None


def _dask(fn, todo, address, retries, done):
    """Run ``todo`` on the Dask scheduler at ``address``; a job whose worker died
    (``KilledWorker``) is submitted again up to ``retries`` times."""
    client = _connect(address)
    try:
        with client.as_current():
            _run_on(client, fn, todo, retries, done)
    finally:
        client.close()


def _run_on(client, fn, todo, retries, done):
    """Submit ``todo`` to ``client``; hand each result to ``done`` as it arrives."""
    from distributed import KilledWorker, as_completed
    futures = {client.submit(_call, fn, job, pure=False): n for n, job in todo.items()}
    crashes = dict.fromkeys(todo, 0)
    stream = as_completed(list(futures))
    for f in stream:
        n = futures.pop(f)
        try:
            result = f.result()
        except KilledWorker:
            crashes[n] += 1
            if crashes[n] <= retries:
                again = client.submit(_call, fn, todo[n], pure=False)
                futures[again] = n
                stream.add(again)
                continue
            result = {"error": f"the worker running this job died ({crashes[n]} tries)"}
        except Exception as e:
            result = {"error": f"{type(e).__name__}: {e}"}
        done(n, result)
