"""Seeded random L1-ball problems with certified reference solutions, for the screening tests.

Every problem is solved by the independent FISTA reference solver
(:func:`dplasso.optim.reference.solve_reference`) to a Wolfe gap of at most ``1e-13`` times
the objective at zero; its exact L1-ball projection leaves exact zeros off the support.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from dplasso.optim.losses import LogisticLoss, SquaredLoss
from dplasso.optim.reference import solve_reference

REFERENCE_TOL = 1e-13
"""Relative Wolfe-gap target of the reference solves."""

NONZERO_TOL = 1e-9
"""A reference coordinate counts as nonzero when ``|w_i| > NONZERO_TOL * lam``."""


@dataclass(frozen=True)
class Problem:
    """One problem: data, radius, loss, and its certified reference solution ``w_star``."""

    name: str
    X: object
    y: np.ndarray
    lam: float
    loss: object
    w_star: np.ndarray
    reference_gap: float

    @property
    def support(self):
        """Boolean mask of the reference solution's nonzeros (``|w_i| > NONZERO_TOL lam``)."""
        return np.abs(self.w_star) > NONZERO_TOL * self.lam


# (seed, kind, sparse, n, p, lam): 36 problems, dense and sparse, n > p and p > n,
# linear (squared loss) and logistic, radii from well inside to far outside the support's
# unconstrained scale.
SUITE = tuple(
    (seed, kind, sparse, n, p, lam)
    for seed, (n, p) in enumerate([(60, 20), (40, 60), (100, 30)])
    for kind in ("squared", "logistic")
    for sparse in (False, True)
    for lam in ((0.5, 2.0, 6.0) if kind == "squared" else (1.0, 3.0, 8.0))
)


def _design(rng, n, p, sparse):
    if sparse:
        X = sp.random(n, p, density=0.3, format="csr", random_state=rng,
                      data_rvs=lambda size: rng.uniform(-1.0, 1.0, size))
        return X
    return rng.uniform(-1.0, 1.0, (n, p))


@lru_cache(maxsize=None)
def make_problem(seed, kind, sparse, n, p, lam):
    """Build and solve one problem of :data:`SUITE` (cached: the tests share the solves)."""
    rng = np.random.default_rng([seed, n, p, int(sparse), int(lam * 10), kind == "logistic"])
    X = _design(rng, n, p, sparse)
    w_true = np.zeros(p)
    k = max(2, p // 6)
    w_true[rng.choice(p, k, replace=False)] = rng.choice([-1.0, 1.0], k) * rng.uniform(0.5, 2, k)
    z = X @ w_true
    if kind == "squared":
        loss = SquaredLoss(y_bound=None)
        y = z + 0.3 * rng.standard_normal(n)
    else:
        loss = LogisticLoss()
        y = (z + 0.5 * rng.standard_normal(n) > 0).astype(float)
    ref = solve_reference(loss, X, y, lam, tol=REFERENCE_TOL, max_iter=200_000)
    assert ref.converged, f"reference solve did not converge: {seed, kind, sparse, n, p, lam}"
    name = f"{kind}-{'sparse' if sparse else 'dense'}-n{n}-p{p}-lam{lam}-s{seed}"
    return Problem(name, X, y, lam, loss, ref.w, ref.gap)


def all_problems():
    """Every problem of :data:`SUITE`, solved."""
    return [make_problem(*spec) for spec in SUITE]
