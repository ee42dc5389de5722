r"""Search for the largest change of a statistic between replace-one neighbours.

A privatised quantity :math:`f(X, y)` is released with noise calibrated to a *declared*
sensitivity :math:`\Delta = \sup \|f(D) - f(D')\|` over neighbouring :math:`D, D'`
(replace-one, rows in the data domain :math:`\|x\|_\infty \le 1`). The search evaluates
:math:`f` on a dataset and on many of its neighbours (random, adversarial and greedily
refined replacements, :mod:`dplasso.audit.neighbours`) and reports the largest change
found in the stated norm. It can refute a declared value (``found > declared``), never
prove one: ``found`` is a lower bound on the sensitivity.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dplasso.audit.neighbours import Replacement, most_moving_replacement
from dplasso.optim.validation import check_X_bounded
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator

__all__ = ["NORMS", "NEIGHBOURS_BYTES", "SearchResult", "change_norm", "sensitivity_search"]

NORMS = {"inf": np.inf, "1": 1, "2": 2}
"""Norms a change can be measured in (``norm=`` argument of :func:`sensitivity_search`)."""

NEIGHBOURS_BYTES = 256 * 2**20
"""Bytes of neighbouring designs :func:`sensitivity_search` hands a statistic's ``many`` at
once (at least one neighbour): memory stays bounded on wide data such as arcene."""


@dataclass(frozen=True, eq=False)
class SearchResult:
    """Outcome of :func:`sensitivity_search`.

    Attributes
    ----------
    found : float
        Largest change found, :math:`\\|f(D') - f(D)\\|` in ``norm``.
    declared : float
        The sensitivity the caller declared.
    ratio : float
        ``found / declared``: above 1 refutes the declaration; close to 1 shows the
        declared bound is (nearly) attained.
    witness : Replacement
        The replacement attaining ``found`` (``witness.apply(X, y)`` rebuilds ``D'``).
    norm : str
        ``"inf"``, ``"1"`` or ``"2"``.
    n_evaluations : int
        Number of neighbouring datasets evaluated.
    relation : str
        The neighbouring relation, :data:`dplasso.privacy.REPLACE_ONE`.
    """

    found: float
    declared: float
    ratio: float
    witness: Replacement
    norm: str
    n_evaluations: int
    relation: str = REPLACE_ONE

    @property
    def exceeded(self) -> bool:
        """Whether the search refuted the declared sensitivity (``found > declared``)."""
        return self.found > self.declared


def change_norm(before, after, norm="inf"):
    """Norm of the change ``after - before`` of a (flattened) statistic.

    Parameters
    ----------
    before, after : array-like
        Statistic values of the same shape.
    norm : {"inf", "1", "2"}, default="inf"

    Returns
    -------
    float
    """
    before = np.asarray(before, dtype=np.float64).ravel()
    after = np.asarray(after, dtype=np.float64).ravel()
    if before.shape != after.shape:
        raise ValueError(
            f"the statistic changed shape between neighbours: {before.shape} vs {after.shape}"
        )
    return float(np.linalg.norm(after - before, ord=NORMS[_check_norm(norm)]))


def _check_norm(norm):
    norm = str(norm)
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
    return norm


def sensitivity_search(statistic, X, y, declared, *, norm="inf", n_random=32, n_rows=32,
                       directions=None, label_values=None, n_duplicates=1, zero_fraction=0.0,
                       ascent_starts=2, ascent_rounds=2, ascent_values=(-1.0, 0.0, 1.0),
                       max_coordinates=None, flip_rows=(), rng=None):
    """Largest change of ``statistic`` found over replace-one neighbours of ``(X, y)``.

    Parameters
    ----------
    statistic : callable
        ``statistic(X, y) -> array-like`` (any shape, flattened for the norm). Adapters in
        :mod:`dplasso.audit.statistics` also provide ``search_directions(X, y)`` (extra
        directions for aligned rows), ``label_values`` (labels to try) and ``many(datasets)``
        (the statistic of each ``(X, y)`` of a list, equal to calling it on each, and
        faster: the scan's neighbours are evaluated through it, at most
        :data:`NEIGHBOURS_BYTES` of neighbouring designs at a time); each is used when
        present.
    X : ndarray or scipy.sparse matrix of shape (n, p)
        Features, ``||x_i||_inf <= 1`` (checked). Sparse input is never densified.
    y : array-like of shape (n,)
        Labels or responses.
    declared : float
        Declared sensitivity (``> 0``) in ``norm`` under replace-one.
    norm : {"inf", "1", "2"}, default="inf"
        Norm of the change.
    n_random : int, default=32
        Random replacement rows (uniform on ``[-1, 1]^p``).
    n_rows : int or None, default=32
        Rows tried as the replaced row (``None``: all).
    directions : array-like of shape (p,) or (p, d), optional
        Directions for aligned sign rows and duplicated extreme rows, added to the
        statistic's own ``search_directions``.
    label_values : sequence of float, optional
        Labels tried; default: the statistic's ``label_values``, else ``(0, 1)``.
    n_duplicates, zero_fraction, ascent_starts, ascent_rounds, ascent_values, max_coordinates
        See :func:`dplasso.audit.neighbours.most_moving_replacement`.
    flip_rows : sequence of int, default=()
        Rows whose label flips are tried too, beyond the sampled rows
        (:func:`dplasso.audit.neighbours.most_moving_replacement`).
    rng : numpy.random.Generator, int or None, default=None
        Source of randomness (:func:`dplasso.privacy.rng.as_generator`).

    Returns
    -------
    SearchResult

    Raises
    ------
    ValueError
        On ``X`` outside the data domain, a length mismatch, ``declared <= 0`` or an
        unknown ``norm``.
    """
    X = check_X_bounded(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    declared = float(declared)
    if not (math.isfinite(declared) and declared > 0):
        raise ValueError(f"declared must be a finite number > 0, got {declared!r}")
    norm = _check_norm(norm)
    rng = as_generator(rng)
    if label_values is None:
        label_values = getattr(statistic, "label_values", (0.0, 1.0))
    all_directions = _directions(statistic, X, y, directions)

    before = np.asarray(statistic(X, y), dtype=np.float64)

    def change(replacement):
        return change_norm(before, statistic(*replacement.apply(X, y)), norm)

    def change_many(replacements):
        step = max(1, NEIGHBOURS_BYTES // _nbytes(X))
        return [change_norm(before, value, norm)
                for start in range(0, len(replacements), step)
                for value in statistic.many([r.apply(X, y)
                                             for r in replacements[start:start + step]])]

    witness, found, n_evaluations = most_moving_replacement(
        change, X, y, rng=rng, n_rows=n_rows, n_random=n_random, directions=all_directions,
        label_values=label_values, n_duplicates=n_duplicates, zero_fraction=zero_fraction,
        ascent_starts=ascent_starts, ascent_rounds=ascent_rounds, ascent_values=ascent_values,
        max_coordinates=max_coordinates, flip_rows=flip_rows,
        change_many=change_many if hasattr(statistic, "many") else None)
    return SearchResult(found=found, declared=declared, ratio=found / declared,
                        witness=witness, norm=norm, n_evaluations=n_evaluations + 1)


def _nbytes(X):
    """Bytes of a dense or CSR/CSC design."""
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def _directions(statistic, X, y, directions):
    blocks = []
    own = getattr(statistic, "search_directions", None)
    if own is not None:
        blocks.append(np.asarray(own(X, y), dtype=np.float64).reshape(X.shape[1], -1))
    if directions is not None:
        blocks.append(np.asarray(directions, dtype=np.float64).reshape(X.shape[1], -1))
    return np.hstack(blocks) if blocks else None
