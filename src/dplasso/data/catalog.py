"""The real datasets of the reproduction (OpenML ids), their loader and summary table.

The catalogue itself is light to import (the command line checks dataset ids with it);
the loaders import numpy, pandas and scipy when called.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class CatalogEntry:
    """One OpenML dataset used in the book.

    Attributes
    ----------
    id : int
        OpenML dataset id.
    name : str
        OpenML name.
    task : {"binary", "multiclass"}
        Classification task.
    n : int
        Rows.
    p : int
        Features before preprocessing (target excluded).
    n_classes : int
        Distinct labels present (arrhythmia declares 16 and uses 13).
    """

    id: int
    name: str
    task: str
    n: int
    p: int
    n_classes: int


CATALOG: tuple[CatalogEntry, ...] = (
    # binary (experiments.md order)
    CatalogEntry(40, "sonar", "binary", 208, 60, 2),
    CatalogEntry(59, "ionosphere", "binary", 351, 34, 2),
    CatalogEntry(1510, "wdbc", "binary", 569, 30, 2),
    CatalogEntry(44, "spambase", "binary", 4601, 57, 2),
    CatalogEntry(1479, "hill-valley", "binary", 1212, 100, 2),
    CatalogEntry(3, "kr-vs-kp", "binary", 3196, 36, 2),
    CatalogEntry(31, "credit-g", "binary", 1000, 20, 2),
    CatalogEntry(1494, "qsar-biodeg", "binary", 1055, 41, 2),
    CatalogEntry(1467, "climate-model-simulation-crashes", "binary", 540, 20, 2),
    CatalogEntry(15, "breast-w", "binary", 699, 9, 2),
    CatalogEntry(37, "diabetes", "binary", 768, 8, 2),
    CatalogEntry(1458, "arcene", "binary", 200, 10000, 2),
    CatalogEntry(1485, "madelon", "binary", 2600, 500, 2),
    # multiclass
    CatalogEntry(28, "optdigits", "multiclass", 5620, 64, 10),
    CatalogEntry(12, "mfeat-factors", "multiclass", 2000, 216, 10),
    CatalogEntry(389, "fbis.wc", "multiclass", 2463, 2000, 17),
    CatalogEntry(5, "arrhythmia", "multiclass", 452, 279, 13),
)
"""Every real dataset of ``experiments.md``, with the sizes of ``shared/data/README.md``."""

HELD_OUT: tuple[int, ...] = (29, 1461, 1462)
"""Binary OpenML datasets outside the catalogue (credit-approval, bank-marketing,
banknote-authentication) that the offline seed holds: the "Beyond P1" chapter measures its
default model on them beside the catalogue's binary datasets, as data that no design, no
default and no other chapter has read."""


def catalog_ids(task: str | None = None) -> tuple[int, ...]:
    """Ids of the catalogue, optionally only those of one ``task`` ("binary"/"multiclass")."""
    if task not in (None, "binary", "multiclass"):
        raise ValueError(f"task must be None, 'binary' or 'multiclass', got {task!r}")
    return tuple(e.id for e in CATALOG if task is None or e.task == task)


def catalog_entry(data_id: int) -> CatalogEntry:
    """The catalogue entry of ``data_id``."""
    for entry in CATALOG:
        if entry.id == data_id:
            return entry
    raise ValueError(f"OpenML id {data_id!r} is not in the catalogue (ids: {catalog_ids()})")


def dataset_info(data_id: int) -> CatalogEntry:
    """The catalogue's entry of ``data_id``, or for any other OpenML id an entry read from the
    dataset's metadata (:func:`dplasso.data.metadata.describe_openml`: the offline seed, else
    OpenML's server), whose ``n_classes`` counts the target's declared values (the public
    label set) and whose ``task`` follows from it.

    Raises
    ------
    TypeError, ValueError, FileNotFoundError, OpenMLUnavailableError
        As :func:`~dplasso.data.metadata.describe_openml`.
    """
    if not isinstance(data_id, bool) and data_id in catalog_ids():
        return catalog_entry(data_id)
    from dplasso.data.metadata import describe_openml

    d = describe_openml(data_id)
    return CatalogEntry(d.id, d.name, d.task, d.n, d.p, len(d.classes))


def load_dataset(data_id: int, scaling: str = "max-abs", *, fit_rows=None) -> "Dataset":
    """Load an OpenML dataset and map it into the data domain.

    ``load_openml(data_id)`` (seed from ``DPLASSO_OPENML_SEED``, else openml's cache and the
    network; loaded once per process) followed by :func:`dplasso.data.preprocess.preprocess`
    with ``scaling`` (``"max-abs"``, the reproduction's map, or ``"standard"``) and
    ``fit_rows``: the rows whose per-feature summaries the map reads (a training split;
    None reads every row). The result's arrays are read-only; with ``fit_rows=None`` it is
    cached for the process (the same object is returned again), so no caller can change
    what the next one gets.
    """
    if fit_rows is None:
        return _all_rows(data_id, scaling)
    from dplasso.data.preprocess import preprocess

    return _read_only(preprocess(_raw(data_id), scaling=scaling, fit_rows=fit_rows))


@functools.lru_cache(maxsize=None)
def _raw(data_id: int):
    from dplasso.data.openml import load_openml

    return load_openml(data_id)


@functools.lru_cache(maxsize=None)
def _all_rows(data_id: int, scaling: str) -> "Dataset":
    from dplasso.data.preprocess import preprocess

    return _read_only(preprocess(_raw(data_id), scaling=scaling))


def _read_only(dataset: "Dataset") -> "Dataset":
    import scipy.sparse

    arrays = (dataset.X.data, dataset.X.indices, dataset.X.indptr) \
        if scipy.sparse.issparse(dataset.X) else (dataset.X,)
    for array in (*arrays, dataset.y, dataset.classes):
        array.flags.writeable = False
    return dataset


TABLE_COLUMNS = ("id", "name", "source", "task", "n", "p_raw", "p", "classes", "density",
                 "preprocessing")
"""Columns of :func:`dataset_table`."""


def dataset_table(ids="all", *, synthetic: bool = True, random_state: int = 0) -> "pd.DataFrame":
    """One row per dataset: sizes before and after preprocessing, classes, density.

    Parameters
    ----------
    ids : "all" or iterable of int, default="all"
        OpenML ids to load with :func:`load_dataset` (``"all"``: the whole catalogue).
    synthetic : bool, default=True
        Also add rows for the P2 sets (:func:`~dplasso.data.synthetic.raj_synthetic`, linear
        and logistic) and the P1 set (:func:`~dplasso.data.synthetic.sparse_logistic_synthetic`)
        at their default sizes.
    random_state : int, default=0
        Seed of the synthetic rows.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TABLE_COLUMNS`: ``id`` (OpenML id, missing for synthetic data),
        ``source`` ("OpenML" or "synthetic"), ``task`` ("binary", "multiclass" or "regression",
        from the number of classes), ``n``, ``p_raw`` (features as loaded), ``p`` (columns after
        preprocessing), ``classes`` (missing for regression), ``density`` (fraction of nonzero
        entries of the preprocessed ``X``), ``preprocessing`` (what was done).
    """
    import numpy as np
    import pandas as pd

    from dplasso.data.synthetic import raj_synthetic, sparse_logistic_synthetic

    ids = catalog_ids() if isinstance(ids, str) and ids == "all" else tuple(ids)
    rows = []
    for data_id in ids:
        d = load_dataset(data_id)
        rows.append({"id": d.id, "name": d.name, "source": "OpenML",
                     "task": "binary" if d.n_classes == 2 else "multiclass",
                     "n": d.n_samples, "p_raw": d.n_features_raw, "p": d.n_features,
                     "classes": d.n_classes, "density": d.density,
                     "preprocessing": d.preprocessing})
    if synthetic:
        for s in (raj_synthetic(task="linear", random_state=random_state),
                  raj_synthetic(task="logistic", random_state=random_state),
                  sparse_logistic_synthetic(random_state=random_state)):
            n, p = s.X.shape
            rows.append({"id": None, "name": s.name, "source": "synthetic",
                         "task": "regression" if s.task == "linear" else "binary",
                         "n": n, "p_raw": p, "p": p,
                         "classes": None if s.task == "linear" else 2,
                         "density": np.count_nonzero(s.X) / (n * p),
                         "preprocessing": s.description})
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    return table.astype({"id": "Int64", "classes": "Int64"})
