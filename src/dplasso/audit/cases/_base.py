"""The two kinds of case and the helpers every family's factories share."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dplasso.audit.empirical import audit_mechanism
from dplasso.audit.sensitivity import sensitivity_search
from dplasso.optim.l1_ball import random_l1_ball_init

__all__ = ["SensitivityCase", "AuditCase"]


@dataclass(frozen=True, eq=False)
class SensitivityCase:
    """A privatised quantity, a dataset, and its declared replace-one sensitivity.

    Attributes
    ----------
    quantity : str
        What is privatised.
    statistic : callable
        ``statistic(X, y) -> ndarray`` (see :mod:`dplasso.audit.statistics`).
    X, y
        The dataset searched around.
    declared : float
        The sensitivity the library calibrates the release with, read from the library
        (its sensitivity function or the release's ledger event) wherever the library
        declares one; for the primitives' queries, whose sensitivity the caller passes, the
        query's.
    norm : str
        Norm of the change (``"inf"``, ``"1"``, ``"2"``).
    theorem : bool
        Whether ``declared`` is a proven bound: then it must equal ``proven``.
    tight : bool
        Whether the dataset is built so that the bound is nearly attained.
    search : dict
        Keyword arguments of :func:`~dplasso.audit.sensitivity.sensitivity_search` fixed by
        the case (directions, ascent settings).
    proven : float
        The proven bound, computed here from the lemma's formula (never by the library code
        that calibrates the noise), so that a declaration below it fails whatever a search
        finds.
    """

    quantity: str
    statistic: object
    X: object
    y: np.ndarray
    declared: float
    norm: str
    theorem: bool
    tight: bool
    search: dict = field(default_factory=dict)
    proven: float = field(kw_only=True)

    def run(self, *, n_random, n_rows, rng=None, declared=None):
        """Run the search (``declared`` overrides the case's declared value)."""
        return sensitivity_search(
            self.statistic, self.X, self.y, self.declared if declared is None else declared,
            norm=self.norm, n_random=n_random, n_rows=n_rows, rng=rng, **self.search)


@dataclass(frozen=True, eq=False)
class AuditCase:
    """One mechanism (correct or a broken variant) on its worst-case neighbouring pair.

    Attributes
    ----------
    mechanism_name : str
        The mechanism family (and its setting).
    variant : str
        ``"correct"`` or the name of a broken variant.
    mechanism : callable
        ``mechanism(dataset, size, rng) -> ndarray`` (batched runs).
    D, D_prime
        The neighbouring datasets (replace-one).
    eps_claimed : float
        The epsilon the (possibly broken) code claims.
    delta : float
        The claim's delta.
    event : str
        ``"threshold"`` or ``"set"``.
    projection : callable or None
        Maps a batch of vector outputs to scalars.
    pair : str
        The neighbouring pair, in words.
    release : callable
        The library's release function that ``mechanism`` calls on every run (a broken
        variant calls it too, with one of its inputs or dependencies broken): the audit
        tests the code that runs, never a copy of it (``tests/unit/audit``
        checks the call).
    """

    mechanism_name: str
    variant: str
    mechanism: object
    D: object
    D_prime: object
    eps_claimed: float
    delta: float
    event: str
    projection: object
    pair: str
    release: object = field(kw_only=True)

    def run(self, n_trials, alpha, rng=None):
        """Audit the case: :func:`~dplasso.audit.empirical.audit_mechanism`."""
        return audit_mechanism(self.mechanism, self.D, self.D_prime, n_trials, alpha,
                               self.delta, rng, eps_claimed=self.eps_claimed,
                               event=self.event, projection=self.projection)


def rademacher(rng, n, p):
    """An ``(n, p)`` design of independent ``+-1`` entries: every row at the bound."""
    return rng.choice(np.array([-1.0, 1.0]), size=(n, p))


def worst_pair(statistic, X, y, declared, rng):
    """``(D, D', search result)``: the search's witness neighbour of ``(X, y)``."""
    result = sensitivity_search(statistic, X, y, declared, rng=rng)
    return (X, y), result.witness.apply(X, y), result


def released_weights_problem(rng, n, p, lam=5.0):
    """Rademacher rows ``(n, p)``, binary labels, and released weights drawn in the ball of
    radius ``lam`` (intercept entry last): a vector ``(p + 1,)`` and a 3-class matrix."""
    X = rademacher(rng, n, p)
    labels = rng.integers(0, 2, n).astype(np.float64)
    w = random_l1_ball_init((p + 1, 1), lam, rng)[:, 0]
    W = random_l1_ball_init((p + 1, 3, 1), lam, rng)[..., 0]
    return X, labels, w, W


class OntoShift:
    """Projection of vector outputs onto the unit direction from ``q(D)`` to ``q(D')``."""

    def __init__(self, before, after):
        shift = np.asarray(after, dtype=np.float64) - np.asarray(before, dtype=np.float64)
        self.direction = shift / np.linalg.norm(shift)

    def __call__(self, outputs):
        return np.asarray(outputs) @ self.direction
