"""Shared test problems and helpers for the baseline tests."""
from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from dplasso.data.synthetic import sparse_logistic_synthetic

N_SAMPLES, N_FEATURES, N_TRUE = 2000, 50, 5
"""The brief's separable-ish problem: n=2000, p=50, a 5-sparse model."""

EPSILON_LARGE = 1000.0
"""'Very large' epsilon: noise negligible against the signal at n=2000, p=50."""


@lru_cache(maxsize=1)
def synthetic_problem():
    """``(X, y, w_true)``: Gaussian design scaled to ``max|x| = 1``, 5 coefficients of ±10.

    The logit has standard deviation about 0.23 * sqrt(5) * 10 = 5, so labels are nearly
    (not exactly) separable; the non-private L1 fit reaches about 0.89 training accuracy.
    """
    data = sparse_logistic_synthetic(n=N_SAMPLES, p=N_FEATURES, k=N_TRUE, coef_value=10.0,
                                     random_state=0)
    X = data.X
    X.setflags(write=False)
    return X, data.y, data.w_true


def accuracy(coef, intercept, X, y):
    """Training accuracy of the linear classifier ``1[x.coef + intercept > 0]``."""
    margin = np.asarray(X @ coef).ravel() + (0.0 if intercept is None else intercept)
    return float(np.mean((margin > 0) == (y == 1)))


def support_recall(coef, w_true):
    """Fraction of the true support that is nonzero in ``coef``."""
    true = np.flatnonzero(w_true)
    return float(np.mean(coef[true] != 0))


def small_problem(n=40, p=6, seed=0, density=None):
    """A small random problem in the data domain (dense, or sparse CSR with ``density``)."""
    rng = np.random.default_rng(seed)
    if density is None:
        X = rng.uniform(-1.0, 1.0, size=(n, p))
    else:
        X = sp.random(n, p, density=density, format="csr", random_state=seed,
                      data_rvs=lambda k: rng.uniform(-1.0, 1.0, k))
    y = (rng.random(n) < 0.5).astype(float)
    y[:2] = [0.0, 1.0]
    return X, y
