r"""The Wolfe (Frank-Wolfe duality) gap over the ``lam``-scaled L1 ball."""
from __future__ import annotations

import numpy as np

__all__ = ["wolfe_gap"]


def wolfe_gap(W, G, lam):
    r"""Wolfe gap of each trial over the L1 ball of radius ``lam``.

    .. math::

        G(w) = \max_{\|s\|_1 \le \lambda} \langle w - s, \nabla L(w) \rangle
             = \langle w, g \rangle + \lambda \|g\|_\infty,

    because the linear function :math:`\langle s, g\rangle` is minimised over the ball at a
    vertex :math:`-\lambda\,\mathrm{sign}(g_j) e_j` with :math:`|g_j| = \|g\|_\infty`.

    Parameters
    ----------
    W : ndarray of shape (m, K) or (p, C, K)
        Feasible weights, one column (trailing index) per trial.
    G : ndarray, same shape as ``W``
        Gradient of the loss at ``W``.
    lam : float
        Radius of the L1 ball (a constraint radius, not a penalty weight).

    Returns
    -------
    ndarray of shape (K,)
        The gap per trial. For feasible ``W`` and a convex loss it is ``>= 0`` and bounds
        the suboptimality, :math:`L(w) - L(w^\star) \le G(w)` (a certificate).
    """
    n_trials = W.shape[-1]
    W_flat = W.reshape(-1, n_trials)
    G_flat = G.reshape(-1, n_trials)
    return np.einsum("jk,jk->k", W_flat, G_flat) + lam * np.abs(G_flat).max(axis=0)
