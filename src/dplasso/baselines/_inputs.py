"""Input checks shared by the baseline methods, and the intercept column.

Every check raises ``ValueError`` (``TypeError`` for a wrong kind of object) with a message
naming the argument and the problem.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from dplasso.estimators.problem import with_intercept_column
from dplasso.optim.validation import check_binary_labels, check_X_bounded

__all__ = [
    "check_binary_problem",
    "check_epsilon",
    "check_delta",
    "check_fraction",
    "check_positive_real",
    "check_positive_int",
    "with_intercept_column",
]


def check_binary_problem(X, y, *, both_classes=False):
    """Validate a binary classification problem in the project's data domain.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Rows must satisfy ``||x_i||_inf <= 1``; sparse input stays sparse (CSR/CSC).
    y : array-like of shape (n,)
        Labels encoded ``{0, 1}``.
    both_classes : bool, default=False
        Refuse a ``y`` with one class only. Only for a fit that needs both (scikit-learn's):
        a private fit must not refuse one, since that refusal would tell a dataset with one
        positive row from its neighbour with none (the label set is public).

    Returns
    -------
    X : ndarray of float64 or scipy.sparse CSR/CSC matrix
    y : ndarray of float64 of shape (n,)

    Raises
    ------
    ValueError
        On NaN/infinity, an empty ``X``, a row with sup norm above 1, a length mismatch,
        a label outside ``{0, 1}``, or (with ``both_classes``) a single class.
    """
    X = check_X_bounded(X)
    y = check_binary_labels(y, X.shape[0])
    if both_classes and np.all(y == y[0]):
        raise ValueError(
            f"y contains a single class ({int(y[0])}); binary logistic regression needs both "
            "labels 0 and 1"
        )
    return X, y


def _real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    return float(value)


def check_epsilon(epsilon, name="epsilon"):
    """``epsilon`` as a float, required finite and ``> 0``."""
    epsilon = _real(name, epsilon)
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {epsilon!r}")
    return epsilon


def check_delta(delta, *, allow_zero=True, name="delta"):
    """``delta`` as a float in ``[0, 1)`` (``(0, 1)`` when ``allow_zero`` is false)."""
    delta = _real(name, delta)
    low_ok = delta >= 0 if allow_zero else delta > 0
    if not (math.isfinite(delta) and low_ok and delta < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {delta!r}")
    return delta


def check_fraction(value, name):
    """A budget share strictly between 0 and 1."""
    value = _real(name, value)
    if not (0 < value < 1):
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return value


def check_positive_real(value, name):
    """A finite real number ``> 0``."""
    value = _real(name, value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def check_positive_int(value, name, *, maximum=None):
    """An integer ``>= 1`` (and ``<= maximum`` when given)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return int(value)
