"""Where an experiment's independent tasks run: this process, joblib workers or a Dask cluster.

The experiment functions cut their grids into tasks (a dataset's split, a budget, a seed)
whose randomness comes from their grid coordinates alone, so a task's result does not
depend on where, in which order or beside which other tasks it runs. :func:`run_tasks`
only decides where they run:

- the environment variable ``DPLASSO_SCHEDULER`` holds a Dask scheduler address (set by
  ``dplasso reproduce --scheduler ADDRESS``, or by hand for a notebook): on that cluster,
  through ``distributed.Client``; needs the optional ``dask`` extra
  (``pip install "dplasso[dask]"``) here and on the workers, which also need ``dplasso``;
- otherwise ``n_jobs == 1``: one after the other in this process;
- otherwise joblib's default (process) backend with ``n_jobs`` workers (``-1``: one per
  core).

Dask is imported in the first case only.
"""
from __future__ import annotations

import numbers
import os
import re

SCHEDULER_ENV_VAR = "DPLASSO_SCHEDULER"
UNIT_STATS_ENV_VAR = "DPLASSO_UNIT_STATS"
"""A file to which :func:`dplasso.experiments.checkpoint.cached_tasks` appends one JSON line per
call: how many units it read and computed, and the seconds each took when computed (the
runner sets it per notebook and records the sums in ``run.json``)."""
CONNECT_TIMEOUT = 5.0
"""Seconds a scheduler has to answer before :func:`connect` gives up."""

SCHEDULER_PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
"""The address schemes of ``distributed``'s network communication layer."""
_ADDRESS = re.compile(r"^(?P<scheme>[a-z]+)://(?P<host>\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+)"
                      r"(?::(?P<port>\d+))?/?$")

__all__ = ["CONNECT_TIMEOUT", "SCHEDULER_ENV_VAR", "SCHEDULER_PROTOCOLS", "UNIT_STATS_ENV_VAR",
           "SchedulerLost", "check_n_jobs",
           "check_scheduler_address", "connect", "run_tasks", "scheduler_address"]


def scheduler_address() -> str | None:
    """The Dask scheduler address in ``DPLASSO_SCHEDULER``, or None when unset or empty."""
    return os.environ.get(SCHEDULER_ENV_VAR, "").strip() or None


def check_scheduler_address(address) -> str:
    """``address`` if it reads as a scheduler address, ``<scheme>://<host>[:<port>]`` with a
    scheme of :data:`SCHEDULER_PROTOCOLS` and a port in 1..65535; a one-line ``ValueError``
    naming ``--scheduler`` otherwise, before dask is imported (a malformed address made
    ``distributed.Client`` print a traceback and wait 10 s on exit)."""
    match = _ADDRESS.match(address) if isinstance(address, str) else None
    if not match or match["scheme"] not in SCHEDULER_PROTOCOLS or (
            match["port"] is not None and not 1 <= int(match["port"]) <= 65535):
        raise ValueError(
            f"--scheduler {address!r} is not a Dask scheduler address: write "
            f"<scheme>://<host>:<port> with a scheme of {', '.join(SCHEDULER_PROTOCOLS)} and a "
            "port in 1..65535, e.g. tcp://10.0.0.5:8786")
    return address


def connect(address, *, timeout=CONNECT_TIMEOUT):
    """A ``distributed.Client`` of the scheduler at ``address`` (use it as a context manager).

    Raises
    ------
    ImportError
        When ``distributed`` is not installed, naming the extra that provides it.
    ConnectionError
        When no scheduler answers at ``address`` within ``timeout`` seconds (or what
        answers is not one).
    """
    check_scheduler_address(address)
    try:
        from distributed import Client
    except ImportError as err:
        raise ImportError(f"a Dask scheduler ({address!r}) needs dask and distributed: "
                          'pip install "dplasso[dask]"') from err
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except Exception as err:  # refused, timed out, or something else answered
        raise ConnectionError(f"no Dask scheduler answered at {address!r} within {timeout:g} s "
                              f"({type(err).__name__}: {err})") from err


def check_n_jobs(n_jobs):
    """``n_jobs`` as an int: ``>= 1`` workers, or ``-1`` (one per core); the experiment
    functions check it first, before any dataset loads."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be an int, got {n_jobs!r}")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be >= 1 or -1 (one per core), got {n_jobs}")
    return int(n_jobs)


def _indexed(function, index, task):
    return index, function(*task)


def run_tasks(function, tasks, *, n_jobs=1, on_result=None):
    """``[function(*task) for task in tasks]``, each task run where the module docstring says.

    Parameters
    ----------
    function : callable
        Applied to each task's arguments; it and the arguments must pickle (with
        cloudpickle) unless everything runs in this process.
    tasks : sequence of tuple
        The positional arguments of each call.
    n_jobs : int, default=1
        joblib workers when no scheduler is set (1: this process).
    on_result : callable, optional
        ``on_result(index, result)``, called in this process as each result arrives (in
        completion order), e.g. to write a checkpoint, so an interrupted run keeps every
        finished task.

    Returns
    -------
    list
        The results, in the order of ``tasks``.
    """
    n_jobs = check_n_jobs(n_jobs)
    tasks = [tuple(task) for task in tasks]
    address = scheduler_address()
    if address is not None and tasks:
        arrivals = _on_cluster(address, function, tasks)
    elif n_jobs == 1 or len(tasks) <= 1:
        arrivals = ((i, function(*task)) for i, task in enumerate(tasks))
    else:
        from joblib import Parallel, delayed
        arrivals = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_indexed)(function, i, task) for i, task in enumerate(tasks))
    results = [None] * len(tasks)
    for index, result in arrivals:
        results[index] = result
        if on_result is not None:
            on_result(index, result)
    return results


class SchedulerLost(ConnectionError):
    """The Dask scheduler went away while tasks ran on it (killed, its machine gone): Dask
    cancels every task it had, and this says so in one line naming the address."""


def _on_cluster(address, function, tasks):
    """``(index, result)`` pairs from the cluster at ``address``, as they complete.

    Raises
    ------
    SchedulerLost
        When the connection to the scheduler is lost before every task finished.
    """
    from concurrent.futures import CancelledError

    from distributed import as_completed
    with connect(address) as client:
        futures = [client.submit(_indexed, function, i, task, pure=False)
                   for i, task in enumerate(tasks)]
        try:
            for future in as_completed(futures, loop=client.loop):
                yield future.result()
        except CancelledError as err:
            reason = getattr(err, "reason", None)
            if reason != "scheduler-connection-lost" and client.status == "running":
                raise
            raise SchedulerLost(
                f"the Dask scheduler at {address} was lost during the run (Dask: "
                f"{reason or client.status}); the tasks it had were cancelled: rerun once it "
                "answers again (with a unit cache, the units already done are not run again)"
            ) from None
