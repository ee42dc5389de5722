"""Random starting points in the L1 ball (the "naive" private Frank-Wolfe variant of P1)."""
from __future__ import annotations

import numpy as np

from dplasso.optim.validation import check_lam

__all__ = ["random_l1_ball_init"]


def random_l1_ball_init(shape, lam, rng):
    r"""Draw each trial's weights uniformly from the L1 ball of radius ``lam``.

    The trailing axis of ``shape`` indexes trials; each trial is one independent point of
    :math:`\{w \in \mathbb R^m : \|w\|_1 \le \lambda\}` with ``m`` the product of the other
    axes (``(p, K)`` gives ``m = p``; ``(p, C, K)`` gives ``m = p*C``).

    Parameters
    ----------
    shape : tuple of int
        Weight shape ``(p, K)`` or ``(p, C, K)``.
    lam : float
        Radius of the ball, ``> 0``.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of float64 with the given shape

    Notes
    -----
    Exponential spacings: with :math:`E_1, \dots, E_{m+1}` i.i.d. Exp(1) and
    :math:`S = \sum_{i \le m+1} E_i`, the vector :math:`(E_1, \dots, E_m)/S` is Dirichlet
    :math:`(1, \dots, 1)` with its last coordinate dropped, i.e. uniform on the corner
    simplex :math:`\{u \ge 0, \sum u_i \le 1\}`. Independent uniform signs map the corner
    simplex onto each of the :math:`2^m` orthants, so :math:`\lambda\,\pm u` is uniform in
    the ball. Consequences used by the tests: :math:`(\|w\|_1/\lambda)^m \sim U(0, 1)` and
    :math:`|w_j|/\lambda \sim \mathrm{Beta}(1, m)`.
    """
    lam = check_lam(lam)
    shape = tuple(int(s) for s in shape)
    if len(shape) not in (2, 3) or min(shape) < 1:
        raise ValueError(f"shape must be (p, K) or (p, C, K) with positive sizes, got {shape}")
    n_coords = int(np.prod(shape[:-1]))
    n_trials = shape[-1]
    spacings = rng.standard_exponential((n_coords + 1, n_trials))
    W = spacings[:n_coords] * (lam / spacings.sum(axis=0))
    W *= rng.choice(np.array([-1.0, 1.0]), size=W.shape)
    return W.reshape(shape)
