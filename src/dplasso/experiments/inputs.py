"""Validation of the experiments' settings and their seeds, shared by P1's and the later
chapters' experiment modules.

Each check returns the validated value (a list for the sequences) or raises a
``ValueError`` naming the setting. A run's generator is keyed by its settings, never by
what else ran (:func:`noise_rng`, :func:`split_seed`).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from dplasso.data import dataset_info
from dplasso.experiments.names import SYNTHETIC

__all__ = [
    "SYNTHETIC",
    "SYNTHETIC_KEYS",
    "check_int",
    "check_epsilons",
    "check_datasets",
    "check_openml_id",
    "check_splits_by_dataset",
    "check_synthetic",
    "split_seed",
    "noise_rng",
]

SYNTHETIC_KEYS = ("n", "p", "k", "coef_value")
"""The sizes a ``synthetic`` setting may give."""


def check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_epsilons(epsilons, name="epsilons"):
    epsilons = [epsilons] if isinstance(epsilons, numbers.Real) else list(epsilons)
    bad = [e for e in epsilons if isinstance(e, bool) or not isinstance(e, numbers.Real)
           or not math.isfinite(e) or e <= 0]
    if not epsilons or bad:
        raise ValueError(f"{name} must hold finite numbers > 0, got {epsilons}")
    if len(set(epsilons)) != len(epsilons):
        raise ValueError(f"{name} must be distinct, got {epsilons}")
    return [float(e) for e in epsilons]


def check_datasets(datasets):
    datasets = [datasets] if isinstance(datasets, (str, numbers.Integral)) else list(datasets)
    if not datasets:
        raise ValueError("datasets must name at least one dataset")
    if len(set(datasets)) != len(datasets):
        raise ValueError(f"datasets must be distinct, got {datasets}")
    for dataset in datasets:
        if dataset != SYNTHETIC and not _is_openml_id(dataset):
            raise ValueError(f"each dataset must be an OpenML dataset id (a positive integer) or "
                             f"{SYNTHETIC!r}, got {dataset!r}")
    return datasets


def _is_openml_id(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > 0


def check_openml_id(dataset, task=None) -> int:
    """``dataset`` as an int if it is an OpenML dataset id (of a ``task`` dataset, "binary" or
    "multiclass", when given: :func:`dplasso.data.dataset_info` reads it), else a
    ``ValueError`` naming it."""
    if not _is_openml_id(dataset):
        raise ValueError(f"dataset must be an OpenML dataset id (a positive integer) or "
                         f"{SYNTHETIC!r}, got {dataset!r}")
    if task is not None and (info := dataset_info(int(dataset))).task != task:
        raise ValueError(f"dataset {dataset} ({info.name}) is {info.task}, not {task}")
    return int(dataset)


def check_splits_by_dataset(splits_by_dataset, datasets):
    """``{dataset: n_splits}`` with decimal-string keys (papermill's) read as OpenML ids."""
    overrides = {int(key) if isinstance(key, str) and key.isdigit() else key: value
                 for key, value in (splits_by_dataset or {}).items()}
    unknown = sorted(map(str, set(overrides) - set(datasets)))
    if unknown:
        raise ValueError(f"splits_by_dataset names datasets not in datasets: {unknown}")
    return {key: check_int(f"splits_by_dataset[{key!r}]", value, 1)
            for key, value in overrides.items()}


def check_synthetic(synthetic):
    synthetic = dict(synthetic or {})
    unknown = sorted(set(synthetic) - set(SYNTHETIC_KEYS))
    if unknown:
        raise ValueError(f"synthetic takes the keys {SYNTHETIC_KEYS}, got unknown {unknown}")
    return synthetic


def split_seed(seed, code):
    """A 32-bit seed for the splits of one dataset."""
    return int(np.random.SeedSequence([seed, code, 0x5EED]).generate_state(1)[0])


def noise_rng(seed, code, epsilon, split, method):
    """The generator of one batched run; ``epsilon`` enters by its exact float bits."""
    bits = int(np.float64(epsilon).view(np.uint64))
    return np.random.default_rng(np.random.SeedSequence([seed, code, bits, split, method]))
