r"""Scikit-learn classifiers around the baseline fit functions, with public hyperparameter rules.

- :class:`TwoStageClassifier` wraps :func:`~dplasso.baselines.two_stage.fit_two_stage`;
- :class:`PrivateADMMClassifier` wraps :func:`~dplasso.baselines.admm.fit_private_admm`;
- :class:`DPIGHTClassifier` wraps :func:`~dplasso.baselines.dp_ight.fit_dp_ight`;
- :class:`ObjectivePerturbationClassifier` wraps
  :func:`~dplasso.baselines.l2_objective_perturbation.objective_perturbation_trials` (the
  dense L2 reference);
- :class:`NonPrivateLassoClassifier` wraps
  :func:`~dplasso.baselines.nonprivate.fit_nonprivate_lasso`.

They share the contract of :mod:`dplasso.estimators` through its base class: labels of any
kind (two classes; ``classes_[1]`` is the positive one), ``coef_`` of shape ``(1, p)`` and
``intercept_`` of shape ``(1,)``, rows :math:`\|x_i\|_\infty \le 1` (an error naming the row,
or clipping on request with ``bounds="clip"``), the intercept a constant feature inside the
model, ``privacy_ledger_`` / ``privacy_guarantee_`` for the private ones, and a budget
accountant that refuses a fit before any work on the data (check, fit, spend).

**Hyperparameters.** Every private hyperparameter is a public rule: a function of ``n``,
``p``, the budget and the other hyperparameters only, never of the private data, so tuning
costs no privacy. The rules and the evidence behind their constants are in the docstrings of
:mod:`~dplasso.baselines.estimators.rules`. The one hyperparameter no public rule can set well is the sparsity
level ``s`` of the two-stage method and DP-IGHT (their papers take it as known). By default
(``n_nonzero="count"``) it is released exactly as the Sparsifier releases its support size:
a share ``count_fraction`` of ``epsilon`` buys the double-geometric count of the nonzeros of the
non-private L1-constrained fit (radius ``count_lam``), and the method runs on the rest
(:func:`fit_with_private_count`). The Sparsifier and these two baselines then get the same
treatment: by default the count is noised at its proven sensitivity :math:`p`
(``count_sensitivity="max"``), and P1's :math:`\Delta_c = 1` is a declared, unproven choice
(:mod:`dplasso.estimators.count`).
"""
from dplasso.baselines.estimators.accounting import (
    AccountedFit,
    account_fit,
    fit_with_private_count,
    with_private_threshold,
)
from dplasso.baselines.estimators.admm import PrivateADMMClassifier
from dplasso.baselines.estimators.l2 import ObjectivePerturbationClassifier
from dplasso.baselines.estimators.nonprivate import NonPrivateLassoClassifier
from dplasso.baselines.estimators.rules import (
    ADMM_JACOBIAN_SHARE,
    ADMM_N_ITER,
    DP_IGHT_N_ITER,
    admm_alpha,
    admm_hyperparameters,
    admm_rho,
    dp_ight_step_size,
    fit_dp_ight_public_step,
)
from dplasso.baselines.estimators.sparse import DPIGHTClassifier, TwoStageClassifier

__all__ = [
    "ADMM_JACOBIAN_SHARE",
    "ADMM_N_ITER",
    "DP_IGHT_N_ITER",
    "AccountedFit",
    "DPIGHTClassifier",
    "NonPrivateLassoClassifier",
    "ObjectivePerturbationClassifier",
    "PrivateADMMClassifier",
    "TwoStageClassifier",
    "account_fit",
    "with_private_threshold",
    "admm_alpha",
    "admm_hyperparameters",
    "admm_rho",
    "dp_ight_step_size",
    "fit_dp_ight_public_step",
    "fit_with_private_count",
]
