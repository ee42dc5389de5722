"""Seeded L1-ball problems for the reference tests (a helper module, not a test).

Sizes are chosen so that the constraint is active (the unconstrained optimum lies outside
the ball of radius ``LAM``), the solution is sparse but not zero, and ``n > p`` makes the
binary and squared problems strongly convex (used to bound coefficient distances).
"""
import numpy as np
import scipy.sparse as sp

from dplasso.optim import LogisticLoss, MultinomialLoss, SquaredLoss

LAM = 3.0
N_CLASSES = 3


def make_problem(kind, fmt="dense", *, n=300, p=30, seed=0):
    """Return ``(loss, X, y)``; ``fmt`` is "dense", "csr" or "csc" (60% zeros if sparse)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    if fmt != "dense":
        X[rng.uniform(size=X.shape) < 0.6] = 0.0
    w = np.zeros(p)
    w[:6] = [4.0, -4.0, 3.0, -3.0, 2.0, -2.0]
    if kind == "logistic":
        loss = LogisticLoss()
        y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ w))).astype(float)
    elif kind == "squared":
        loss = SquaredLoss()
        y = X @ w + 0.5 * rng.normal(size=n)
    elif kind == "multinomial":
        loss = MultinomialLoss(N_CLASSES)
        W = np.zeros((p, N_CLASSES))
        W[:6] = 3.0 * rng.normal(size=(6, N_CLASSES))
        y = np.argmax(X @ W + rng.gumbel(size=(n, N_CLASSES)), axis=1)
    else:
        raise ValueError(kind)
    if fmt == "csr":
        X = sp.csr_matrix(X)
    elif fmt == "csc":
        X = sp.csc_matrix(X)
    return loss, X, y
