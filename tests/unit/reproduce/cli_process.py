"""``dplasso`` run as a user runs it, in a process of its own, with its CPU time measured."""
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

FAULTS = Path(__file__).resolve().parent / "faults"
CPU_LIMIT = 1.0  # seconds of CPU from the command's start to its answer


def run_cli(argv, root, *, faults=(), kill=None, env=None, timeout=120):
    """``dplasso ARGV`` in a process of its own; ``(exit status, stdout, stderr, CPU s)``."""
    full_env = {**os.environ, "DPLASSO_ROOT": str(root), **(env or {}),
                "PYTHONPATH": os.pathsep.join([str(FAULTS), os.environ.get("PYTHONPATH", "")]),
                "DPLASSO_TEST_FAULTS": json.dumps(list(faults))}
    if kill is not None:
        full_env["DPLASSO_TEST_KILL"] = json.dumps(kill)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "dplasso.cli", *argv], env=full_env,
                          capture_output=True, text=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.returncode, done.stdout, done.stderr, cpu
