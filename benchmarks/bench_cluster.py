"""Speed-up of a Dask LocalCluster over the sequential run, on one experiment grid.

The grid is the main one of ``beyond-p1`` (:func:`dplasso.experiments.beyond.beyond_p1_experiment`)
with the ``ci`` profile's parameters (``params/ci.yaml``): each split's references, then each
(dataset, budget) block of private runs, is one task of :mod:`dplasso.experiments.execution`.
Measured, in this order, with one BLAS thread in this process and in every worker:

1. the grid in this process (``n_jobs=1``, no scheduler), after the datasets were loaded once;
2. the start of a ``LocalCluster`` (``--workers`` processes of one thread on 127.0.0.1, no
   dashboard) until every worker has imported the experiment module;
3. the same grid on the cluster (``DPLASSO_SCHEDULER`` set), whose results must equal the
   sequential ones exactly, else the script fails.

Writes a Markdown record (``--out``, default ``book/cluster-speedup.md``, which the
reproducing chapter includes) and prints it.

Usage: ``python benchmarks/bench_cluster.py [--workers N] [--out PATH]``.
"""
from __future__ import annotations

import argparse
import datetime
import importlib
import os
import platform
import subprocess
import time
from pathlib import Path

import pandas as pd
import yaml
from distributed import Client, LocalCluster
from threadpoolctl import threadpool_limits

from dplasso.experiments.beyond import beyond_p1_experiment, load_beyond_data
from dplasso.experiments.execution import SCHEDULER_ENV_VAR

ROOT = Path(__file__).resolve().parents[1]
GRID = "beyond-p1"


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def _grid(params):
    return beyond_p1_experiment(params["datasets"], epsilons=params["epsilons"],
                                n_trials=params["n_trials"], n_splits=params["n_splits"],
                                synthetic=params["synthetic"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "book" / "cluster-speedup.md")
    args = parser.parse_args()
    params = yaml.safe_load((ROOT / "params" / "ci.yaml").read_text())[GRID]
    os.environ.pop(SCHEDULER_ENV_VAR, None)
    load_before = os.getloadavg()[0]
    with threadpool_limits(1):
        for dataset in params["datasets"]:
            load_beyond_data(dataset, scaling="standard", synthetic=params["synthetic"])
        started = time.perf_counter()
        sequential = _grid(params)
        seconds_sequential = time.perf_counter() - started

        started = time.perf_counter()
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address=None) as cluster:
            with Client(cluster) as client:
                client.run(importlib.import_module, "dplasso.experiments.beyond")
            seconds_start = time.perf_counter() - started
            os.environ[SCHEDULER_ENV_VAR] = cluster.scheduler_address
            started = time.perf_counter()
            distributed = _grid(params)
            seconds_cluster = time.perf_counter() - started
            os.environ.pop(SCHEDULER_ENV_VAR)
    load_after = os.getloadavg()[0]
    pd.testing.assert_frame_equal(sequential, distributed, check_exact=True)
    n_tasks = len(params["datasets"]) * (params["n_splits"] + len(params["epsilons"]))
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    record = (
        f"Measured by `python benchmarks/bench_cluster.py --workers {args.workers}` on {today} "
        f"(commit `{_commit()}`, {platform.machine()} with {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}), on the `{GRID}` grid of the `ci` profile: "
        f"{n_tasks} tasks (each split's references, then each dataset and budget's private "
        f"runs), one BLAS thread per process. The results on the cluster equal the sequential "
        f"ones exactly. The 1-minute load average of the machine was {load_before:.1f} before "
        f"and {load_after:.1f} after the runs: with more runnable processes than cores, the "
        f"workers share the cores with other work and the speed-up falls below the "
        f"{min(args.workers, os.cpu_count())} that {args.workers} workers on idle cores "
        f"could reach at best.\n\n"
        "| run | wall time (s) |\n|---|---:|\n"
        f"| sequential, in one process | {seconds_sequential:.1f} |\n"
        f"| LocalCluster, {args.workers} worker processes | {seconds_cluster:.1f} |\n"
        f"| start of that LocalCluster (not in the line above) | {seconds_start:.1f} |\n\n"
        f"Speed-up of the cluster over the sequential run: "
        f"**{seconds_sequential / seconds_cluster:.2f}x**.\n")
    args.out.write_text(record)
    print(record)


if __name__ == "__main__":
    main()
