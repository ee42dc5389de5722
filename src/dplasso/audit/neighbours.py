r"""Neighbouring dataset pairs under the replace-one relation, for searches and audits.

Two datasets are neighbouring (:data:`dplasso.privacy.REPLACE_ONE`) when they have the same
number of rows ``n`` and differ in exactly one row :math:`(x_i, y_i)`. A neighbour of
``(X, y)`` is therefore a :class:`Replacement`: the index ``i`` and the new row
:math:`(x', y')`, which must stay in the data domain :math:`\|x'\|_\infty \le 1`.

Candidate new rows (:func:`candidate_rows`):

``random``
    uniform on :math:`[-1, 1]^p` (a fraction of the entries set to zero on request, to look
    like sparse data), with a random label;
``aligned``
    sign rows at the bound :math:`\|x'\|_\infty = 1`: for a direction :math:`d` (a current
    gradient, residual-weighted direction or weight vector), :math:`x' = \pm\mathrm{sign}(d)`
    maximises / minimises :math:`\langle x', d\rangle` over the box, so it moves a
    statistic that depends on the data through :math:`\langle x, d\rangle` the most; paired
    with every label;
``duplicate``
    copies of the rows of ``X`` with the largest and smallest projection on each direction
    (duplicating an extreme row already in the data), paired with every label.

Per replaced row, :func:`most_moving_replacement` also tries the row's own features with
every other label (``flipped-label``). It scores every (row, candidate) pair with a change
function, then refines the best few by coordinate ascent (:func:`coordinate_ascent`) over
the new row's entries in a finite set (default :math:`\{-1, 0, 1\}`) and its label
(``ascent``).

Dense ``X`` and ``scipy.sparse`` ``X`` are both supported; a sparse ``X`` stays sparse (the
replaced row is spliced into the CSR arrays, :func:`replace_row`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = [
    "Replacement",
    "CandidateRows",
    "replace_row",
    "sign_rows",
    "candidate_rows",
    "coordinate_ascent",
    "most_moving_replacement",
]


@dataclass(frozen=True, eq=False)
class Replacement:
    """One replace-one neighbour of a dataset: row ``index`` becomes ``(x, y)``.

    Attributes
    ----------
    index : int
        The replaced row ``i``.
    x : ndarray of float64, shape (p,)
        The new features, ``||x||_inf <= 1``.
    y : float
        The new label or response.
    kind : str
        How the candidate was generated (``random``, ``aligned``, ``duplicate``,
        ``flipped-label``, ``ascent``).
    """

    index: int
    x: np.ndarray
    y: float
    kind: str

    def apply(self, X, y):
        """Return the neighbouring dataset ``(X', y')`` (copies; ``X`` keeps its format)."""
        return replace_row(X, y, self.index, self.x, self.y)


@dataclass(frozen=True, eq=False)
class CandidateRows:
    """Candidate new rows, independent of which row they replace.

    Attributes
    ----------
    x : ndarray of float64, shape (c, p)
        Candidate feature rows, each with ``||x||_inf <= 1``.
    y : ndarray of float64, shape (c,)
        Their labels.
    kind : ndarray of str, shape (c,)
        Generator of each candidate.
    """

    x: np.ndarray
    y: np.ndarray
    kind: np.ndarray

    def __len__(self):
        return self.y.shape[0]


def replace_row(X, y, index, x_new, y_new):
    """Return copies of ``(X, y)`` with row ``index`` replaced by ``(x_new, y_new)``.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix/array of shape (n, p)
        Features. Sparse input stays sparse: CSR and CSC keep their format (the new row
        is spliced into the CSR arrays; CSC goes through CSR), other formats come back CSR.
    y : ndarray of shape (n,)
        Labels or responses. The copy is float64 when ``y_new`` is not representable in
        ``y``'s dtype.
    index : int
        Row to replace, ``0 <= index < n``.
    x_new : array-like of shape (p,)
        New features, ``||x_new||_inf <= 1`` (the data domain).
    y_new : float
        New label or response.

    Returns
    -------
    X_prime, y_prime
        The neighbouring dataset.

    Raises
    ------
    ValueError
        If ``index`` is out of range, ``x_new`` has the wrong length, is not finite, or
        leaves the data domain.
    """
    n_samples, n_features = X.shape
    if not 0 <= int(index) < n_samples:
        raise ValueError(f"index must be in 0..{n_samples - 1}, got {index}")
    index = int(index)
    x_new = np.asarray(x_new, dtype=np.float64)
    if x_new.shape != (n_features,):
        raise ValueError(f"x_new must have shape ({n_features},), got {x_new.shape}")
    if not np.all(np.isfinite(x_new)):
        raise ValueError("x_new contains NaN or infinity")
    if np.max(np.abs(x_new)) > 1.0:
        raise ValueError(
            f"x_new violates the data domain ||x||_inf <= 1: sup norm {np.max(np.abs(x_new))!r}"
        )
    y = np.asarray(y)
    integral = float(y_new).is_integer()
    y_prime = y.astype(y.dtype if integral or y.dtype.kind == "f" else np.float64, copy=True)
    y_prime[index] = y_new
    if sp.issparse(X):
        return _replace_sparse_row(X, index, x_new), y_prime
    X_prime = np.array(X, dtype=np.float64, copy=True)
    X_prime[index] = x_new
    return X_prime, y_prime


def _replace_sparse_row(X, index, x_new):
    fmt = X.format
    X_csr = X.tocsr()
    if not X_csr.has_canonical_format:
        X_csr = X_csr.copy()
        X_csr.sum_duplicates()
    start, end = X_csr.indptr[index], X_csr.indptr[index + 1]
    columns = np.flatnonzero(x_new)
    data = np.concatenate([X_csr.data[:start], x_new[columns], X_csr.data[end:]])
    indices = np.concatenate([X_csr.indices[:start], columns.astype(X_csr.indices.dtype),
                              X_csr.indices[end:]])
    indptr = X_csr.indptr.copy()
    indptr[index + 1:] += columns.size - (end - start)
    out = type(X_csr)((data.astype(np.float64), indices, indptr), shape=X_csr.shape)
    return out.asformat(fmt) if fmt == "csc" else out


def sign_rows(directions):
    r"""Rows at the bound aligned with each direction: :math:`\pm\mathrm{sign}(d)`.

    Parameters
    ----------
    directions : array-like of shape (p,) or (p, d)
        One direction per column.

    Returns
    -------
    ndarray of float64, shape (2 d, p)
        For each direction ``d``, the row ``sign(d)`` (maximiser of ``<x, d>`` over the box
        ``||x||_inf <= 1``; zero entries of ``d`` get ``+1``) followed by its negation (the
        minimiser).
    """
    D = np.asarray(directions, dtype=np.float64)
    if D.ndim == 1:
        D = D[:, np.newaxis]
    if D.ndim != 2:
        raise ValueError(f"directions must have shape (p,) or (p, d), got {D.shape}")
    S = np.where(D.T >= 0, 1.0, -1.0)
    return np.stack([S, -S], axis=1).reshape(-1, D.shape[0])


def candidate_rows(X, *, n_random, rng, directions=None, label_values=(0.0, 1.0),
                   n_duplicates=1, zero_fraction=0.0):
    """Candidate replacement rows: random, aligned sign rows, and duplicated extreme rows.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The dataset whose extreme rows are duplicated.
    n_random : int
        Number of random rows, uniform on ``[-1, 1]^p``, each with a label drawn from
        ``label_values``.
    rng : numpy.random.Generator
        Source of randomness.
    directions : array-like of shape (p,) or (p, d), optional
        Directions for the ``aligned`` and ``duplicate`` candidates.
    label_values : sequence of float, default=(0.0, 1.0)
        The labels tried (binary labels by default; e.g. ``(-y_bound, y_bound)`` for a
        bounded regression response).
    n_duplicates : int, default=1
        Rows of ``X`` duplicated per direction and side (largest and smallest projection).
    zero_fraction : float, default=0.0
        Probability that an entry of a random row is zero (mimics sparse data).

    Returns
    -------
    CandidateRows
    """
    n_samples, n_features = X.shape
    labels = np.asarray(label_values, dtype=np.float64)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError("label_values must be a non-empty sequence of numbers")
    if not 0.0 <= zero_fraction < 1.0:
        raise ValueError(f"zero_fraction must lie in [0, 1), got {zero_fraction!r}")
    random_x = rng.uniform(-1.0, 1.0, size=(n_random, n_features))
    if zero_fraction > 0.0:
        random_x[rng.random(random_x.shape) < zero_fraction] = 0.0
    parts_x = [random_x]
    parts_y = [rng.choice(labels, size=n_random)]
    parts_kind = [np.full(n_random, "random")]
    if directions is not None:
        D = np.asarray(directions, dtype=np.float64)
        D = D[:, np.newaxis] if D.ndim == 1 else D
        if D.ndim != 2 or D.shape[0] != n_features:
            raise ValueError(
                f"directions must have shape ({n_features},) or ({n_features}, d), got {D.shape}"
            )
        aligned = sign_rows(D)
        projections = np.asarray(X @ D)
        order = np.argsort(projections, axis=0)
        k = min(int(n_duplicates), n_samples)
        rows = np.unique(np.concatenate([order[:k].ravel(), order[-k:].ravel()]))
        duplicates = X[rows].toarray() if sp.issparse(X) else np.asarray(X[rows], dtype=float)
        for block, kind in ((aligned, "aligned"), (duplicates, "duplicate")):
            parts_x.append(np.repeat(block, labels.size, axis=0))
            parts_y.append(np.tile(labels, block.shape[0]))
            parts_kind.append(np.full(block.shape[0] * labels.size, kind))
    return CandidateRows(
        x=np.concatenate(parts_x), y=np.concatenate(parts_y), kind=np.concatenate(parts_kind)
    )


def coordinate_ascent(change, start, *, values=(-1.0, 0.0, 1.0), label_values=(0.0, 1.0),
                      rounds=2, rng, max_coordinates=None, start_change=None):
    """Improve a replacement row greedily, one entry (or the label) at a time.

    Each round visits the coordinates in random order; for each it tries every value in
    ``values`` and keeps the one with the largest ``change`` (ties keep the current value),
    then does the same for the label over ``label_values``. Rounds stop early when one
    makes no improvement.

    Parameters
    ----------
    change : callable
        ``change(Replacement) -> float``, the quantity to maximise.
    start : Replacement
        Starting point.
    values : sequence of float, default=(-1.0, 0.0, 1.0)
        Entry values tried (all within ``[-1, 1]``).
    label_values : sequence of float, default=(0.0, 1.0)
        Labels tried.
    rounds : int, default=2
        Maximum number of passes.
    rng : numpy.random.Generator
        Orders the coordinates (and picks the subset when ``max_coordinates`` is set).
    max_coordinates : int, optional
        Visit at most this many randomly chosen coordinates per round (for large ``p``).
    start_change : float, optional
        ``change(start)`` when already known (saves one evaluation).

    Returns
    -------
    best : Replacement
        The best replacement found (``kind="ascent"`` if it improved on ``start``).
    best_change : float
    n_evaluations : int
        Number of calls to ``change``.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or np.max(np.abs(values)) > 1.0:
        raise ValueError("values must be a non-empty set of numbers in [-1, 1]")
    n_evaluations = 0
    if start_change is None:
        start_change = change(start)
        n_evaluations = 1
    best, best_change = start, start_change
    n_features = start.x.shape[0]
    for _ in range(int(rounds)):
        improved = False
        coords = rng.permutation(n_features)
        if max_coordinates is not None:
            coords = coords[: int(max_coordinates)]
        for j in coords:
            for v in values:
                if v == best.x[j]:
                    continue
                x = best.x.copy()
                x[j] = v
                candidate = Replacement(best.index, x, best.y, "ascent")
                value = change(candidate)
                n_evaluations += 1
                if value > best_change:
                    best, best_change, improved = candidate, value, True
        for label in label_values:
            if label == best.y:
                continue
            candidate = Replacement(best.index, best.x, float(label), "ascent")
            value = change(candidate)
            n_evaluations += 1
            if value > best_change:
                best, best_change, improved = candidate, value, True
        if not improved:
            break
    return best, best_change, n_evaluations


def most_moving_replacement(change, X, y, *, rng, n_rows=32, n_random=32, directions=None,
                            label_values=(0.0, 1.0), n_duplicates=1, zero_fraction=0.0,
                            ascent_starts=2, ascent_rounds=2, ascent_values=(-1.0, 0.0, 1.0),
                            max_coordinates=None, flip_rows=(), change_many=None):
    """Greedy search for the replace-one neighbour that moves a quantity the most.

    Every sampled row ``i`` is replaced by every candidate of :func:`candidate_rows` and by
    its own features with each other label; the ``ascent_starts`` best pairs are then
    refined by :func:`coordinate_ascent`.

    Parameters
    ----------
    change : callable
        ``change(Replacement) -> float`` (e.g. the norm of a statistic's change).
    X : ndarray or scipy.sparse matrix of shape (n, p)
        Features (``||x_i||_inf <= 1``).
    y : ndarray of shape (n,)
        Labels or responses.
    rng : numpy.random.Generator
        Source of randomness.
    n_rows : int or None, default=32
        Number of rows tried as the replaced row (sampled without replacement); ``None``
        tries every row.
    n_random, directions, label_values, n_duplicates, zero_fraction
        Passed to :func:`candidate_rows`.
    ascent_starts : int, default=2
        Number of best (row, candidate) pairs refined by coordinate ascent (0: none).
    ascent_rounds, ascent_values, max_coordinates
        Passed to :func:`coordinate_ascent`.
    flip_rows : sequence of int, default=()
        Rows whose label flips are also tried (their own features with each other label),
        beyond the sampled rows (every row, where a dataset is small enough).
    change_many : callable, optional
        ``change_many(list of Replacement) -> list of float``, equal to ``change`` of each:
        the scan's pairs are all known before any is scored, so they are scored by one call
        (a statistic that solves many neighbours together is faster); the ascent, where
        each step depends on the last, calls ``change``.

    Returns
    -------
    best : Replacement
    best_change : float
    n_evaluations : int
        Number of calls to ``change`` (each is one evaluation on a neighbouring dataset).

    Notes
    -----
    Cost: ``n_rows * (len(candidates) + len(label_values) - 1)`` calls for the scan plus
    at most ``ascent_starts * ascent_rounds * (p * (len(ascent_values) - 1) + len(label_values))``
    for the ascent. ``change`` is a black box: each call is one (vectorised) evaluation on
    a whole neighbouring dataset, and ``change_many`` scores the scan's pairs together. The
    search is a heuristic: what it finds is a lower bound on the sensitivity at ``(X, y)``,
    never a proof of an upper bound.
    """
    n_samples = X.shape[0]
    y = np.asarray(y)
    if n_rows is None or n_rows >= n_samples:
        rows = np.arange(n_samples)
    else:
        rows = np.sort(rng.choice(n_samples, size=int(n_rows), replace=False))
    candidates = candidate_rows(X, n_random=n_random, rng=rng, directions=directions,
                                label_values=label_values, n_duplicates=n_duplicates,
                                zero_fraction=zero_fraction)
    own_rows = X[rows].toarray() if sp.issparse(X) else np.asarray(X[rows], dtype=float)
    pairs = []
    for i, own in zip(rows, own_rows):
        for x_new, y_new, kind in zip(candidates.x, candidates.y, candidates.kind):
            pairs.append(Replacement(int(i), x_new, float(y_new), str(kind)))
        pairs += [Replacement(int(i), own, float(label), "flipped-label")
                  for label in label_values if label != y[i]]
    sampled = set(rows.tolist())
    for i in flip_rows:
        if int(i) in sampled:
            continue
        own = X[int(i)].toarray()[0] if sp.issparse(X) else np.asarray(X[int(i)], dtype=float)
        pairs += [Replacement(int(i), own, float(label), "flipped-label")
                  for label in label_values if label != y[i]]
    if not pairs:
        raise ValueError("the search has no candidates: give n_random > 0, directions, "
                         "or more than one label value")
    values = change_many(pairs) if change_many is not None else [change(r) for r in pairs]
    scanned = list(zip(values, pairs))
    n_evaluations = len(scanned)
    scanned.sort(key=lambda item: item[0], reverse=True)
    best_change, best = scanned[0]
    for start_change, start in scanned[: int(ascent_starts)]:
        refined, refined_change, used = coordinate_ascent(
            change, start, values=ascent_values, label_values=label_values,
            rounds=ascent_rounds, rng=rng, max_coordinates=max_coordinates,
            start_change=start_change)
        n_evaluations += used
        if refined_change > best_change:
            best, best_change = refined, refined_change
    return best, best_change, n_evaluations
