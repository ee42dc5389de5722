"""Small seeded problems for the optimisation unit tests (a helper module, not a test)."""
import numpy as np
import scipy.sparse as sp

from dplasso.optim import LogisticLoss, MultinomialLoss, SquaredLoss

N_CLASSES = 3


def make_problem(kind, fmt="dense", *, n=60, p=8, seed=0):
    """Return ``(loss, X, y)`` with rows ``||x||_inf <= 1``; ``fmt`` in dense/csr/csc."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    if fmt != "dense":
        X[rng.uniform(size=X.shape) < 0.5] = 0.0
    w = rng.normal(size=p) * 2.0
    if kind == "logistic":
        loss = LogisticLoss()
        y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ w))).astype(float)
    elif kind == "squared":
        loss = SquaredLoss(y_bound=None)
        y = X @ w + 0.1 * rng.normal(size=n)
    elif kind == "multinomial":
        loss = MultinomialLoss(N_CLASSES)
        y = np.argmax(X @ rng.normal(size=(p, N_CLASSES)) * 2.0
                      + rng.gumbel(size=(n, N_CLASSES)), axis=1)
    else:
        raise ValueError(kind)
    if fmt == "csr":
        X = sp.csr_matrix(X)
    elif fmt == "csc":
        X = sp.csc_matrix(X)
    return loss, X, y

