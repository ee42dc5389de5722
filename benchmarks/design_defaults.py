"""The design runs behind the library's defaults, on the synthetic family only.

Runs :mod:`dplasso.experiments.design` and writes each table to
``book/paper-results/design-<name>.csv`` (the "Beyond P1" chapter shows them and says which
default each one set), printing a one-line summary per table. Nothing here reads a dataset
the book evaluates. Each configuration is one task (its randomness comes from the
configuration and the grid alone), so ``--jobs`` workers give the same table.

Usage: ``python benchmarks/design_defaults.py [selection] [joint] [margin] [l2] [weights]
[radius] [--trials K] [--jobs J] [--out DIR]`` (default: every table, at the trial counts of
the record, one process).
"""
from __future__ import annotations

import argparse
import time
from functools import partial
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from dplasso.experiments.design import (
    BINARY_FAMILY,
    NULL_FAMILY,
    WIDE_FAMILY,
    WIDE_NULL_FAMILY,
    joint_design,
    l2_design,
    margin_design,
    radius_design,
    selection_design,
    weights_design,
)
from dplasso.experiments.execution import run_tasks

ROOT = Path(__file__).resolve().parents[1]
TABLES = {  # name: (design, its configurations, the record's trials)
    "selection": (selection_design, BINARY_FAMILY, 16),
    "joint": (joint_design, BINARY_FAMILY + WIDE_FAMILY, 16),
    "margin": (margin_design, BINARY_FAMILY + WIDE_FAMILY + NULL_FAMILY + WIDE_NULL_FAMILY, 16),
    "l2": (l2_design, BINARY_FAMILY + WIDE_FAMILY, 8),
    "weights": (weights_design, BINARY_FAMILY + WIDE_FAMILY, 16),
    "radius": (radius_design, BINARY_FAMILY, 16),
}


def design_table(name, trials=None, jobs=1):
    """The table ``name`` of :data:`TABLES`, one task per configuration on ``jobs`` workers."""
    design, configs, record_trials = TABLES[name]
    with tqdm(total=len(configs), desc=f"{name} design") as bar:
        parts = run_tasks(partial(design, n_trials=trials or record_trials),
                          [([config],) for config in configs], n_jobs=jobs,
                          on_result=lambda index, result: bar.update())
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", choices=[*TABLES, []], default=[])
    parser.add_argument("--trials", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "book" / "paper-results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.tables or TABLES:
        started = time.perf_counter()
        table = design_table(name, args.trials, args.jobs)
        path = args.out / f"design-{name}.csv"
        tmp = path.with_suffix(".tmp")
        table.to_csv(tmp, index=False)
        tmp.replace(path)
        print(f"{name}: {len(table)} rows in {time.perf_counter() - started:.0f} s -> {path}",
              flush=True)


if __name__ == "__main__":
    main()
