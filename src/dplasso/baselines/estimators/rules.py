r"""Public hyperparameter rules of the private baselines: functions of ``n``, ``p``, the
budget and the other hyperparameters only, never of the private data, so tuning costs no
privacy. Each docstring gives the rule and the evidence behind its constants (public
synthetic data only).
"""
from __future__ import annotations

import math

from dplasso.baselines._inputs import check_positive_int, check_positive_real
from dplasso.baselines.admm import best_composition, per_iteration_epsilon
from dplasso.baselines.dp_ight import fit_dp_ight
from dplasso.estimators.objective_perturbation import jacobian_epsilon
from dplasso.estimators.params import check_choice, check_epsilon, check_fraction

__all__ = [
    "ADMM_JACOBIAN_SHARE",
    "ADMM_N_ITER",
    "DP_IGHT_N_ITER",
    "admm_alpha",
    "admm_hyperparameters",
    "admm_rho",
    "dp_ight_step_size",
    "fit_dp_ight_public_step",
]


def check_auto_or_positive(value, name):
    """``"auto"``, or a real number ``> 0``."""
    if isinstance(value, str):
        return check_choice(value, name, ("auto",))
    return check_positive_real(value, name)


ADMM_N_ITER = 3
r"""Default number ``K`` of private ADMM iterations (Wang and Zhang leave ``K`` open).

Every iteration is a release, so the budget is split ``K`` ways and the noise of each
``w``-update grows with ``K``; ADMM's first iterations do most of its progress. Evidence, public
synthetic data only (``sparse_logistic_synthetic(n=25000, p=100, k=5, random_state=11)`` and
``(n=6000, p=50, k=5, random_state=12)``, stratified 80/20 split, :func:`admm_rho` and
:func:`admm_alpha`, two noise seeds; test accuracy for ``K = 2 / 3 / 5``): at
:math:`\varepsilon = 5`, 0.77 / 0.76 / 0.74 and 0.77 / 0.76 / 0.68; at :math:`\varepsilon = 1`,
0.59 / 0.55 / 0.54 and 0.55 / 0.56 / 0.50 (non-private 0.78 and 0.80). Two and three are
within the seed-to-seed spread; three keeps more of ADMM's own progress.
"""

ADMM_JACOBIAN_SHARE = 0.1
r"""Share of each ADMM iteration's budget :math:`\varepsilon_0` spent on the Jacobian term.

The objective-perturbation step pays :math:`\varepsilon_J = \log(1 + d/(4n\rho))` for the
Jacobian and the rest :math:`\varepsilon_b = \varepsilon_0 - \varepsilon_J` for the noise;
:func:`admm_rho` solves for the :math:`\rho` giving :math:`\varepsilon_J = 0.1\,\varepsilon_0`.
Kifer et al. split their (single) release in halves; here :math:`\rho` is also the ADMM penalty,
which pulls each ``w``-update toward the consensus point and so damps the noise as well, and
a larger :math:`\rho` both costs less and damps more. On the synthetic problems of
:data:`ADMM_N_ITER` a share of 0.1 beat 0.5 at every ``K`` and :math:`\varepsilon` tried (e.g.
0.76 against 0.69 test accuracy at ``K = 3``, :math:`\varepsilon = 5`).
"""

DP_IGHT_N_ITER = 30
r"""Default number ``T`` of DP-IGHT steps (Wang and Gu set ``T`` from constants we do not have).

The Gaussian noise of every step grows like :math:`\sqrt T` at a fixed budget, while the
hard-thresholded gradient steps need a few tens of iterations at the step size of
:func:`dp_ight_step_size`. Evidence on the public synthetic problems of :data:`ADMM_N_ITER`
(``s = 5`` and ``15``, three seeds; test accuracy for ``T = 10 / 30 / 100``): at
:math:`\varepsilon = 1`, 0.63 / 0.63 / 0.60 and 0.59 / 0.63 / 0.57 (``s = 5``); at
:math:`\varepsilon = 5` all within 0.74-0.80. Thirty is never worse than the others by more
than the seed spread.
"""


def admm_rho(n_samples, n_columns, epsilon_iteration, jacobian_share=ADMM_JACOBIAN_SHARE):
    r"""ADMM penalty :math:`\rho` whose Jacobian term costs ``jacobian_share`` of the budget.

    .. math:: \rho = \frac{d}{4 n\,(e^{f\min(\varepsilon_0,\, 2)} - 1)}
        \quad\Longleftrightarrow\quad \log\Bigl(1 + \frac{d}{4n\rho}\Bigr)
        = f\min(\varepsilon_0, 2),

    with ``d`` the number of model columns (``p``, plus one for the intercept) and
    :math:`\varepsilon_0` the per-iteration budget. Public: ``n``, ``d`` and the budget only.
    Up to :math:`\varepsilon_0 = 2` (every setting of the experiments) the Jacobian term costs
    exactly the share :math:`f`; beyond, it costs less, and the cap keeps :math:`\rho` from
    shrinking like :math:`e^{-f\varepsilon_0}`, which would blow the soft threshold
    :math:`\alpha/\rho` up (with :func:`admm_alpha`, :math:`\alpha/\rho =
    8(e^{f\min(\varepsilon_0, 2)} - 1)/\varepsilon_b`: about :math:`8f/(1-f) \approx 0.9`
    for small budgets, falling to 0 as the noise vanishes).

    Parameters
    ----------
    n_samples : int
        ``n``.
    n_columns : int
        ``d``.
    epsilon_iteration : float
        :math:`\varepsilon_0 > 0`.
    jacobian_share : float, default=0.1
        :math:`f \in (0, 1)`, see :data:`ADMM_JACOBIAN_SHARE`.

    Returns
    -------
    float
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    n_columns = check_positive_int(n_columns, "n_columns")
    epsilon_iteration = check_epsilon(epsilon_iteration, "epsilon_iteration")
    jacobian_share = check_fraction(jacobian_share, "jacobian_share")
    exponent = jacobian_share * min(epsilon_iteration, _ADMM_RHO_BUDGET_CAP)
    return n_columns / (4.0 * n_samples * math.expm1(exponent))


_ADMM_RHO_BUDGET_CAP = 2.0
"""Largest per-iteration budget :func:`admm_rho` scales with (see there)."""


def admm_alpha(n_samples, n_columns, epsilon_noise):
    r"""L1 penalty weight :math:`\alpha`: one standard deviation of a coordinate of the noise.

    .. math:: \alpha = \frac{2d}{n\,\varepsilon_b}.

    The ``w``-update minimises the loss plus :math:`b^\top w/n`, with :math:`b` of Gamma-norm
    density: norm :math:`\mathrm{Gamma}(d, \theta)`, :math:`\theta = 2\sqrt d/\varepsilon_b`,
    uniform direction. A coordinate of :math:`b/n` then has standard deviation
    :math:`\sqrt{\mathbb E\|b\|^2/d}/n = \theta\sqrt{d+1}/n \approx 2d/(n\varepsilon_b)`.
    When :math:`\rho` dominates the loss curvature an ADMM iteration is close to a proximal
    gradient step of length :math:`1/\rho`, whose perturbation :math:`b_j/(n\rho)` meets the
    soft threshold :math:`\alpha/\rho`: this :math:`\alpha` zeroes a coordinate that only noise
    moved with probability about :math:`P(|N(0,1)| < 1) = 0.68`. On the synthetic problems of
    :data:`ADMM_N_ITER`, half and twice this value were worse (at :math:`\varepsilon = 5`,
    ``K = 3``: 0.74 / 0.76 / 0.76 test accuracy with 45 / 14 / 6 nonzeros, and at
    :math:`\varepsilon = 1` twice the value zeroes the true support).

    Parameters
    ----------
    n_samples : int
        ``n``.
    n_columns : int
        ``d`` (features plus intercept column).
    epsilon_noise : float
        :math:`\varepsilon_b > 0`, the noise term's share of the per-iteration budget.

    Returns
    -------
    float
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    n_columns = check_positive_int(n_columns, "n_columns")
    epsilon_noise = check_epsilon(epsilon_noise, "epsilon_noise")
    return 2.0 * n_columns / (n_samples * epsilon_noise)


def dp_ight_step_size(n_nonzero, fit_intercept=True):
    r"""DP-IGHT step :math:`\eta = 1/L_m`, the worst-case restricted smoothness on the domain.

    For ``v`` with at most ``m`` nonzeros and rows :math:`\|x_i\|_\infty \le 1`,
    :math:`v^\top \nabla^2 L\, v = \frac1n\sum_i \sigma'(x_i^\top w)(x_i^\top v)^2 \le
    \frac14\|v\|_1^2 \le \frac m4\|v\|_2^2`. Consecutive iterates have at most ``s`` feature
    coordinates each (plus the intercept), so their difference has :math:`m = 2s + 1` nonzeros
    (:math:`2s` without intercept) and :math:`\eta = 4/m`, the step of iterative hard
    thresholding's analysis (Jain, Tewari and Kar 2014), safe for every dataset in the domain.
    A constant :math:`\eta = 1` did slightly better on the isotropic synthetic problems of
    :data:`ADMM_N_ITER` (by at most 0.05 test accuracy) but exceeds :math:`2/L` on data with
    large correlated entries (one-hot blocks), where gradient descent diverges.

    Parameters
    ----------
    n_nonzero : int
        ``s >= 1``.
    fit_intercept : bool, default=True

    Returns
    -------
    float
    """
    n_nonzero = check_positive_int(n_nonzero, "n_nonzero")
    return 4.0 / (2 * n_nonzero + int(bool(fit_intercept)))


def fit_dp_ight_public_step(X, y, *, epsilon, delta, n_nonzero, n_iter=DP_IGHT_N_ITER,
                            step_size="auto", fit_intercept=True, random_state=None):
    """:func:`~dplasso.baselines.dp_ight.fit_dp_ight` with ``step_size="auto"`` allowed.

    ``"auto"`` is :func:`dp_ight_step_size` of ``n_nonzero`` (public), resolved here because
    the sparsity level may itself be a private release (:func:`fit_with_private_count`).
    Other arguments as in ``fit_dp_ight``.

    Returns
    -------
    BaselineFit
    """
    if isinstance(step_size, str):
        check_choice(step_size, "step_size", ("auto",))
        step_size = dp_ight_step_size(n_nonzero, fit_intercept)
    return fit_dp_ight(X, y, epsilon=epsilon, delta=delta, n_nonzero=n_nonzero,
                       n_iter=n_iter, step_size=step_size, fit_intercept=fit_intercept,
                       random_state=random_state)


def admm_hyperparameters(n_samples, n_columns, epsilon, delta, n_iter, *, alpha="auto",
                         rho="auto"):
    r"""``(alpha, rho)`` of private ADMM, each given or set by its public rule.

    :math:`\varepsilon_0` is the per-iteration budget of the composition the fit will use
    (:func:`~dplasso.baselines.admm.best_composition`); ``rho="auto"`` is :func:`admm_rho`
    of it, ``alpha="auto"`` is :func:`admm_alpha` of the noise share
    :math:`\varepsilon_b = \varepsilon_0 - \log(1 + d/(4n\rho))`.

    Parameters
    ----------
    n_samples : int
        ``n``.
    n_columns : int
        ``d`` (features plus the intercept column).
    epsilon : float
        Total budget ``> 0``.
    delta : float
        Total ``delta`` in ``[0, 1)``.
    n_iter : int
        ``K >= 1``.
    alpha, rho : float or "auto", default="auto"

    Returns
    -------
    alpha, rho : float

    Raises
    ------
    ValueError
        When a given ``rho`` leaves no budget for the noise term (the message gives the
        smallest admissible ``rho``).
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    n_columns = check_positive_int(n_columns, "n_columns")
    n_iter = check_positive_int(n_iter, "n_iter")
    epsilon_0 = per_iteration_epsilon(epsilon, delta, n_iter,
                                      best_composition(epsilon, delta, n_iter))
    rho = (admm_rho(n_samples, n_columns, epsilon_0)
           if check_auto_or_positive(rho, "rho") == "auto" else float(rho))
    epsilon_noise = epsilon_0 - jacobian_epsilon(math.sqrt(n_columns), n_samples * rho)
    if not epsilon_noise > 0:
        rho_min = n_columns / (4.0 * n_samples * math.expm1(epsilon_0))
        raise ValueError(
            f"rho={rho!r} is too small for the per-iteration budget epsilon_0={epsilon_0:.6g}:"
            f" the Jacobian term alone costs it all; use rho > {rho_min:.6g} (or rho='auto')")
    if check_auto_or_positive(alpha, "alpha") == "auto":
        alpha = admm_alpha(n_samples, n_columns, epsilon_noise)
    return float(alpha), rho

