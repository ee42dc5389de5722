r"""An independent high-accuracy solver for the L1-ball problem (for tests and baselines).

Accelerated projected gradient (FISTA, Beck and Teboulle 2009) with gradient-based
adaptive restart (O'Donoghue and Candès 2015) and the exact Euclidean projection onto
the L1 ball (Duchi, Shalev-Shwartz, Singer and Chandra 2008). It shares nothing with
the Frank-Wolfe engine except the loss functions and the input checks: the point is an
independent answer to compare the engine against. Its loop, :func:`fista`, is also the
restricted solve of :func:`dplasso.optim.working_set.solve_working_set`, the certified solver
the library uses on whole data sets.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dplasso.optim.losses import Loss
from dplasso.optim.validation import check_lam, check_positive_int, check_X_bounded

__all__ = ["ReferenceSolution", "project_l1_ball", "solve_reference"]


@dataclass(frozen=True)
class ReferenceSolution:
    """Output of :func:`solve_reference` and :func:`~dplasso.optim.working_set.solve_working_set`.

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
    If :math:`\|v\|_1 > \lambda` the projection is
    :math:`\mathrm{sign}(v) \max(|v| - \theta, 0)` with :math:`\theta > 0` the root of
    :math:`f(\theta) = \sum_j \max(|v_j| - \theta, 0) = \lambda` (Duchi, Shalev-Shwartz,
    Singer and Chandra 2008). :func:`!_l1_threshold` finds it in expected ``O(m)`` time.
    """
    return _project(np.asarray(v, dtype=np.float64), check_lam(lam))


def _project(v, lam):
    """:func:`project_l1_ball` of a float64 array ``v`` on a checked radius (no validation:
    the inner loop of :func:`fista`)."""
    magnitude = np.abs(v)
    if magnitude.sum() <= lam:
        return v.copy()
    theta = _l1_threshold(magnitude.ravel(), lam)
    magnitude -= theta
    np.maximum(magnitude, 0.0, out=magnitude)
    magnitude *= np.sign(v)
    return magnitude


_SORT_BELOW = 1024
"""Candidate count below which :func:`_l1_threshold` finishes by sorting (a constant cost)."""


def _l1_threshold(u, lam):
    r"""The root :math:`\theta` of :math:`\sum_j \max(u_j - \theta, 0) = \lambda`, for
    :math:`u \ge 0` with :math:`\sum_j u_j > \lambda`.

    Randomized pivoting (Duchi et al. 2008, Fig. 2), after one filtering pass. With
    :math:`f(t) = \sum_j \max(u_j - t, 0)` decreasing, :math:`\theta \ge t_0 =
    (\sum_j u_j - \lambda)/m` because :math:`f(t_0) \ge \sum_j (u_j - t_0) = \lambda`;
    entries :math:`\le t_0` are inactive and dropped. Then, for a pivot :math:`k` drawn
    uniformly among the candidates: if :math:`f(k) < \lambda`, :math:`\theta < k` and every
    candidate :math:`\ge k` is active (its sum and number are moved to ``s`` and ``rho``);
    otherwise :math:`\theta \ge k` and every candidate :math:`\le k` is inactive. Each
    round halves the candidates in expectation, so the expected total work is ``O(m)``;
    the last ``< 1024`` candidates are sorted (Duchi et al.'s sort-based rule, a bounded
    cost). The pivots come from a generator with a fixed seed: the result is a
    deterministic function of ``u`` (the pivots affect only the order of summation).
    """
    # Below the sorting size the filter is skipped: the entries it drops are inactive and sort
    # after every candidate, so the prefix sums and the last active index are the same.
    candidates = u if u.size < _SORT_BELOW else u[u > (u.sum() - lam) / u.size]
    rng = np.random.default_rng(0) if candidates.size >= _SORT_BELOW else None
    s, rho = 0.0, 0
    while candidates.size >= _SORT_BELOW:
        k = candidates[rng.integers(candidates.size)]
        upper_mask = candidates >= k
        upper = candidates[upper_mask]
        upper_sum = float(upper.sum())
        if s + upper_sum - (rho + upper.size) * k < lam:
            s, rho = s + upper_sum, rho + upper.size
            candidates = candidates[~upper_mask]
        else:
            candidates = upper[upper > k]
    # The sorted tail: the largest j with u_(j) > (s + sum_{i<=j} u_(i) - lam) / (rho + j).
    tail = np.sort(candidates)[::-1]
    excess = s + np.cumsum(tail) - lam
    active = np.flatnonzero(tail * np.arange(rho + 1, rho + tail.size + 1) > excess)
    if active.size:
        j = active[-1]
        return excess[j] / (rho + j + 1)
    return (s - lam) / rho


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
    max_iter = check_positive_int(max_iter, "max_iter")
    check_every = check_positive_int(check_every, "check_every")
    x = np.zeros(loss.weight_shape(X.shape[1], 1))
    scale = float(loss.value(X, y, x)[0])
    x, objective, gap, n_done = fista(loss, X, y, lam, x, target=tol * scale,
                                      max_iter=max_iter, check_every=check_every)
    return ReferenceSolution(
        w=x[..., 0], objective=objective, gap=gap, n_iter=n_done,
        converged=gap <= tol * scale,
    )


def fista(loss, X, y, lam, x, *, target, max_iter, check_every):
    r"""Restarted FISTA from a feasible ``x`` until its Wolfe gap is at most ``target``.

    The loop of :func:`solve_reference`, on inputs already checked (no validation here):
    ``X`` in the data domain, ``y`` in the loss's encoding, ``x`` a weight array of shape
    ``loss.weight_shape(p, 1)`` with :math:`\|x\|_1 \le \lambda`.

    Returns
    -------
    x : ndarray, shape of the input ``x``
    objective : float
        ``L(x)``.
    gap : float
        Wolfe gap of ``x`` on *this* ``X`` (all its columns).
    n_iter : int
        Iterations run (0 when the start already meets ``target``).
    """
    X_T = X.T if sp.issparse(X) else None  # built once: scipy rebuilds it on every X.T
    flat, predictor_shape = (x.shape[0], -1), (X.shape[0],) + x.shape[1:]

    def gradient(w):  # loss.gradient without its per-call weight check (same arithmetic)
        Z = np.asarray(X @ w.reshape(flat)).reshape(predictor_shape)
        return loss.gradient_from_residual(X, loss.residual(Z, y), X_T=X_T)

    def value_gap(w):
        value, g = loss.value_and_gradient(X, y, w, X_T=X_T)
        return float(value[0]), float(np.vdot(w, g) + lam * np.abs(g).max())

    objective, gap = value_gap(x)
    n_done = 0
    if gap > target:
        step = 1.0 / loss.smoothness(X)
        extrapolated = x
        theta = 1.0
        for n_done in range(1, max_iter + 1):
            x_new = _project(extrapolated - step * gradient(extrapolated), lam)
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
                if gap <= target:
                    break
    return x, objective, gap, n_done
