r"""Where the default Sparsifier's weights come from: private Frank-Wolfe or objective perturbation.

The joint release (:mod:`dplasso.estimators.joint_release`) reads the released weights only,
so any private release of them can come before it. Two do here:

- **private Frank-Wolfe** over the L1 ball (P1's; its error bound grows like
  :math:`(\ln d)^{2/3}/(n\varepsilon)^{2/3}`, Talwar et al. 2015), and
- **L2 objective perturbation** (the L2 reference's mechanism,
  :func:`dplasso.estimators.objective_perturbation.l2_mechanism`; its error bound grows like
  :math:`d/(n\varepsilon)`, Chaudhuri et al. 2011), binary models only.

The second bound is the smaller when :math:`d` is below about :math:`(n\varepsilon)^{1/3}`
(up to the logarithm), so the public rule (:func:`resolve_weights`, ``weights="auto"``) takes
objective perturbation when the model is binary, the count is the joint release, and the
design's columns (the constant column included) satisfy
:math:`d \le c\,(n\varepsilon)^{1/3}`, with :math:`c` = :data:`OBJECTIVE_PERTURBATION_SCALE`
set on the synthetic family only (:func:`!dplasso.experiments.design.weights_design`). Every
quantity of the rule (``n`` under replace-one, ``d``, the budget, the classes) is public, so
neighbours get the same mechanism.
"""
from __future__ import annotations

import math

from dplasso.estimators.composition import pure_part
from dplasso.estimators.objective_perturbation import l2_mechanism, perturbed_weights
from dplasso.estimators.params import check_choice

__all__ = [
    "WEIGHTS",
    "DEFAULT_WEIGHTS",
    "OBJECTIVE_PERTURBATION_SCALE",
    "prefers_objective_perturbation",
    "resolve_weights",
    "objective_perturbation_weights",
]

WEIGHTS = ("auto", "frank-wolfe", "objective-perturbation")
"""``"auto"`` (the public rule :func:`resolve_weights`) or one of the two mechanisms."""

DEFAULT_WEIGHTS = "auto"

OBJECTIVE_PERTURBATION_SCALE = 8.0
r""":math:`c` of the rule :math:`d \le c\,(n\varepsilon)^{1/3}` (module docstring)."""

_SOLVE_TOL = 1e-9


def prefers_objective_perturbation(n_samples, n_columns, epsilon, *,
                                   scale=OBJECTIVE_PERTURBATION_SCALE):
    r"""Whether :math:`d \le c\,(n\varepsilon)^{1/3}` for ``d = n_columns`` (public)."""
    return bool(n_columns <= scale * math.cbrt(n_samples * epsilon))


def resolve_weights(weights, *, n_samples, n_columns, epsilon, n_classes, count):
    """The weights' mechanism of one fit: ``"frank-wolfe"`` or ``"objective-perturbation"``.

    ``"auto"`` applies the module's rule; ``"objective-perturbation"`` needs two classes
    and ``count="joint"`` (the release that reads no Frank-Wolfe step), else ValueError.
    """
    weights = check_choice(weights, "weights", WEIGHTS)
    eligible = n_classes == 2 and count == "joint"
    if weights == "auto":
        chosen = eligible and prefers_objective_perturbation(n_samples, n_columns, epsilon)
        return "objective-perturbation" if chosen else "frank-wolfe"
    if weights == "objective-perturbation" and not eligible:
        raise ValueError("weights='objective-perturbation' needs two classes and "
                         f"count='joint', got {n_classes} classes and count={count!r}")
    return weights


def objective_perturbation_weights(design, y, *, epsilon, delta, n_trials, rng):
    r"""``K`` L2 objective-perturbation releases of the weights, for the joint release.

    Parameters
    ----------
    design : ndarray or scipy.sparse matrix of shape (n, d)
        The fit's design (rows :math:`\|x_i\|_\infty \le 1`, the constant column included).
    y : ndarray of shape (n,)
        Labels ``{0, 1}``.
    epsilon, delta : float
        The weights' share of the budget, and the ``delta`` a Gaussian noise may spend.
    n_trials : int
    rng : numpy.random.Generator

    Returns
    -------
    W_full : ndarray of shape (d, K)
    part : tuple
        ``(ledger, guarantee)`` of the release
        (:func:`~dplasso.estimators.composition.pure_part`): :math:`(\varepsilon, \delta)`-DP
        with Gaussian noise, pure with Gamma-norm noise (the book's
        ``lem-objective-perturbation``).
    """
    n_columns = design.shape[1]
    mechanism = l2_mechanism(n_columns, epsilon, delta)
    W_full = perturbed_weights(design, y, mechanism, n_trials=n_trials, rng=rng, tol=_SOLVE_TOL)
    part = pure_part(mechanism.event(note=(
        f"Sparsifier weights by L2 objective perturbation ({mechanism.noise} noise, "
        f"d={n_columns} columns, quadratic weight {mechanism.quad_weight:.6g})")))
    return W_full, part
