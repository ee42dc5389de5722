"""The default model's targets at a reduced size, before the paper run.

Runs :func:`dplasso.experiments.beyond.beyond_p1_experiment` on the 13 binary datasets (and
optionally :func:`~dplasso.experiments.beyond.multiclass_experiment` on the multiclass ones)
at the chosen budgets and trial counts, then prints the targets table of the "Beyond P1"
chapter (:func:`dplasso.experiments.beyond_display.targets_table`), the default beside the L2
reference per dataset, and the wall time of each dataset's grid. Checkpoints go to
``--cache`` so an interrupted run resumes.

Usage: ``python benchmarks/measure_targets.py [--epsilons 1 2 5] [--trials 10] [--splits 5]
[--multiclass-trials 4] [--cache DIR] [--out CSV]``.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from dplasso.data import catalog_ids
from dplasso.experiments.beyond import beyond_p1_experiment, multiclass_experiment
from dplasso.experiments.beyond_display import below_table, headline_table, targets_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 2.0, 5.0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--multiclass-trials", type=int, default=0)
    parser.add_argument("--multiclass-epsilons", type=float, nargs="+", default=[5.0])
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    frames, seconds = [], {}
    for dataset in catalog_ids("binary"):
        started = time.perf_counter()
        frames.append(beyond_p1_experiment([dataset], epsilons=args.epsilons,
                                           n_trials=args.trials, n_splits=args.splits,
                                           cache_dir=args.cache))
        seconds[dataset] = time.perf_counter() - started
        print(f"dataset {dataset}: {seconds[dataset]:.0f} s", flush=True)
    results = pd.concat(frames, ignore_index=True)
    multiclass = None
    if args.multiclass_trials:
        started = time.perf_counter()
        multiclass = multiclass_experiment(
            list(catalog_ids("multiclass")), epsilons=args.multiclass_epsilons,
            n_trials=args.multiclass_trials, n_splits=min(args.splits, args.multiclass_trials),
            cache_dir=args.cache)
        print(f"multiclass: {time.perf_counter() - started:.0f} s", flush=True)
    if args.out is not None:
        results.to_csv(args.out, index=False)
        if multiclass is not None:
            multiclass.to_csv(args.out.with_name(args.out.stem + "-multiclass.csv"),
                              index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(headline_table(results, args.epsilons).round(3).to_string(index=False))
        print(below_table(results, args.epsilons).round(3).to_string(index=False))
        print(targets_table(results, multiclass).to_string(index=False))
    print(f"total {sum(seconds.values()):.0f} s over the binary datasets")


if __name__ == "__main__":
    main()
