r"""An independent high-accuracy solver for the L1-ball problem (for tests and baselines).

Accelerated projected gradient (FISTA, Beck and Teboulle 2009) with gradient-based
adaptive restart (O'Donoghue and Candès 2015) and the exact Euclidean projection onto
the L1 ball (Duchi, Shalev-Shwartz, Singer and Chandra 2008). It shares nothing with
the Frank-Wolfe engine except the loss functions and the input checks: the point is an
independent answer to compare the engine against.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplasso.optim.losses import Loss
from dplasso.optim.validation import check_lam, check_n_iter, check_X_bounded

__all__ = ["ReferenceSolution", "project_l1_ball", "solve_reference"]


@dataclass(frozen=True)
class ReferenceSolution:
    """Output of :func:`solve_reference`.

    Attributes
    ----------
    w : ndarray of shape (p,) or (p, C)
        The solution (single problem, no trial axis).
    objective : float
        ``L(w)``.
    gap : float
        Wolfe gap at ``w``: a certificate, ``L(w) - L* <= gap``.
    n_iter : int
        Accelerated gradient iterations run.
    converged : bool
        Whether ``gap <= tol * L(0)`` was reached within ``max_iter``.
    """

    w: np.ndarray
    objective: float
    gap: float
    n_iter: int
    converged: bool


def project_l1_ball(v, lam):
    r"""Euclidean projection of ``v`` onto :math:`\{w : \|w\|_1 \le \lambda\}`.

    Parameters
    ----------
    v : array-like
        Point to project (any shape; the ball is over all its entries).
    lam : float
        Radius, ``> 0``.

    Returns
    -------
    ndarray of float64, shape of ``v``

    Notes
    -----
    Sort-based algorithm of Duchi et al. (2008), ``O(m log m)``: if
    :math:`\|v\|_1 > \lambda` the projection is
    :math:`\mathrm{sign}(v) \max(|v| - \theta, 0)` where, with :math:`u` the sorted
    magnitudes (descending) and :math:`\rho = \max\{j : u_j > (\sum_{i \le j} u_i - \lambda)
    / j\}`, :math:`\theta = (\sum_{i \le \rho} u_i - \lambda)/\rho`.
    """
    lam = check_lam(lam)
    v = np.asarray(v, dtype=np.float64)
    magnitude = np.abs(v)
    if magnitude.sum() <= lam:
        return v.copy()
    u = np.sort(magnitude, axis=None)[::-1]
    excess = np.cumsum(u) - lam
    rho = np.flatnonzero(u * np.arange(1, u.size + 1) > excess)[-1]
    theta = excess[rho] / (rho + 1)
    return np.sign(v) * np.maximum(magnitude - theta, 0.0)


def solve_reference(loss, X, y, lam, *, tol=1e-10, max_iter=100_000, check_every=10):
    r"""Solve :math:`\min_{\|w\|_1 \le \lambda} L(w)` to a certified accuracy.

    Parameters
    ----------
    loss : Loss
        A loss from :mod:`dplasso.optim.losses`.
    X : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix, rows ``||x_i||_inf <= 1`` (checked); sparse stays sparse.
    y : array-like of shape (n,)
        Targets in the loss's encoding.
    lam : float
        Radius of the L1 ball, ``> 0``.
    tol : float, default=1e-10
        Stop when the Wolfe gap is at most ``tol * L(0)`` (celer-style natural scale:
        ``log 2`` for logistic, ``log C`` multinomial, ``||y||^2 / (2n)`` squared).
    max_iter : int, default=100000
        Iteration cap; the result reports whether the gap target was met.
    check_every : int, default=10
        Evaluate the gap (one extra gradient) every this many iterations.

    Returns
    -------
    ReferenceSolution

    Notes
    -----
    Step ``1 / L_smooth`` with ``L_smooth = loss.smoothness(X)``; extrapolation
    :math:`y_{k+1} = x_{k+1} + \frac{\theta_k - 1}{\theta_{k+1}}(x_{k+1} - x_k)`, reset
    (:math:`\theta = 1`, :math:`y = x`) whenever
    :math:`\langle y_k - x_{k+1}, x_{k+1} - x_k \rangle > 0`. The gap
    :math:`\langle w, g\rangle + \lambda\|g\|_\infty` is computed here directly, not by the
    engine's helper, to keep the two code paths independent.
    """
    if not isinstance(loss, Loss):
        raise TypeError(f"loss must be a dplasso.optim.losses.Loss, got {type(loss).__name__}")
    X = check_X_bounded(X)
    y = loss.check_target(y, X.shape[0])
    lam = check_lam(lam)
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a finite number > 0, got {tol!r}")
    max_iter = check_n_iter(max_iter, name="max_iter")
    check_every = check_n_iter(check_every, name="check_every")
    shape = loss.weight_shape(X.shape[1], 1)

    def value_gap(w):
        value, g = loss.value_and_gradient(X, y, w)
        return float(value[0]), float(np.vdot(w, g) + lam * np.abs(g).max())

    x = np.zeros(shape)
    scale = float(loss.value(X, y, x)[0])
    objective, gap = value_gap(x)
    n_done = 0
    if gap > tol * scale:
        step = 1.0 / loss.smoothness(X)
        extrapolated = x
        theta = 1.0
        for n_done in range(1, max_iter + 1):
            x_new = project_l1_ball(extrapolated - step * loss.gradient(X, y, extrapolated), lam)
            if np.vdot(extrapolated - x_new, x_new - x) > 0:
                theta = 1.0
                extrapolated = x_new
            else:
                theta_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
                extrapolated = x_new + ((theta - 1.0) / theta_new) * (x_new - x)
                theta = theta_new
            x = x_new
            if n_done % check_every == 0 or n_done == max_iter:
                objective, gap = value_gap(x)
                if gap <= tol * scale:
                    break
    return ReferenceSolution(
        w=x[..., 0], objective=objective, gap=gap, n_iter=n_done,
        converged=gap <= tol * scale,
    )
