"""The process that executes one notebook for the runner (``python -m dplasso.reproduce.worker``).

The runner starts it in a session of its own and writes the pickled arguments of
:func:`~dplasso.reproduce.runner.execute_notebook` to its standard input; the worker writes the
pickled ``(kind, payload)`` result to its standard output (``("ok", RunRecord)`` or
``("failed", message)``) and sends everything else it prints to standard error. Told to stop
(SIGTERM, SIGINT, SIGHUP), or when its runner dies (Linux ``PR_SET_PDEATHSIG``), it kills the
processes it started (the kernel runs in a session of its own) and exits.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
import traceback

import psutil

from .registry import load_registry
from .runner import NotebookFailed, execute_notebook, kill_tree, limit_blas_threads


def _die_with_parent(parent_pid: int) -> None:
    """Ask Linux to send SIGTERM when the parent dies; exit if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent_pid:
        os._exit(1)


def _stop(signum, frame) -> None:
    kill_tree(psutil.Process().children(recursive=True), grace=1.0)
    os._exit(128 + signum)


def main() -> None:
    """Run one notebook from the arguments on standard input; report on standard output."""
    result = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # prints go to stderr, not the result
    parent_pid, root, name, params, out_dir, profile, force, jobs = pickle.load(sys.stdin.buffer)
    _die_with_parent(parent_pid)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _stop)
    limit_blas_threads(jobs)
    try:
        record = execute_notebook(load_registry(root), name, params, out_dir, profile,
                                  force=force, cell_progress=jobs == 1)
        report = ("ok", record)
    except NotebookFailed as err:
        report = ("failed", str(err))
    except Exception:  # any other error fails this notebook; the runner reports it
        report = ("failed", f"notebook {name!r} could not be executed:\n{traceback.format_exc()}")
    pickle.dump(report, result)
    result.close()


if __name__ == "__main__":
    main()
