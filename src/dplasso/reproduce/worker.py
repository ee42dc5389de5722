"""The process that executes one notebook for the runner (``python -m dplasso.reproduce.worker``).

The runner starts it in a session of its own and writes the pickled arguments of
:func:`~dplasso.reproduce.runner.execute_notebook` to its standard input; the worker writes the
pickled ``(kind, payload)`` result to its standard output (``("ok", RunRecord)`` or
``("failed", Failure)``, whose summary is one line naming the notebook, the path and the cause)
and sends everything else it prints to standard error. The kernel's connection file and IPC
sockets go to a runtime folder the runner made for this worker (its ``JUPYTER_RUNTIME_DIR`` and,
in this process, the temporary folder), removed when the worker ends. Told to stop (SIGTERM, SIGINT, SIGHUP), or when its runner dies (Linux
``PR_SET_PDEATHSIG``), it kills the processes it started (the kernel runs in a session of its
own), removes that folder and exits.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import shutil
import signal
import sys
import tempfile
import traceback

import psutil

from .registry import load_registry
from .runner import (
    STOP_SIGNALS,
    Failure,
    NotebookFailed,
    describe_os_error,
    execute_notebook,
    kill_tree,
    limit_blas_threads,
)

_RUNTIME = []  # this worker's kernel runtime folder, removed however the worker ends


def _die_with_parent(parent_pid: int) -> None:
    """Ask Linux to send SIGTERM when the parent dies; exit if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent_pid:
        os._exit(1)


def _stop(signum, frame) -> None:
    kill_tree(psutil.Process().children(recursive=True), grace=1.0)
    for folder in _RUNTIME:
        shutil.rmtree(folder, ignore_errors=True)
    os._exit(128 + signum)


def _run(root, name, params, overrides, out_dir, profile, force, jobs, run):
    """``("ok", RunRecord)`` or ``("failed", Failure)`` for one notebook."""
    try:
        return "ok", execute_notebook(load_registry(root), name, params, out_dir, profile,
                                      force=force, cell_progress=jobs == 1, run=run,
                                      overrides=overrides)
    except NotebookFailed as err:
        return "failed", err.failures[0]
    except OSError as err:
        return "failed", Failure(name, f"notebook {name!r}: {describe_os_error(err)}",
                                 traceback.format_exc())
    except Exception as err:  # any other error fails this notebook; the runner reports it
        return "failed", Failure(
            name, f"notebook {name!r} could not be executed: {type(err).__name__}: "
                  + " ".join(str(err).split()), traceback.format_exc())


def main() -> None:
    """Run one notebook from the arguments on standard input; report on standard output."""
    result = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # prints go to stderr, not the result
    (parent_pid, root, name, params, overrides, out_dir, profile, force, jobs, run,
     runtime) = pickle.load(sys.stdin.buffer)
    _die_with_parent(parent_pid)
    _RUNTIME.append(runtime)
    os.environ["JUPYTER_RUNTIME_DIR"] = runtime
    tempfile.tempdir = runtime  # where jupyter_client writes the connection file and sockets
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop)
    limit_blas_threads(jobs)
    try:
        report = _run(root, name, params, overrides, out_dir, profile, force, jobs, run)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    pickle.dump(report, result)
    result.close()


if __name__ == "__main__":
    main()
