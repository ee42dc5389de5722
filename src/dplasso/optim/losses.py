r"""Smooth losses for the L1-ball problem, batched over trials.

Each loss is a mean over rows, :math:`L(w) = \frac1n \sum_i \ell(x_i^\top w; y_i)`, and is
evaluated for ``K`` weight vectors at once: binary and regression weights have shape
``(p, K)``, multinomial weights ``(p, C, K)``. Every loss goes through the linear predictor
``Z = X W`` (shape ``(n, K)`` or ``(n, C, K)``), computed once and reused for the value and
the gradient:

- ``value_and_residual(Z, y)`` returns the per-trial values and the *residual*
  :math:`R = \partial \ell / \partial z` (same shape as ``Z``);
- ``gradient_from_residual(X, R)`` returns :math:`\nabla L = X^\top R / n`.

``X`` may be a dense array or a ``scipy.sparse`` matrix (CSR/CSC); it is never densified
(products are ``X @ W`` and ``X.T @ R``).

Constants (stated for rows with :math:`\|x_i\|_\infty \le 1`, the project's data domain):

- logistic: per-example gradient sup norm :math:`|\sigma(z)-y|\,\|x\|_\infty < 1`;
  smoothness (Euclidean) of ``L``: :math:`\|X\|_2^2 / (4n)`.
- multinomial: per-example gradient entries :math:`|p_c - 1[y=c]|\,|x_j| \le 1`;
  smoothness :math:`\|X\|_2^2 / (2n)`.
- squared: per-example gradient sup norm :math:`|x^\top w - y|\,\|x\|_\infty \le
  \lambda + y_{\max}`; smoothness :math:`\|X\|_2^2 / n`.

The squared-loss bound holds on the feasible set :math:`\|w\|_1 \le \lambda` because
:math:`|x^\top w| \le \|x\|_\infty \|w\|_1 \le \lambda`. The smoothness constants bound the
largest Hessian eigenvalue: the logistic Hessian is :math:`X^\top D X / n` with
:math:`D = \mathrm{diag}(\sigma'(z_i)) \preceq I/4`; the squared-loss Hessian is
:math:`X^\top X / n`; the multinomial Hessian (flattened entry ``j * C + c``) is
:math:`\frac1n \sum_i x_i x_i^\top \otimes (\mathrm{diag}(p_i) - p_i p_i^\top)`, and for a
unit vector :math:`v`, :math:`v^\top(\mathrm{diag}(p) - p p^\top) v = \mathrm{Var}_p(v)
\le (\max_c v_c - \min_c v_c)^2 / 4 \le 1/2` (Popoviciu's inequality), so the Hessian is
:math:`\preceq \tfrac1{2n} X^\top X \otimes I_C`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from dplasso.optim.validation import (
    check_binary_labels,
    check_class_labels,
    check_real_target,
)

__all__ = [
    "Loss",
    "LogisticLoss",
    "MultinomialLoss",
    "SquaredLoss",
    "squared_spectral_norm",
]


_EXACT_SVD_BELOW = 64
"""Dense matrices with fewer rows or columns than this get an exact LAPACK SVD."""


def squared_spectral_norm(X):
    r"""Return :math:`\|X\|_2^2`, the squared largest singular value of ``X``.

    ARPACK (``svds``, ``k=1``, converged to machine precision, from a fixed start vector so
    that the value is reproducible) for sparse input, never densified, and for dense input
    with both sides at least 64 (a full SVD costs :math:`O(np\min(n, p))`, ARPACK a few dozen
    products). Smaller dense input uses an exact LAPACK SVD; a single row or column its
    Euclidean norm. The solvers use this value only for their step size: their result is
    certified by the Wolfe gap, which does not depend on it.
    """
    if min(X.shape) == 1:
        if sp.issparse(X):
            return float(X.multiply(X).sum())
        return float(np.sum(np.square(X)))
    if sp.issparse(X) or min(X.shape) >= _EXACT_SVD_BELOW:
        start = np.random.default_rng(0).standard_normal(min(X.shape))
        sigma = svds(X, k=1, v0=start, return_singular_vectors=False)
        return float(sigma[0]) ** 2
    return float(np.linalg.norm(X, 2)) ** 2


class Loss(ABC):
    """A smooth row-mean loss of the linear predictor, batched over ``K`` trials.

    Subclasses fix the weight layout (``n_classes`` weight columns per trial), the label
    check, the pointwise loss and its derivative, and the two constants used by the
    solvers and the privacy calibration (:meth:`gradient_sup_bound`, :meth:`smoothness`).
    """

    n_classes = 1
    """Weight columns per trial: ``C`` for multinomial, 1 otherwise."""

    def weight_shape(self, n_features, n_trials):
        """Shape of a batched weight array: ``(p, K)``, or ``(p, C, K)`` for multinomial."""
        return (n_features, n_trials)

    @abstractmethod
    def check_target(self, y, n_samples):
        """Validate ``y`` for this loss and return it in the form the loss uses."""

    @abstractmethod
    def value_from_predictor(self, Z, y):
        """Per-trial loss values, shape ``(K,)``, from the linear predictor ``Z``."""

    @abstractmethod
    def residual(self, Z, y):
        r"""The residual :math:`R = \partial\ell/\partial z`, same shape as ``Z``."""

    @abstractmethod
    def value_and_residual(self, Z, y):
        """Per-trial values ``(K,)`` and the residual, from one pass over ``Z``."""

    @abstractmethod
    def gradient_sup_bound(self, lam):
        r"""Bound on :math:`\|\nabla_w \ell(w; x, y)\|_\infty` over the data domain and ball."""

    @abstractmethod
    def smoothness(self, X):
        """Lipschitz constant of ``grad L`` in the Euclidean norm (for all ``w``)."""

    def _check_weights(self, X, W):
        expected_ndim = 2 if self.n_classes == 1 else 3
        if W.ndim != expected_ndim or W.shape[0] != X.shape[1] or (
            expected_ndim == 3 and W.shape[1] != self.n_classes
        ):
            raise ValueError(
                f"W must have shape {self.weight_shape(X.shape[1], 'K')} for X with "
                f"{X.shape[1]} columns, got {W.shape}"
            )

    def linear_predictor(self, X, W):
        """``Z = X W``: shape ``(n, K)``, or ``(n, C, K)`` for multinomial weights."""
        self._check_weights(X, W)
        Z = X @ W.reshape(W.shape[0], -1)
        return np.asarray(Z).reshape((X.shape[0],) + W.shape[1:])

    def gradient_from_residual(self, X, R, *, X_T=None):
        r""":math:`\nabla L = X^\top R / n`, shaped like the weights (``(p, K)`` or ``(p, C, K)``).

        Dense ``X`` is multiplied as :math:`(R^\top X)^\top` (BLAS runs the untransposed
        C-ordered ``X`` about twice as fast as ``X.T @ R`` for ``K`` around 20; the result is
        then a Fortran-ordered view); sparse ``X`` as ``X.T @ R``. Callers that repeat the
        product on one sparse ``X`` may pass ``X_T = X.T`` once built (scipy rebuilds the
        transposed matrix object on every ``X.T``, which costs as much as a small product).
        """
        n_samples = X.shape[0]
        R2 = R.reshape(n_samples, -1)
        if sp.issparse(X):
            G = np.asarray((X.T if X_T is None else X_T) @ R2)
        else:
            G = (R2.T @ X).T
        G *= 1.0 / n_samples
        return G.reshape((X.shape[1],) + R.shape[1:])

    def value(self, X, y, W):
        """Per-trial objective values ``L(W[..., k])``, shape ``(K,)``."""
        return self.value_from_predictor(self.linear_predictor(X, W), y)

    def gradient(self, X, y, W, *, X_T=None):
        """Gradient of ``L`` at each trial's weights, same shape as ``W`` (``X_T`` as in
        :meth:`gradient_from_residual`)."""
        return self.gradient_from_residual(X, self.residual(self.linear_predictor(X, W), y),
                                           X_T=X_T)

    def value_and_gradient(self, X, y, W, *, X_T=None):
        """Values ``(K,)`` and gradient (shape of ``W``) sharing one ``X W`` product."""
        values, R = self.value_and_residual(self.linear_predictor(X, W), y)
        return values, self.gradient_from_residual(X, R, X_T=X_T)


def sigmoid_into(U):
    r"""Overwrite ``U`` (holding :math:`-z`) with :math:`\sigma(z) = 1/(1 + e^{-z})`.

    Values lie in :math:`[0, 1]` with absolute error about 1e-16; :math:`e^{-z}` overflows to
    infinity for :math:`z < -709`, where the result is 0 (the overflow is silenced). Four
    passes of numpy's SIMD ``exp`` and arithmetic: about 3.5x faster than
    :math:`(1 + \tanh(z/2))/2` on a CPU without AVX-512, where numpy's float64 ``tanh`` is
    scalar (1.1 ms against 3.8 ms for 100,000 entries).
    """
    with np.errstate(over="ignore"):
        np.exp(U, out=U)
    U += 1.0
    np.reciprocal(U, out=U)
    return U


class LogisticLoss(Loss):
    r"""Binary logistic loss, labels ``y`` in ``{0, 1}``.

    .. math:: \ell(z; y) = \log(1 + e^{z}) - y z = \log(1 + e^{(1 - 2y) z})

    The second form is evaluated as :math:`\max(u, 0) + \log(1 + e^{-|u|})` (no overflow,
    no cancellation); the residual is :math:`\sigma(z) - y` (:func:`sigmoid_into`).

    Notes
    -----
    Per-example gradient :math:`(\sigma(z) - y) x`: since :math:`\sigma(z) \in (0, 1)` and
    :math:`y \in \{0, 1\}`, :math:`|\sigma(z) - y| < 1`, so with :math:`\|x\|_\infty \le 1`
    its sup norm is :math:`< 1` (:meth:`gradient_sup_bound` returns 1, Talwar et al.'s
    constant). Smoothness :math:`\|X\|_2^2 / (4n)` because :math:`\sigma' \le 1/4`.
    """

    def check_target(self, y, n_samples):
        """Labels in ``{0, 1}``, returned as float64."""
        return check_binary_labels(y, n_samples)

    def value_from_predictor(self, Z, y):
        # log(1 + e^u) = max(u, 0) + log1p(e^{-|u|}), u = (1 - 2y) z: no overflow, and
        # log1p keeps tiny losses accurate (several times faster than np.logaddexp).
        u = Z * (1.0 - 2.0 * y)[:, np.newaxis]
        softplus = np.log1p(np.exp(-np.abs(u)))
        softplus += np.maximum(u, 0.0)
        return softplus.mean(axis=0)

    def residual(self, Z, y):
        R = np.negative(Z)
        sigmoid_into(R)
        R -= y[:, np.newaxis]
        return R

    def value_and_residual(self, Z, y):
        return self.value_from_predictor(Z, y), self.residual(Z, y)

    def gradient_sup_bound(self, lam):
        return 1.0

    def smoothness(self, X):
        return squared_spectral_norm(X) / (4.0 * X.shape[0])


class SquaredLoss(Loss):
    r"""Squared error, :math:`L(w) = \frac{1}{2n} \|X w - y\|_2^2`.

    Parameters
    ----------
    y_bound : float or None, default=None
        Public bound on the responses, ``|y_i| <= y_bound``. When given,
        :meth:`check_target` enforces it and :meth:`gradient_sup_bound` uses it.

    Notes
    -----
    Per-example gradient :math:`(x^\top w - y) x`; on the ball :math:`\|w\|_1 \le \lambda`,
    :math:`|x^\top w| \le \lambda`, so its sup norm is at most :math:`\lambda + y_{\max}`.
    Smoothness :math:`\|X\|_2^2 / n`.
    """

    def __init__(self, y_bound=None):
        if y_bound is not None and not (np.isfinite(y_bound) and y_bound >= 0):
            raise ValueError(f"y_bound must be a finite number >= 0, got {y_bound!r}")
        self.y_bound = None if y_bound is None else float(y_bound)

    def check_target(self, y, n_samples):
        """Finite real responses, within ``y_bound`` when one is set; float64."""
        return check_real_target(y, n_samples, y_bound=self.y_bound)

    def value_from_predictor(self, Z, y):
        return 0.5 * np.square(self.residual(Z, y)).mean(axis=0)

    def residual(self, Z, y):
        return Z - y[:, np.newaxis]

    def value_and_residual(self, Z, y):
        R = self.residual(Z, y)
        return 0.5 * np.square(R).mean(axis=0), R

    def gradient_sup_bound(self, lam):
        if self.y_bound is None:
            raise ValueError("the squared-loss gradient bound needs y_bound (|y_i| <= y_bound)")
        return float(lam) + self.y_bound

    def smoothness(self, X):
        return squared_spectral_norm(X) / X.shape[0]


class MultinomialLoss(Loss):
    r"""Multinomial (softmax) cross-entropy over ``C`` classes, labels ``0..C-1``.

    Weights have shape ``(p, C, K)``; the linear predictor ``Z`` has shape ``(n, C, K)``.

    .. math:: \ell(z; y) = \log \sum_{c} e^{z_c} - z_y

    evaluated with the maximum subtracted before exponentiating; the residual is
    :math:`p - e_y` with :math:`p = \mathrm{softmax}(z)`.

    Parameters
    ----------
    n_classes : int
        Number of classes ``C >= 2``.

    Notes
    -----
    Per-example gradient entry :math:`(p_c - 1[y = c])\, x_j` with
    :math:`|p_c - 1[y=c]| \le 1`, so its sup norm is at most 1 when
    :math:`\|x\|_\infty \le 1`. Smoothness :math:`\|X\|_2^2 / (2n)` (module docstring).
    The flattened coordinate of entry ``(j, c)`` is ``j * C + c`` (C order).
    """

    def __init__(self, n_classes):
        if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
            raise TypeError(f"n_classes must be an integer, got {type(n_classes).__name__}")
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        self.n_classes = int(n_classes)

    def weight_shape(self, n_features, n_trials):
        return (n_features, self.n_classes, n_trials)

    def check_target(self, y, n_samples):
        """Integer labels in ``0..C-1``, returned as ``intp``."""
        return check_class_labels(y, n_samples, self.n_classes)

    @staticmethod
    def _log_normaliser(Z):
        """``logsumexp`` over classes ``(n, K)``, and ``exp(Z - max)`` with its class sums."""
        Z_max = Z.max(axis=1, keepdims=True)
        E = np.exp(Z - Z_max)
        S = E.sum(axis=1, keepdims=True)
        return (Z_max + np.log(S))[:, 0, :], E, S

    def value_from_predictor(self, Z, y):
        log_norm, _, _ = self._log_normaliser(Z)
        return (log_norm - Z[np.arange(Z.shape[0]), y, :]).mean(axis=0)

    def residual(self, Z, y):
        # the softmax alone: the values' logarithm and mean are not needed (same P bits)
        P = np.exp(Z - Z.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        P[np.arange(Z.shape[0]), y, :] -= 1.0
        return P

    def value_and_residual(self, Z, y):
        log_norm, P, S = self._log_normaliser(Z)
        rows = np.arange(Z.shape[0])
        values = (log_norm - Z[rows, y, :]).mean(axis=0)
        P /= S
        P[rows, y, :] -= 1.0
        return values, P

    def gradient_sup_bound(self, lam):
        return 1.0

    def smoothness(self, X):
        return squared_spectral_norm(X) / (2.0 * X.shape[0])
