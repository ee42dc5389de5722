r"""The safe screening rule for the L1-ball problem (gap-safe ball) [ours: a reconstruction].

Problem: :math:`\min_{\|w\|_1 \le \lambda} F(w) = f(Xw)`, with
:math:`f(z) = \frac1n \sum_k \ell(z_k; y_k)` for the logistic or the squared loss. With
:math:`g = \nabla F(w) = X^\top \nabla f(Xw)` and :math:`G(w) = \langle g, w\rangle +
\lambda\|g\|_\infty` the Wolfe gap, every optimum :math:`w^\star` satisfies

.. math::

    \|\nabla f(Xw) - \nabla f(Xw^\star)\|_2 \le r(G(w)), \qquad
    r_{\mathrm{dual}}(G) = \sqrt{2 L G}, \qquad
    r_{\mathrm{primal}}(G) = L \sqrt{2 G / \mu},

with :math:`L = \sup\ell''/n` the smoothness of ``f`` and :math:`\mu = \inf_{|z| \le
\lambda}\ell''/n` its strong convexity on the feasible image (:mod:`.constants`). Since
:math:`w^\star_i \ne 0` forces :math:`|g^\star_i| = \max_j |g^\star_j|`, feature ``i`` is
zero in every optimum if

.. math::

    |g_i| + r\,\|x_{(i)}\|_2 \;<\; \max_j \big(|g_j| - r\,\|x_{(j)}\|_2\big).

The derivation (book page "The screening rule and its private version", lemmas
``lem-dual-radius``, ``lem-primal-radius``, ``lem-rule-safe``) shows
:math:`r_{\mathrm{dual}} \le r_{\mathrm{primal}}` always; the dual radius is the default.

Floating-point guard (remark ``rem-rounding-floor``): the computed gap of a
(near-)optimal point rounds to about zero or below, and a zero radius would screen
support features whose computed :math:`|g_i|` fall short of the maximum by rounding. The
rule therefore uses :math:`G_{\mathrm{used}} = \max(\hat G, 0) + G_{\mathrm{floor}}` with
:math:`G_{\mathrm{floor}} = (n + p)\,\varepsilon_{\mathrm{mach}}\,(F(w) +
\lambda\|g\|_\infty)`, a rounding-level allowance relative to the objective scale, so the
radius is never below :math:`r(G_{\mathrm{floor}})`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dplasso.optim.validation import check_lam, check_X_bounded
from dplasso.optim.wolfe_gap import wolfe_gap
from dplasso.screening.constants import check_screening_loss, curvature

__all__ = [
    "FEASIBILITY_RTOL",
    "RADIUS_KINDS",
    "ScreeningResult",
    "column_norms",
    "dual_radius",
    "evaluate_rule",
    "feasible_weights",
    "gap_rounding_floor",
    "primal_radius",
    "rule_bounds",
    "safe_radius",
    "screen",
]

RADIUS_KINDS = ("dual", "primal")
"""Names of the two safe radii: ``"dual"`` (:math:`\\sqrt{2LG}`) and ``"primal"``."""

FEASIBILITY_RTOL = 1e-9
"""Relative excess of ``||w||_1`` over ``lam`` accepted as rounding (then rescaled)."""


def column_norms(X):
    """Euclidean norms of the columns of ``X``, shape ``(p,)``; sparse input stays sparse."""
    if sp.issparse(X):
        return np.sqrt(np.asarray(X.multiply(X).sum(axis=0)).ravel())
    return np.linalg.norm(X, axis=0)


def dual_radius(gap, smoothness):
    r"""Safe radius :math:`\sqrt{2 L G}` from smoothness alone (lemma ``lem-dual-radius``).

    Parameters
    ----------
    gap : float or ndarray
        A bound :math:`G \ge F(w) - F(w^\star)` (the Wolfe gap), ``>= 0``.
    smoothness : float
        :math:`L`, the smoothness of ``f`` in the predictor ``z``.

    Returns
    -------
    float or ndarray
        Bound on :math:`\|\nabla f(Xw) - \nabla f(Xw^\star)\|_2`.
    """
    return np.sqrt(2.0 * smoothness * gap)


def primal_radius(gap, smoothness, strong_convexity):
    r"""Safe radius :math:`L\sqrt{2G/\mu}` from strong convexity (lemma ``lem-primal-radius``).

    Parameters
    ----------
    gap : float or ndarray
        A bound :math:`G \ge F(w) - F(w^\star)`, ``>= 0``.
    smoothness : float
        :math:`L`, the smoothness of ``f`` in ``z``.
    strong_convexity : float
        :math:`\mu > 0`, the strong convexity of ``f`` on the feasible image.

    Returns
    -------
    float or ndarray
        Bound on :math:`\|\nabla f(Xw) - \nabla f(Xw^\star)\|_2`; never smaller than
        :func:`dual_radius` because :math:`\mu \le L`.
    """
    return smoothness * np.sqrt(2.0 * gap / strong_convexity)


def safe_radius(gap, loss, lam, n_samples, radius_kind="dual"):
    """The safe radius of kind ``radius_kind`` for ``loss`` on ``n_samples`` rows.

    Parameters
    ----------
    gap : float or ndarray
        Gap bound(s) ``>= 0``.
    loss : LogisticLoss or SquaredLoss
        The loss.
    lam : float
        Radius of the L1 ball.
    n_samples : int
        Number of rows ``n`` (the mean over rows puts ``1/n`` into both constants).
    radius_kind : {"dual", "primal"}, default="dual"
        Which radius.

    Returns
    -------
    float or ndarray
    """
    _check_radius_kind(radius_kind)
    curv = curvature(loss, lam)
    L = curv.smoothness(n_samples)
    if radius_kind == "dual":
        return dual_radius(gap, L)
    return primal_radius(gap, L, curv.strong_convexity(n_samples))


def gap_rounding_floor(objective, grad, lam, n_samples, n_features):
    r"""Rounding-level floor of the Wolfe gap, relative to the objective scale.

    .. math:: G_{\mathrm{floor}} = (n + p)\,\varepsilon_{\mathrm{mach}}\,
              \big(|F(w)| + \lambda \|g\|_\infty\big)

    Parameters
    ----------
    objective : ndarray of shape (K,)
        :math:`F(w)` per trial.
    grad : ndarray of shape (p, K)
        :math:`g = \nabla F(w)` per trial.
    lam : float
        Radius of the L1 ball.
    n_samples, n_features : int
        ``n`` and ``p``: the lengths of the sums behind ``z = Xw``, ``g = X^T r / n``
        and the gap; each rounding is relative to ``eps`` (float64 machine epsilon).

    Returns
    -------
    ndarray of shape (K,)

    Notes
    -----
    The gap is computed as a sum of terms of size up to :math:`\lambda\|g\|_\infty` that
    cancel near an optimum, from a gradient accumulated over ``n`` rows, from predictors
    accumulated over ``p`` features. :math:`(n+p)\varepsilon` times the scale is the
    classical worst-case growth of such sums (Higham's :math:`\gamma_{n+p}`); the objective
    value keeps the floor positive where :math:`g \approx 0` (an interior optimum). The
    radius built from this floor, :math:`\sqrt{2 L G_{\mathrm{floor}}}`, exceeds the
    worst-case rounding of each :math:`g_i` (at most :math:`n\varepsilon\|x_{(i)}\|_2
    \|\nabla f\|_2`, and :math:`\|\nabla f\|_2 \le \sqrt{2 L F}` for a nonnegative
    :math:`L`-smooth loss) whenever :math:`n \le \varepsilon^{-1/2} \approx 6.7\cdot10^7`.
    This is a stated allowance, not a proof covering every floating-point path.
    """
    eps = np.finfo(np.float64).eps
    scale = np.abs(objective) + lam * np.abs(grad).max(axis=0)
    return (n_samples + n_features) * eps * scale


def rule_bounds(grad, col_norms, radius):
    r"""Apply the rule: per-feature statistics, the threshold and the screening mask.

    Parameters
    ----------
    grad : ndarray of shape (p, K)
        :math:`g = \nabla F(w)` per trial.
    col_norms : ndarray of shape (p,)
        :math:`\|x_{(i)}\|_2`.
    radius : ndarray of shape (K,)
        Safe radius per trial.

    Returns
    -------
    mask : ndarray of bool of shape (p, K)
        ``statistic < threshold``: features that are zero in every optimum.
    statistic : ndarray of shape (p, K)
        :math:`|g_i| + r\|x_{(i)}\|_2`, an upper bound on :math:`|g^\star_i|`.
    threshold : ndarray of shape (K,)
        :math:`\max_j (|g_j| - r\|x_{(j)}\|_2)`, a lower bound on :math:`\|g^\star\|_\infty`.
    """
    slack = col_norms[:, np.newaxis] * radius[np.newaxis, :]
    magnitude = np.abs(grad)
    statistic = magnitude + slack
    threshold = (magnitude - slack).max(axis=0)
    return statistic < threshold, statistic, threshold


@dataclass(frozen=True)
class ScreeningResult:
    r"""The screening mask and the numbers behind it (``K`` trials).

    Attributes
    ----------
    mask : ndarray of bool of shape (p, K)
        Features certified zero in every optimum.
    statistic : ndarray of shape (p, K)
        :math:`|g_i| + r\|x_{(i)}\|_2`.
    threshold : ndarray of shape (K,)
        :math:`\max_j (|g_j| - r\|x_{(j)}\|_2)`.
    radius : ndarray of shape (K,)
        The safe radius used, :math:`r(G_{\mathrm{used}})`.
    gap : ndarray of shape (K,)
        The computed Wolfe gap :math:`\hat G`.
    gap_floor : ndarray of shape (K,)
        :func:`gap_rounding_floor`.
    gap_used : ndarray of shape (K,)
        :math:`\max(\hat G, 0) + G_{\mathrm{floor}}`.
    objective : ndarray of shape (K,)
        :math:`F(w)`.
    radius_kind : str
        ``"dual"`` or ``"primal"``.
    """

    mask: np.ndarray
    statistic: np.ndarray
    threshold: np.ndarray
    radius: np.ndarray
    gap: np.ndarray
    gap_floor: np.ndarray
    gap_used: np.ndarray
    objective: np.ndarray
    radius_kind: str

    @property
    def guard_active(self):
        """Per trial: the computed gap is at or below the rounding floor."""
        return self.gap <= self.gap_floor

    @property
    def n_screened(self):
        """Number of screened features per trial, shape ``(K,)``."""
        return self.mask.sum(axis=0)


def feasible_weights(W, lam, n_features):
    r"""Check batched weights ``(p, K)`` against the L1 ball; rescale rounding excess.

    Parameters
    ----------
    W : array-like of shape (p, K)
        Weights, one column per trial.
    lam : float
        Radius of the L1 ball.
    n_features : int
        ``p``.

    Returns
    -------
    ndarray of float64 of shape (p, K)
        ``W``, with any trial whose :math:`\|w\|_1` exceeds ``lam`` by at most
        :data:`FEASIBILITY_RTOL` (relative) scaled back onto the sphere: the rule is then
        evaluated at that feasible point (any feasible point gives a safe rule).

    Raises
    ------
    ValueError
        If ``W`` has the wrong shape, contains NaN/infinity, or lies outside the ball by
        more than rounding (the rule's first-order argument needs a feasible point).
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape[0] != n_features or W.shape[1] < 1:
        raise ValueError(f"W must have shape ({n_features}, K), got {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("W contains NaN or infinity")
    l1 = np.abs(W).sum(axis=0)
    outside = np.flatnonzero(l1 > lam * (1.0 + FEASIBILITY_RTOL))
    if outside.size:
        k = int(outside[0])
        raise ValueError(
            f"W must lie in the L1 ball of radius lam={lam!r}: trial {k} has "
            f"||w||_1 = {l1[k]!r}"
        )
    over = l1 > lam
    if np.any(over):
        W = W.copy()
        W[:, over] *= lam / l1[over]
    return W


def _check_radius_kind(radius_kind):
    if radius_kind not in RADIUS_KINDS:
        raise ValueError(f"radius_kind must be one of {RADIUS_KINDS}, got {radius_kind!r}")


def evaluate_rule(X, y, W, lam, loss, col_norms, *, radius_kind="dual", gradient=None,
                  objective=None):
    """Evaluate the rule on inputs already validated (see :func:`screen`).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        Checked design matrix.
    y : ndarray of shape (n,)
        Targets as returned by ``loss.check_target``.
    W : ndarray of shape (p, K)
        Feasible weights (:func:`feasible_weights`).
    lam : float
        Radius of the L1 ball.
    loss : LogisticLoss or SquaredLoss
        The loss.
    col_norms : ndarray of shape (p,)
        :func:`column_norms` of ``X`` (computed once by callers that screen repeatedly).
    radius_kind : {"dual", "primal"}, default="dual"
        Which safe radius.
    gradient, objective : ndarray of shape (p, K) and (K,), optional
        :math:`\nabla F(W)` and the loss values :math:`F(W)` when the caller has them (the
        Frank-Wolfe engine passes them to its callbacks); computed otherwise (one ``X W``
        and, for the gradient, one ``X^T R`` product).

    Returns
    -------
    ScreeningResult
    """
    n_samples, n_features = X.shape
    if gradient is None:
        objective, grad = loss.value_and_gradient(X, y, W)
    else:
        grad = np.asarray(gradient)
        objective = loss.value(X, y, W) if objective is None else np.asarray(objective)
    gap = wolfe_gap(W, grad, lam)
    floor = gap_rounding_floor(objective, grad, lam, n_samples, n_features)
    gap_used = np.maximum(gap, 0.0) + floor
    radius = safe_radius(gap_used, loss, lam, n_samples, radius_kind)
    mask, statistic, threshold = rule_bounds(grad, col_norms, radius)
    return ScreeningResult(
        mask=mask, statistic=statistic, threshold=threshold, radius=radius, gap=gap,
        gap_floor=floor, gap_used=gap_used, objective=objective, radius_kind=radius_kind,
    )


def screen(X, y, W, lam, loss, *, radius_kind="dual"):
    r"""Non-private safe screening at the weights ``W`` (``K`` trials at once).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix with rows ``||x_i||_inf <= 1`` (checked); never densified.
    y : array-like of shape (n,)
        Targets in the loss's encoding (labels ``{0, 1}`` for logistic).
    W : array-like of shape (p, K)
        Weights inside the L1 ball (e.g. Frank-Wolfe iterates).
    lam : float
        Radius of the L1 ball, ``> 0`` (a constraint radius, not a penalty weight).
    loss : LogisticLoss or SquaredLoss
        The loss from :mod:`dplasso.optim.losses`.
    radius_kind : {"dual", "primal"}, default="dual"
        ``"dual"``: :math:`\sqrt{2LG}`; ``"primal"``: :math:`L\sqrt{2G/\mu}` (never smaller).

    Returns
    -------
    ScreeningResult
        ``mask[i, k]`` is True when feature ``i`` is zero in every optimum (trial ``k``'s
        certificate), with the statistics, threshold, radius and gaps behind it.

    Raises
    ------
    ValueError
        On invalid data, ``lam``, ``radius_kind``, or weights outside the ball.
    TypeError
        If ``loss`` is not a logistic or squared loss.

    Notes
    -----
    Cost: one ``X W`` and one ``X^T R`` product (``O(nnz(X) K)``), plus ``O(pK)``; the
    column norms cost ``O(nnz(X))``. Safe in exact arithmetic (lemma ``lem-rule-safe``)
    and guarded against a gap that rounded to zero (:func:`gap_rounding_floor`).
    """
    _check_radius_kind(radius_kind)
    X = check_X_bounded(X)
    lam = check_lam(lam)
    check_screening_loss(loss)
    y = loss.check_target(y, X.shape[0])
    W = feasible_weights(W, lam, X.shape[1])
    return evaluate_rule(X, y, W, lam, loss, column_norms(X), radius_kind=radius_kind)
