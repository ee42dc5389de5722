"""Prior sparse private logistic regressions P1 compares against, and non-private references.

Each method is a pure function ``fit_<method>(X, y, *, epsilon, delta, ..., random_state)``
returning a :class:`~dplasso.baselines.result.BaselineFit` ``(coef, intercept, ledger,
info)``; the scikit-learn classifiers of :mod:`~dplasso.baselines.estimators`
(:class:`TwoStageClassifier`, :class:`PrivateADMMClassifier`, :class:`DPIGHTClassifier`,
:class:`NonPrivateLassoClassifier`) wrap them with public hyperparameter rules. Neighbouring relation replace-one, rows with
``||x_i||_inf <= 1``, labels ``{0, 1}``, the intercept a constant feature inside the model.

- :func:`~dplasso.baselines.two_stage.fit_two_stage`: Kifer, Smith, Thakurta (2012),
  sample-and-aggregate support selection then objective perturbation.
- :func:`~dplasso.baselines.admm.fit_private_admm`: Wang and Zhang (2019), ADMM with an
  objective-perturbed data step.
- :func:`~dplasso.baselines.dp_ight.fit_dp_ight`: Wang and Gu (2019), noisy gradient steps
  with hard thresholding.
- :func:`~dplasso.baselines.l2_objective_perturbation.objective_perturbation_trials`
  (:class:`ObjectivePerturbationClassifier`): the dense L2-regularised private reference,
  objective perturbation (Chaudhuri et al. 2011) on every column.
- :func:`~dplasso.baselines.nonprivate.fit_nonprivate_lasso` (L1-constrained, certified) and
  :func:`~dplasso.baselines.nonprivate.fit_sklearn_l1_logistic` (scikit-learn, penalised).
"""
from dplasso.baselines.admm import fit_private_admm
from dplasso.baselines.dp_ight import fit_dp_ight
from dplasso.baselines.estimators import (
    DPIGHTClassifier,
    NonPrivateLassoClassifier,
    ObjectivePerturbationClassifier,
    PrivateADMMClassifier,
    TwoStageClassifier,
)
from dplasso.baselines.nonprivate import fit_nonprivate_lasso, fit_sklearn_l1_logistic
from dplasso.baselines.result import BaselineFit
from dplasso.baselines.two_stage import fit_two_stage

__all__ = [
    "TwoStageClassifier",
    "PrivateADMMClassifier",
    "DPIGHTClassifier",
    "NonPrivateLassoClassifier",
    "ObjectivePerturbationClassifier",
    "BaselineFit",
    "fit_dp_ight",
    "fit_nonprivate_lasso",
    "fit_private_admm",
    "fit_sklearn_l1_logistic",
    "fit_two_stage",
]
