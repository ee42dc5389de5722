"""Input checks shared by the optimisers and the estimators built on them.

Every check raises ``ValueError`` (or ``TypeError`` for a wrong kind of object) with a
message naming the argument and the problem, and returns the input converted to the form
the solvers use (float64 arrays; sparse matrices kept sparse, never densified). The array checks
import numpy and scipy when called, so the scalar checks (which the command line's parameter
check uses) import nothing heavy.
"""
from __future__ import annotations

import math
import numbers
import sys

__all__ = [
    "DOMAIN_TOLERANCE",
    "check_X_bounded",
    "check_lam",
    "MAX_N_ITER",
    "check_n_iter",
    "check_positive_int",
    "check_n_trials",
    "check_binary_labels",
    "check_class_labels",
    "check_real_target",
]


DOMAIN_TOLERANCE = 4 * sys.float_info.epsilon
"""Entries with ``1 < |x| <= 1 + DOMAIN_TOLERANCE`` (4 ulps of 1) are clipped to exactly
``±1`` instead of rejected: rounding in a scaler (``MinMaxScaler(feature_range=(-1, 1))``
gives ``1.0000000000000002``) is not a domain violation. Clipping is a fixed per-row map,
so every guarantee stated for the domain holds."""

DOMAIN_REMEDY = (
    "scale each feature by bounds known in advance, not read from these rows (e.g. divide it "
    "by its known largest magnitude, or use dplasso.data.PublicRangeScaler(low, high)), so "
    "that every |x_ij| <= 1; or pass bounds=\"clip\" to "
    "the estimator, which clips each entry to [-1, 1] (a fixed per-row map that keeps the "
    "privacy guarantee) at the cost of everything beyond +-1: on raw data a feature whose "
    "values all lie beyond +-1 becomes a constant. A scaler fitted on the private data (e.g. "
    "MinMaxScaler().fit(X)) releases its minima and maxima, which no guarantee covers"
)
"""How to fix a domain violation; part of :func:`check_X_bounded`'s error message."""


def check_X_bounded(X, *, name="X"):
    """Check a design matrix against the project's data domain ``||x_i||_inf <= 1``.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix/array of shape (n_samples, n_features)
        The design matrix. Sparse input in any format is accepted and returned in CSC
        or CSR format (CSR/CSC are kept as given; other formats become CSR).
    name : str, default="X"
        Name used in error messages.

    Returns
    -------
    X : ndarray of float64 or scipy.sparse CSR/CSC of float64
        The validated matrix (a copy only when a conversion was needed, or when entries
        within :data:`DOMAIN_TOLERANCE` above 1 in absolute value were clipped to ``±1``;
        the input is never written). Dense input is checked without a temporary of its
        size.

    Raises
    ------
    ValueError
        If ``X`` is not two-dimensional, has no rows or no columns, contains NaN or
        infinity, or has a row with ``max_j |x_ij| > 1 + DOMAIN_TOLERANCE``; the message
        names the first offending row and its sup norm, and :data:`DOMAIN_REMEDY`.
    """
    import numpy as np
    import scipy.sparse as sp

    if sp.issparse(X):
        if X.format not in ("csr", "csc"):
            X = X.tocsr()
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        values = X.data
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be numeric, got dtype {X.dtype}")
        X = np.asarray(X, dtype=np.float64)
        values = X
    if X.ndim != 2:
        raise ValueError(f"{name} must be two-dimensional, got {X.ndim} dimension(s)")
    n_samples, n_features = X.shape
    if n_samples == 0 or n_features == 0:
        raise ValueError(f"{name} is empty: shape {X.shape}")
    if sp.issparse(X):
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{name} contains NaN or infinity")
        row_sup = np.asarray(abs(X).max(axis=1).todense()).ravel()
    else:
        # Two row reductions instead of np.abs(X): no temporary the size of X. A NaN or an
        # infinity in a row makes its maximum or minimum non-finite.
        row_max, row_min = X.max(axis=1), X.min(axis=1)
        if not (np.isfinite(row_max).all() and np.isfinite(row_min).all()):
            raise ValueError(f"{name} contains NaN or infinity")
        row_sup = np.maximum(row_max, -row_min)
    bad = np.flatnonzero(row_sup > 1.0 + DOMAIN_TOLERANCE)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name} violates the data domain ||x_i||_inf <= 1: row {i} has sup norm "
            f"{float(row_sup[i])!r} ({bad.size} offending row(s)); {DOMAIN_REMEDY}"
        )
    if np.any(row_sup > 1.0):
        X = X.copy()  # the rare rounding case: never write the caller's array
        values = X.data if sp.issparse(X) else X
        np.clip(values, -1.0, 1.0, out=values)
    return X


def check_lam(lam, *, name="lam"):
    """Check the L1-ball radius (a constraint radius, not a penalty weight).

    Returns
    -------
    float
        ``lam`` as a float.

    Raises
    ------
    ValueError
        If ``lam`` is not a finite number ``> 0``.
    """
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(lam).__name__}")
    lam = float(lam)
    if not math.isfinite(lam) or lam <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {lam!r}")
    return lam


MAX_N_ITER = 100_000
"""Most steps a fixed-step solver takes (``n_iter`` of Frank-Wolfe, private ADMM, DP-IGHT),
the reference solvers' default cap (those stop at a tolerance, within their own ``max_iter``).
One Frank-Wolfe step costs a product ``X^T r``; at the book's largest datasets (arcene,
madelon) a step takes milliseconds, so the maximum is minutes of work, not days."""


def check_positive_int(value, name):
    """An integer ``>= 1``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def check_n_iter(n_iter, *, name="n_iter"):
    """Check a number of iterations: an integer in ``[1, MAX_N_ITER]``."""
    n_iter = check_positive_int(n_iter, name)
    if n_iter > MAX_N_ITER:
        raise ValueError(f"{name} must be <= {MAX_N_ITER} (dplasso.optim.validation.MAX_N_ITER), "
                         f"got {n_iter}")
    return n_iter


def check_n_trials(n_trials, *, name="n_trials"):
    """Check a number of batched trials ``K``: an integer ``>= 1``."""
    return check_positive_int(n_trials, name)


def _check_target_vector(y, n_samples, name):
    import numpy as np

    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but X has {n_samples} rows"
        )
    if y.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {y.dtype}")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or infinity")
    return y


def check_binary_labels(y, n_samples, *, name="y"):
    """Check binary labels encoded ``{0, 1}`` (the project's internal encoding).

    Returns
    -------
    ndarray of float64, shape (n_samples,)

    Raises
    ------
    ValueError
        On a length mismatch with ``X``, NaN/infinity, or a value outside ``{0, 1}``.
    """
    import numpy as np

    y = _check_target_vector(y, n_samples, name)
    bad = np.flatnonzero((y != 0) & (y != 1))
    if bad.size:
        raise ValueError(
            f"{name} must be encoded in {{0, 1}}: entry {int(bad[0])} is {y[bad[0]].item()!r}"
        )
    return y.astype(np.float64)


def check_class_labels(y, n_samples, n_classes, *, name="y"):
    """Check multiclass labels encoded ``0..n_classes-1``.

    Returns
    -------
    ndarray of intp, shape (n_samples,)

    Raises
    ------
    ValueError
        On a length mismatch with ``X``, NaN/infinity, a non-integer value, or a
        label outside ``0..n_classes-1``.
    """
    import numpy as np

    y = _check_target_vector(y, n_samples, name)
    labels = y.astype(np.intp)
    bad = np.flatnonzero((labels != y) | (labels < 0) | (labels >= n_classes))
    if bad.size:
        raise ValueError(
            f"{name} must hold integer labels in 0..{n_classes - 1}: entry "
            f"{int(bad[0])} is {y[bad[0]].item()!r}"
        )
    return labels


def check_real_target(y, n_samples, *, y_bound=None, name="y"):
    """Check a real response, optionally against the public bound ``|y_i| <= y_bound``.

    Returns
    -------
    ndarray of float64, shape (n_samples,)

    Raises
    ------
    ValueError
        On a length mismatch with ``X``, NaN/infinity, or ``|y_i| > y_bound``
        (the message names the first offending entry).
    """
    import numpy as np

    y = _check_target_vector(y, n_samples, name).astype(np.float64)
    if y_bound is not None:
        bad = np.flatnonzero(np.abs(y) > y_bound)
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"{name} violates the response bound |y_i| <= {y_bound!r}: entry {i} "
                f"is {y[i].item()!r}"
            )
    return y
