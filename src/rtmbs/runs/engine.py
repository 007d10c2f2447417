"""Many independent runs: in this process or on Dask (``dask.distributed``), docs/runs.md.

``run_many(fn, tasks, scheduler=...)`` returns ``[fn(t) for t in tasks]`` in order. With
``scheduler=None`` the tasks run here; ``"local"`` starts a ``LocalCluster`` of single-threaded
worker processes (one per core by default, BLAS and OpenMP limited to one thread); an address (``tcp://host:8786``)
uses a running cluster; a ``distributed.Client`` reuses one. As ``functools.partial(run_many,
scheduler="local")`` it is a ``map(fn, args_list)`` callable.
"""
from __future__ import annotations

import contextlib
import logging
import os

from ..errors import RtmbsError, SolverError

#: environment of the local workers: single-threaded BLAS/OpenMP
WORKER_THREADS_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                      "NUMEXPR_NUM_THREADS": "1"}


class TaskFailed(RtmbsError):
    """One or more tasks of :func:`run_many` raised; ``failures`` lists them (the other results
    are in ``results``, ``None`` where a task failed)."""

    def __init__(self, failures, results):
        self.failures = failures
        self.results = results
        first = failures[0]
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        super().__init__(f"{first.describe()}{more}")


class RunsInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM stopped :func:`run_many`: ``results`` is what it returns, for
    the tasks that had finished (a :class:`TaskFailure` for one that raised), ``None`` for the
    others. Also a ``KeyboardInterrupt``, so that code catching Ctrl-C keeps working."""

    def __init__(self, results: list):
        self.results = results
        self.done = sum(r is not None for r in results)
        super().__init__(f"interrupted after {self.done} of {len(results)} tasks")


class TaskFailure:
    """The outcome of a task that raised: its index, its label (its parameters) and the error."""

    def __init__(self, index: int, label: str, error: BaseException):
        self.index, self.label, self.error = index, label, error

    def describe(self) -> str:
        return f"task {self.index} ({self.label}) failed: {type(self.error).__name__}: {self.error}"

    def __repr__(self):
        return f"TaskFailure({self.describe()!r})"


def worker_env() -> dict:
    """Environment of local workers: one BLAS thread (and this process's ``PYTHONPATH``, so that
    they import the same rtmbs)."""
    env = dict(WORKER_THREADS_ENV)
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _worker_setup() -> dict:
    """On a worker: its process id and BLAS thread counts (checked by the client)."""
    from threadpoolctl import threadpool_info

    return {"pid": os.getpid(),
            "blas_threads": sorted({p["num_threads"] for p in threadpool_info()})}


@contextlib.contextmanager
def local_cluster(n_workers: int | None = None):
    """A ``distributed.Client`` on a new ``LocalCluster``: ``n_workers`` processes (default: the
    cores), one thread each, single-threaded BLAS; closed on exit."""
    from distributed import Client, LocalCluster

    n = int(n_workers or os.cpu_count() or 1)
    if n < 1:
        raise SolverError(f"workers = {n_workers!r}, expected a whole number >= 1")
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR, env=worker_env()) as cluster, \
            Client(cluster) as client:
        pids = [i["pid"] for i in _check_workers(client, strict=True).values()]
        try:
            yield client
        except KeyboardInterrupt:
            # Ctrl-C: the workers are killed first, so that the cluster closes at once (a
            # graceful close waits for the tasks they run; left to notice, they printed the
            # tracebacks of their lost connections); the scheduler and client, which log the
            # closed connections of the killed workers at ERROR with a traceback, keep quiet
            for name in ("distributed", "tornado"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
            _kill(pids)
            raise


def _kill(pids) -> None:
    import signal

    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:  # already gone
            pass


def _check_workers(client, strict: bool) -> dict:
    """Every worker runs BLAS on one thread (several threads per worker on shared cores slow every
    task down); a local cluster that does not is an error, a remote one a warning."""
    import warnings

    info = client.run(_worker_setup)
    bad = {w: i["blas_threads"] for w, i in info.items() if any(n != 1 for n in i["blas_threads"])}
    if bad:
        w, threads = sorted(bad.items())[0]
        msg = (f"Dask worker {w} runs BLAS on {max(threads)} threads, expected 1: start the workers "
               "with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1")
        if strict:
            raise SolverError(msg)
        warnings.warn(msg, stacklevel=3)
    return info


def check_scheduler(scheduler) -> None:
    """SolverError for a ``scheduler`` that is none of None, "local", an address, a Client."""
    if scheduler is None or scheduler == "local" or hasattr(scheduler, "submit") \
            or (isinstance(scheduler, str) and "://" in scheduler):
        return
    raise SolverError(f"scheduler = {scheduler!r}, expected None (in this process), 'local' "
                      "(a LocalCluster) or an address such as tcp://host:8786")


@contextlib.contextmanager
def _client(scheduler, n_workers):
    if hasattr(scheduler, "submit") and hasattr(scheduler, "gather"):
        yield scheduler  # a distributed.Client given by the caller
    elif scheduler == "local":
        with local_cluster(n_workers) as client:
            yield client
    elif isinstance(scheduler, str) and "://" in scheduler:
        from distributed import Client

        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise SolverError(f"scheduler {scheduler}: cannot connect ({exc})") from None
        with client:
            _check_workers(client, strict=False)
            yield client
    else:
        check_scheduler(scheduler)


def _call_batch(fn, items):
    """Run a batch of tasks on a worker: ("ok", result) or ("error", exception) per task."""
    out = []
    for t in items:
        try:
            out.append(("ok", fn(t)))
        except Exception as exc:  # one failed run: the others of the batch go on
            out.append(("error", exc))
    return out


def run_many(fn, tasks, scheduler=None, progress: bool = True, n_workers: int | None = None,
             labels=None, keep_going: bool = False, desc: str = "runs", batch: int = 1) -> list:
    """``[fn(t) for t in tasks]``, in this process (``scheduler=None``) or on Dask.

    ``labels`` (one string per task, e.g. its parameters) name a failed task. A task that raises
    does not stop the others: with ``keep_going`` its entry is a :class:`TaskFailure`, else
    :class:`TaskFailed` is raised once all have finished (``.results`` holds the others).
    ``fn`` and the tasks must be picklable for Dask (module-level functions). ``batch`` tasks go
    to a worker together (one Dask task): fewer round trips through the scheduler for short runs.
    Ctrl-C (SIGINT) or SIGTERM raises :class:`RunsInterrupted` holding the tasks finished so far
    (a local cluster's workers are killed, the running tasks lost)."""
    tasks = list(tasks)
    if not (isinstance(batch, int) and batch >= 1):
        raise SolverError(f"batch = {batch!r}, expected a whole number >= 1")
    labels = list(labels) if labels is not None else [repr(t)[:80] for t in tasks]
    bar = None
    if progress and tasks:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), unit="run", desc=desc, leave=False, mininterval=0.5)
    results: list = [None] * len(tasks)
    failures: list[TaskFailure] = []
    try:
        if scheduler is None:
            for i, t in enumerate(tasks):
                try:
                    results[i] = fn(t)
                except KeyboardInterrupt:
                    raise RunsInterrupted(_with_failures(results, failures)) from None
                except MemoryError:
                    raise
                except Exception as exc:  # one failed run: named, the others go on
                    failures.append(TaskFailure(i, labels[i], exc))
                if bar is not None:
                    bar.update(1)
        else:
            from distributed import as_completed

            with _client(scheduler, n_workers) as client:
                starts = range(0, len(tasks), batch)
                futures = [client.submit(_call_batch, fn, tasks[i:i + batch], pure=False) for i in starts]
                index = {f.key: i for i, f in zip(starts, futures)}
                try:
                    for fut in as_completed(futures):
                        i0 = index[fut.key]
                        k = min(batch, len(tasks) - i0)
                        if fut.status == "error":  # the batch itself failed (e.g. unpicklable)
                            outs = [("error", fut.exception())] * k
                        else:
                            outs = fut.result()
                        for i, (kind, value) in enumerate(outs, start=i0):
                            if kind == "error":
                                failures.append(TaskFailure(i, labels[i], value))
                            else:
                                results[i] = value
                        if bar is not None:
                            bar.update(k)
                except KeyboardInterrupt:
                    raise RunsInterrupted(_with_failures(results, failures)) from None
                finally:
                    client.cancel(futures)
    finally:
        if bar is not None:
            bar.close()
    failures.sort(key=lambda f: f.index)
    if failures and not keep_going:
        raise TaskFailed(failures, results)
    return _with_failures(results, failures)


def _with_failures(results: list, failures: list) -> list:
    """``results`` with each failed task's :class:`TaskFailure` in its place."""
    out = list(results)
    for f in failures:
        out[f.index] = f
    return out
