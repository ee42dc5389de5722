r"""The L1-ball problem an estimator poses: the design matrix (data domain, intercept) and the loss.

Data domain (ARCHITECTURE.md): every row satisfies :math:`\|x_i\|_\infty \le 1`. A row that
does not is an error (the message names the first offending row) unless the caller opts in
to clipping with ``bounds="clip"``: each entry is then clipped to :math:`[-1, 1]`. Clipping
is a fixed per-row map (row :math:`i` of the output depends on row :math:`i` of the input
only, through a public constant), so replace-one neighbours stay replace-one neighbours and
every privacy guarantee of the method holds for the original data; it changes the model,
not the privacy. In both modes, entries at most
:data:`~dplasso.optim.validation.DOMAIN_TOLERANCE` (4 ulps) above 1 in absolute value are
clipped to exactly ``±1`` (scaler rounding is not a violation). The domain is a contract on
the training rows: prediction clips any finite row to it (:func:`clip_to_domain`), which
leaves a row in the domain as it is. Scaling the rows with a scaler fitted on the private
data (e.g. ``MinMaxScaler().fit(X)``) is itself a release of the data's minima and maxima
that no guarantee here covers; scale with bounds known in advance
(:class:`dplasso.data.PublicRangeScaler`), or clip.

Intercept: with ``fit_intercept=True`` a constant feature equal to 1 (allowed, :math:`|1| \le
1`) is appended as the *last* column, inside the same L1 ball; its coefficient is the
intercept. Sparse input stays sparse (the column of ones is appended as a sparse block).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dplasso.estimators.params import check_bool
from dplasso.optim.losses import LogisticLoss, MultinomialLoss
from dplasso.optim.validation import check_X_bounded

__all__ = [
    "BOUNDS",
    "apply_bounds",
    "clip_to_domain",
    "with_intercept_column",
    "prepare_design",
    "classification_loss",
    "split_intercept",
]

BOUNDS = ("error", "clip")
"""Values of the estimators' ``bounds`` parameter."""


def apply_bounds(X, bounds):
    """Enforce the data domain ``||x_i||_inf <= 1`` on ``X``.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Numeric features; NaN and infinity are rejected in both modes.
    bounds : {"error", "clip"}
        ``"error"``: a row with sup norm above 1 (beyond the 4-ulp tolerance) raises
        ``ValueError`` naming it and the remedies.
        ``"clip"``: entries are clipped to ``[-1, 1]`` (a copy; the input is never written).

    Returns
    -------
    ndarray of float64 or scipy.sparse CSR/CSC matrix
        Rows in the data domain; sparse input stays sparse (zeros stay zeros).
    """
    if bounds not in BOUNDS:
        raise ValueError(f"bounds must be one of {BOUNDS}, got {bounds!r}")
    if bounds == "clip":
        X = clip_to_domain(X)
    return check_X_bounded(X)


def clip_to_domain(X):
    """A float64 copy of ``X`` with entries clipped to ``[-1, 1]`` (NaN/infinity rejected first).

    Sparse input stays sparse (CSR/CSC kept, other formats become CSR); duplicate entries
    are summed before clipping, so the clipped matrix is the clip of the matrix ``X`` means.
    """
    if sp.issparse(X):
        X = (X if X.format in ("csr", "csc") else X.tocsr()).astype(np.float64, copy=True)
        X.sum_duplicates()
        values = X.data
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            return X  # check_X_bounded names the problem
        X = X.astype(np.float64, copy=True)
        values = X
    if not np.all(np.isfinite(values)):
        raise ValueError("X contains NaN or infinity")
    np.clip(values, -1.0, 1.0, out=values)
    return X


def with_intercept_column(X):
    """Append the constant feature 1 as the last column.

    Dense input gets a dense copy; sparse CSR or CSC input stays in its format, built
    directly from its arrays (no conversion through COO): CSC gets one more column pointer,
    CSR one more entry at the end of each row (the largest column index, so sorted indices
    stay sorted). Other sparse formats become CSR.
    """
    n_samples = X.shape[0]
    if not sp.issparse(X):
        return np.hstack([X, np.ones((n_samples, 1))])
    if X.format not in ("csr", "csc"):
        X = X.tocsr()
    nnz, n_features = X.nnz, X.shape[1]
    big = max(nnz + n_samples, n_features + 1) > np.iinfo(np.int32).max
    index_dtype = np.int64 if big else X.indices.dtype
    indptr = X.indptr.astype(index_dtype, copy=False)
    if X.format == "csc":
        data = np.concatenate([X.data, np.ones(n_samples, dtype=X.dtype)])
        indices = np.concatenate([X.indices.astype(index_dtype, copy=False),
                                  np.arange(n_samples, dtype=index_dtype)])
        indptr = np.append(indptr, nnz + n_samples)
    else:
        indptr = indptr + np.arange(n_samples + 1, dtype=index_dtype)
        ones_at = indptr[1:] - 1
        kept = np.ones(nnz + n_samples, dtype=bool)
        kept[ones_at] = False
        data = np.ones(nnz + n_samples, dtype=X.dtype)
        data[kept] = X.data
        indices = np.full(nnz + n_samples, n_features, dtype=index_dtype)
        indices[kept] = X.indices
    out = type(X)((data, indices, indptr), shape=(n_samples, n_features + 1))
    out.has_sorted_indices = X.has_sorted_indices
    return out


def prepare_design(X, *, fit_intercept, bounds):
    """The matrix the L1-ball problem is posed on: bounded rows, then the intercept column."""
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    X = apply_bounds(X, bounds)
    return with_intercept_column(X) if fit_intercept else X


def classification_loss(n_classes):
    """``(loss, name)``: logistic for 2 classes, multinomial (softmax) for more."""
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
        raise TypeError(f"n_classes must be an integer, got {type(n_classes).__name__}")
    if n_classes < 2:
        raise ValueError(f"n_classes must be >= 2, got {n_classes}")
    if n_classes == 2:
        return LogisticLoss(), "logistic"
    return MultinomialLoss(int(n_classes)), "multinomial"


def split_intercept(W_full, fit_intercept):
    """``(W, intercept)`` from weights whose last row is the intercept when ``fit_intercept``.

    ``W_full`` has shape ``(q, K)`` or ``(q, C, K)``; without an intercept the second output
    is zeros of shape ``(K,)`` or ``(C, K)``.
    """
    if fit_intercept:
        return W_full[:-1], W_full[-1].copy()
    return W_full, np.zeros(W_full.shape[1:])
