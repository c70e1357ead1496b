"""Where joblib runs parallel work: its own worker processes, or a Dask cluster (``tsattn[dask]``).

Benchmark grids (``tsattn bench classify``) and the cross-validation folds of
:func:`tsattn.tuning.tune` hand their fits to ``joblib.Parallel``; :func:`parallel_backend` picks
where they run. With a Dask scheduler the same code spreads over machines: start ``dask scheduler``
on one, ``dask worker tcp://HOST:8786 --nworkers N --nthreads 1`` on each, and pass the address.
Dask is imported only here and only when a scheduler is asked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["DaskMissingError", "cores_left", "cpu_sample", "free_cores", "parallel_backend", "usable_cores",
           "worker_threads"]


class DaskMissingError(ImportError):
    """A Dask scheduler was asked for but ``dask.distributed`` is not installed."""


def _distributed():
    try:
        import distributed
    except ImportError as err:
        raise DaskMissingError(
            "running on a Dask scheduler needs dask.distributed: pip install 'tsattn[dask]' "
            "(or leave the scheduler out to run in local processes)"
        ) from err
    return distributed


@contextlib.contextmanager
def parallel_backend(n_jobs: int, scheduler: str | None, timeout: float = 10.0) -> Iterator[int]:
    """Make joblib run on ``scheduler`` inside the block; yields the number of parallel workers.

    ``scheduler=None``: joblib's default (``n_jobs`` local processes), yields ``n_jobs``.
    ``"local"``: a Dask ``LocalCluster`` of ``n_jobs`` single-threaded worker processes, closed
    at the end of the block. Otherwise the address of a running Dask scheduler
    (``tcp://host:8786``); a scheduler that cannot be reached within ``timeout`` seconds raises a
    ``ValueError`` before any work is sent.
    """
    import joblib

    if not scheduler:
        yield n_jobs
        return
    if not isinstance(scheduler, str):
        raise ValueError(
            f"scheduler must be 'local' or a Dask scheduler address such as tcp://host:8786; "
            f"got {scheduler!r}."
        )
    distributed = _distributed()
    cluster = None
    if scheduler == "local":
        cluster = distributed.LocalCluster(
            n_workers=max(1, n_jobs), threads_per_worker=1, processes=True,
            dashboard_address=None,
        )  # fmt: skip
    try:
        client = distributed.Client(cluster if cluster is not None else scheduler,
                                    timeout=f"{timeout}s")  # fmt: skip
    except (OSError, ValueError, TypeError) as err:
        if cluster is not None:
            cluster.close()
        raise ValueError(
            f"cannot reach the Dask scheduler {scheduler!r}: {err}. Start one with `dask "
            "scheduler` and workers with `dask worker tcp://HOST:8786`, or use 'local'."
        ) from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield max(1, len(client.scheduler_info()["workers"]))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the platform has one (``taskset``,
    container CPU sets), else ``os.cpu_count()``."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def worker_threads(n_workers: int, scheduler: str | None) -> int:
    """Torch threads for each of ``n_workers`` fits at once: this process's cores shared among
    local workers; 1 on a Dask cluster, whose workers are started one per core."""
    if scheduler:
        return 1
    return max(1, usable_cores() // max(1, n_workers))


def cpu_sample() -> tuple[float, float, float] | None:
    """``(idle, total, own)`` CPU seconds so far: idle and all time of every CPU of the machine
    (Linux ``/proc/stat``) and this process's own (every thread); None where there is no
    ``/proc/stat``. Between two samples, ``cpu_count * (idle + own) / total`` cores were left to
    this process by the others."""
    import os

    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [float(v) for v in f.readline().split()[1:]]
        hz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None
    times = os.times()
    # user nice system idle iowait irq softirq steal (guest time is counted in user already)
    return (fields[3] + fields[4]) / hz, sum(fields[:8]) / hz, times.user + times.system


def cores_left(first: tuple[float, float, float], second: tuple[float, float, float]) -> float | None:
    """Cores that other processes left to this one between two :func:`cpu_sample` (idle ones and
    those this process used itself); None when no time passed."""
    import os

    total = second[1] - first[1]
    if total <= 0:
        return None
    left = (second[0] - first[0] + second[2] - first[2]) / total
    return min(1.0, max(0.0, left)) * (os.cpu_count() or usable_cores())


def free_cores(interval: float = 0.05) -> int:
    """The cores of this process (:func:`usable_cores`) that other processes leave to it, measured
    over ``interval`` seconds (Linux; elsewhere the 1-minute load average, else every usable core);
    at least 1. A core busy with another process is not free: a thread of ours scheduled there
    would wait for it, and make every other thread of the same parallel op wait too."""
    import os
    import time

    usable = usable_cores()
    first = cpu_sample()
    if first is not None:
        time.sleep(interval)
        left = cores_left(first, cpu_sample())
        if left is not None:
            return max(1, min(usable, int(left + 0.5)))
    if hasattr(os, "getloadavg"):
        return max(1, min(usable, int(usable - os.getloadavg()[0] + 0.5)))
    return usable
