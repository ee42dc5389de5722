r"""The count-sensitivity probe (artifact ``p1-count-sensitivity``): parameters in, a table out.

Per dataset, the largest change of the Sparsifier's non-private count (nonzeros of the
L1-constrained fit at the Sparsifier's radius, intercept not counted) that the audit's
neighbour search finds, beside the declared sensitivity. Each dataset's search is one unit of
the unit cache (:mod:`dplasso.experiments.checkpoint`).
"""
from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd

from dplasso.audit.sensitivity import sensitivity_search
from dplasso.audit.statistics import LassoSupportSize
from dplasso.data.catalog import load_dataset
from dplasso.estimators.params import DEFAULT_COUNT_FRACTION, DEFAULT_LAM
from dplasso.experiments.checkpoint import cached_tasks
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.p1 import P1_COUNT_SENSITIVITY

__all__ = ["FLIP_EVERY_LABEL_UP_TO", "count_sensitivity_experiment"]


FLIP_EVERY_LABEL_UP_TO = 256
"""Datasets of at most this many rows also get every row's label flipped (``n`` more solves):
on arcene (200 rows) the sampled rows found a change of 6 where flipping row 86's label moves
the count by 7, and no first-order leverage score of the rows ranked that flip high."""


def count_sensitivity_experiment(dataset_ids, *, lam=DEFAULT_LAM,
                                 declared=P1_COUNT_SENSITIVITY, n_rows=4,
                                 n_random=4, ascent_starts=1, ascent_rounds=1,
                                 max_coordinates=10, count_fraction=DEFAULT_COUNT_FRACTION,
                                 seed=0, cache_dir=None, progress=False, n_jobs=1):
    r"""The ``p1-count-sensitivity`` searches: the count's largest change found per dataset.

    For each dataset (all rows, as preprocessed), :func:`dplasso.audit.sensitivity_search`
    of :class:`dplasso.audit.LassoSupportSize` (the Sparsifier's count: nonzeros of the
    L1-constrained fit at radius ``lam``, intercept inside the ball and not counted), over
    random replacement rows, rows aligned with the solution and the gradient at it,
    duplicated extreme rows, flipped labels (of the sampled rows; of every row on datasets of
    at most :data:`FLIP_EVERY_LABEL_UP_TO` rows), and a coordinate ascent from the best pairs
    found. Every evaluation is one accurate solve; the budget is set by the arguments
    (evaluations :math:`\approx` ``n_rows * (n_random + 17) + ascent_starts * ascent_rounds
    * (2 max_coordinates + 1)``, plus ``n`` on the small datasets).

    Parameters
    ----------
    dataset_ids : sequence of int
        OpenML ids of binary catalogue datasets.
    lam : float, default=10.0
        The Sparsifier's radius.
    declared : int, default=1
        The count sensitivity tested: P1's :data:`~dplasso.experiments.p1.P1_COUNT_SENSITIVITY`.
    n_rows, n_random, ascent_starts, ascent_rounds, max_coordinates
        Search budget (:func:`dplasso.audit.sensitivity_search`).
    count_fraction : float, default=0.25
        The Sparsifier's count share :math:`f`, for the privacy columns.
    seed : int, default=0
        Dataset ``k``'s search draws from ``SeedSequence([seed, k])``.
    cache_dir : path-like or None, default=None
        The unit cache (:mod:`dplasso.experiments.checkpoint`): one unit per dataset.
    progress : bool, default=False
    n_jobs : int, default=1
        Where the per-dataset searches run (:func:`dplasso.experiments.execution.run_tasks`:
        this process, joblib workers, or the Dask cluster named by ``DPLASSO_SCHEDULER``).

    Returns
    -------
    pandas.DataFrame
        One row per dataset: ``dataset, n, p, count, neighbour_count, declared, found,
        ratio, exceeded, witness, witness_index, witness_label, witness_row, evaluations,
        seconds, count_epsilon_factor, sparsifier_epsilon_factor_found,
        sparsifier_epsilon_factor_proven``. The witness is the neighbour that moved the
        count most: row ``witness_index`` replaced by ``witness_row`` (a JSON list, exact
        floats) with label ``witness_label``; ``witness`` says how the row was generated.

        - ``count_epsilon_factor`` = ``found / declared``: on the witness pair the count
          release's privacy loss is this multiple of its nominal :math:`\varepsilon_1` (the
          discrete Laplace loss of a shift by ``k`` is :math:`k\varepsilon_1/\Delta_c`, away
          from the clipping bounds).
        - ``sparsifier_epsilon_factor_found`` = :math:`(1 - f) + f\max(\text{found},
          \Delta_c)/\Delta_c`: the multiple of the nominal :math:`\varepsilon` the Sparsifier
          could claim if the change found were the true sensitivity (it is only a lower bound
          on it).
        - ``sparsifier_epsilon_factor_proven`` = :math:`(1 - f) + f p/\Delta_c`: the multiple
          a proof supports, from the trivial bound :math:`\Delta \le p` (which the proofs
          chapter shows is tight up to one: some neighbours move the count by :math:`p - 1`).
    """
    n_jobs = check_n_jobs(n_jobs)
    search = dict(lam=lam, declared=declared, n_rows=n_rows, n_random=n_random,
                  ascent_starts=ascent_starts, ascent_rounds=ascent_rounds,
                  max_coordinates=max_coordinates, count_fraction=count_fraction, seed=seed)
    keys = [int(i) for i in dataset_ids]
    units = [(f"p1-count-sensitivity-{key}", {**search, "dataset": key},
              (key, load_dataset(key), search)) for key in keys]
    frames = cached_tasks(cache_dir, units, _count_search, n_jobs=n_jobs,
                          desc="p1-count-sensitivity", progress=progress)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _count_search(key, data, search):
    """The row (a one-row frame) of :func:`count_sensitivity_experiment` for the dataset
    ``data``."""
    lam, declared, count_fraction = search["lam"], search["declared"], search["count_fraction"]
    statistic = LassoSupportSize(lam)
    rng = np.random.default_rng(np.random.SeedSequence([search["seed"], key]))
    started = time.perf_counter()
    count = int(statistic(data.X, data.y)[0])
    result = sensitivity_search(
        statistic, data.X, data.y, declared, norm="1", n_rows=search["n_rows"],
        n_random=search["n_random"], ascent_starts=search["ascent_starts"],
        ascent_rounds=search["ascent_rounds"], max_coordinates=search["max_coordinates"],
        flip_rows=range(data.n_samples) if data.n_samples <= FLIP_EVERY_LABEL_UP_TO else (),
        rng=rng)
    neighbour = int(statistic(*result.witness.apply(data.X, data.y))[0])
    found = float(result.found)
    return pd.DataFrame([{
        "dataset": data.name, "n": data.n_samples, "p": data.n_features, "count": count,
        "neighbour_count": neighbour, "declared": int(declared), "found": found,
        "ratio": result.ratio, "exceeded": bool(result.exceeded),
        "witness": result.witness.kind, "witness_index": int(result.witness.index),
        "witness_label": float(result.witness.y),
        "witness_row": json.dumps([float(v) for v in result.witness.x]),
        "evaluations": int(result.n_evaluations),
        "seconds": time.perf_counter() - started,
        "count_epsilon_factor": found / declared,
        "sparsifier_epsilon_factor_found":
            (1 - count_fraction) + count_fraction * max(found, declared) / declared,
        "sparsifier_epsilon_factor_proven":
            (1 - count_fraction) + count_fraction * data.n_features / declared,
    }])
