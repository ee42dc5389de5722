"""Small seeded problems for the estimator tests (a helper module, not a test)."""
import numpy as np

from dplasso.data.synthetic import sparse_logistic_synthetic


def binary_problem(n=500, p=20, k=3, seed=0):
    """P1's synthetic family at a small size: ``(X, y, w_true)``, rows ``||x||_inf <= 1``."""
    data = sparse_logistic_synthetic(n=n, p=p, k=k, random_state=seed)
    return data.X, data.y, data.w_true


def three_class_problem(n=600, p=10, seed=0):
    """Three classes from a sparse multinomial model: class ``c`` is driven by feature ``c``.

    ``X`` uniform on ``[-1, 1]^p``; ``y = argmax_c (4 x_c + Gumbel noise)`` over ``c = 0, 1, 2``,
    i.e. a multinomial logit model with weight matrix ``4 (e_0, e_1, e_2)``.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    y = np.argmax(4.0 * X[:, :3] + rng.gumbel(size=(n, 3)), axis=1)
    return X, y
