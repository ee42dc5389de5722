"""The runner's shared pool of unit workers (``python -m dplasso.reproduce.cluster N``).

With ``--jobs N > 1``, ``dplasso reproduce`` runs up to ``N`` notebooks at once and, when the
``dask`` extra is installed and no ``--scheduler`` is given, starts this process: a Dask
``LocalCluster`` of ``N`` single-threaded worker processes listening on 127.0.0.1 only. The
runner hands its address to every notebook (``DPLASSO_SCHEDULER``), so the experiment units of
all running notebooks share the ``N`` workers (:func:`dplasso.experiments.execution.run_tasks`):
a notebook in a serial stretch, or the last one running, leaves its share of the cores to the
others' units instead of idling them. A unit's randomness comes from its grid coordinates, so
results do not depend on where it runs.

The process prints the scheduler's address on its first line, then waits until its standard
input closes (the runner ends the run) or a stop signal arrives; it runs in a session of its
own, so a terminal's Ctrl-C reaches the runner only, and dies with the runner (Linux
``PR_SET_PDEATHSIG``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile

__all__ = ["START_TIMEOUT", "main", "start_cluster"]

START_TIMEOUT = 120.0
"""Seconds the cluster has to print its address before the runner gives up on it."""


def start_cluster(n_workers: int) -> tuple[subprocess.Popen, str]:
    """Start the cluster process; ``(process, scheduler address)``.

    Raises
    ------
    RuntimeError
        When it does not print an address within :data:`START_TIMEOUT` seconds (it is killed).
    """
    import selectors

    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "dplasso.reproduce.cluster", str(n_workers), str(os.getpid())],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        start_new_session=True, env=env)
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout=START_TIMEOUT)
    line = process.stdout.readline().decode().strip() if ready else ""
    if not line.startswith("tcp://"):
        stop_cluster(process)
        raise RuntimeError(f"the local Dask cluster of {n_workers} workers did not start "
                           f"within {START_TIMEOUT:g} s")
    return process, line


def stop_cluster(process: subprocess.Popen, grace: float = 10.0) -> None:
    """End the cluster process (and its workers): its input closes, then SIGTERM, then SIGKILL."""
    with contextlib.suppress(OSError):
        process.stdin.close()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(OSError):
        process.stdout.close()


def main() -> None:
    """Run a cluster of ``argv[1]`` workers until standard input closes or a stop signal (or
    the death of process ``argv[2]``, the runner) arrives; then end it and every process of its
    session."""
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    from .worker import _die_with_parent

    n_workers, parent = int(sys.argv[1]), int(sys.argv[2])
    _die_with_parent(parent)
    scratch = tempfile.mkdtemp(prefix="dplasso-units-")
    os.environ["DASK_TEMPORARY_DIRECTORY"] = scratch  # its workers' files, removed at the end
    try:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None,
                               local_directory=scratch, silence_logs=logging.CRITICAL)
        print(cluster.scheduler_address, flush=True)
        sys.stdin.read()
        with contextlib.suppress(Exception):  # the run ended: a clean close
            cluster.close(timeout=5)
    except KeyboardInterrupt:  # stopped: no time for a clean close
        pass
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        import psutil

        left = psutil.Process().children(recursive=True)  # whatever of its workers is left
        for process in left:
            with contextlib.suppress(psutil.Error):
                process.kill()
        psutil.wait_procs(left, timeout=5)
        shutil.rmtree(scratch, ignore_errors=True)
    os._exit(0)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
