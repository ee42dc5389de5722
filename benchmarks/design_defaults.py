"""The design runs behind the library's defaults, on the synthetic family only.

Runs :mod:`dplasso.experiments.design` and writes each table to
``book/paper-results/design-<name>.csv`` (the "Beyond P1" chapter shows them and says which
default each one set), printing a one-line summary per table. Nothing here reads a dataset
the book evaluates.

Usage: ``python benchmarks/design_defaults.py [selection] [joint] [margin] [l2] [weights]
[radius] [--trials K] [--out DIR]`` (default: every table, at the trial counts of the record).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from dplasso.experiments.design import (
    joint_design,
    l2_design,
    margin_design,
    radius_design,
    selection_design,
    weights_design,
)

ROOT = Path(__file__).resolve().parents[1]
TABLES = {
    "selection": lambda trials: selection_design(n_trials=trials or 16, progress=True),
    "joint": lambda trials: joint_design(n_trials=trials or 16, progress=True),
    "margin": lambda trials: margin_design(n_trials=trials or 16, progress=True),
    "l2": lambda trials: l2_design(n_trials=trials or 8, progress=True),
    "weights": lambda trials: weights_design(n_trials=trials or 16, progress=True),
    "radius": lambda trials: radius_design(n_trials=trials or 16, progress=True),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", choices=[*TABLES, []], default=[])
    parser.add_argument("--trials", type=int, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "book" / "paper-results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.tables or TABLES:
        started = time.perf_counter()
        table = TABLES[name](args.trials)
        path = args.out / f"design-{name}.csv"
        tmp = path.with_suffix(".tmp")
        table.to_csv(tmp, index=False)
        tmp.replace(path)
        print(f"{name}: {len(table)} rows in {time.perf_counter() - started:.0f} s -> {path}",
              flush=True)


if __name__ == "__main__":
    main()
