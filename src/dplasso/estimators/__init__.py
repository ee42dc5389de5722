"""Scikit-learn estimators for L1-constrained (LASSO) logistic regression by Frank-Wolfe.

- :class:`SparseDPLogisticRegression`: the library's recommended private model (the
  weights by L2 objective perturbation where the design has few columns against the budget,
  by private Frank-Wolfe otherwise, then one joint private release of the model's size and
  decision threshold, or of a constant model); only the parameters a user must set
  (:mod:`dplasso.estimators.recommended`).
- :class:`FrankWolfeLassoClassifier`: non-private, exact vertex selection.
- :class:`PrivateFrankWolfeLassoClassifier`: private Frank-Wolfe (Talwar, Thakurta & Zhang
  2015), zero or random start.
- :class:`SparsifierClassifier`: P1's Sparsifier as the paper states it (private
  Frank-Wolfe, then keep the noisy-count largest coefficients; :data:`P1_SETTINGS`), at the
  proven count sensitivity unless told otherwise.

Two classes use the logistic loss, more the multinomial loss with a weight matrix. The batched
entry points :func:`private_frank_wolfe_trials` and :func:`sparsify_trials` run ``K``
independent trials of one dataset in one engine call (the estimators call them with ``K = 1``;
:func:`default_sparsifier_trials` is :class:`SparseDPLogisticRegression`'s fit batched);
:func:`sparsify_runs`, the one function behind every Sparsifier fit, runs several settings
(:class:`SparsifierRun`, and plain private Frank-Wolfe runs) in one engine call, and takes
the experiments' options (the other counts, the selections, the released threshold, the
weights' release, :mod:`dplasso.estimators.weights`);
:func:`noisy_count` and :func:`lasso_support_size` are P1's count pieces; the counts that are
private by proof are in :mod:`dplasso.estimators.private_count` and the private decision
threshold, the private classifiers' default, in :mod:`dplasso.estimators.threshold`.
``lam`` is always a constraint radius, not a penalty weight. Every classifier takes the
public label set as ``classes``; a private one fitted without it warns
:class:`PrivacyLeakWarning` (the labels are then read from the data).
"""
from dplasso._lazy import lazy_exports

__all__ = [
    "FrankWolfeLassoClassifier",
    "PrivateFrankWolfeLassoClassifier",
    "SparseDPLogisticRegression",
    "SparsifierClassifier",
    "PrivacyLeakWarning",
    "private_frank_wolfe_trials",
    "sparsify_trials",
    "sparsify_runs",
    "SparsifierRun",
    "P1_SETTINGS",
    "RECOMMENDED_SETTINGS",
    "default_sparsifier_trials",
    "TrialsResult",
    "calibrate_selection",
    "noisy_count",
    "count_noise_event",
    "count_noise_scale",
    "resolve_count_sensitivity",
    "lasso_support_size",
    "keep_largest_entries",
    "split_budget",
    "sparsifier_budget",
    "auto_n_iter",
    "BOUNDS",
    "COUNT_NOISES",
    "COUNTS",
    "THRESHOLDS",
    "DEFAULT_THRESHOLD_FRACTION",
    "INITS",
    "SELECTIONS",
    "DEFAULT_LAM",
    "DEFAULT_COUNT_FRACTION",
    "MAX_AUTO_N_ITER",
    "WEIGHTS",
]

lazy_exports(__name__, {
    "base": ("PrivacyLeakWarning",),
    "count": (
        "COUNT_NOISES", "count_noise_event", "count_noise_scale", "lasso_support_size",
        "noisy_count", "resolve_count_sensitivity",
    ),
    "frank_wolfe": ("FrankWolfeLassoClassifier", "PrivateFrankWolfeLassoClassifier"),
    "params": ("DEFAULT_COUNT_FRACTION", "DEFAULT_LAM", "MAX_AUTO_N_ITER"),
    "private_frank_wolfe": (
        "INITS", "SELECTIONS", "TrialsResult", "auto_n_iter", "calibrate_selection",
        "private_frank_wolfe_trials",
    ),
    "private_count": ("COUNTS",),
    "problem": ("BOUNDS",),
    "recommended": ("RECOMMENDED_SETTINGS", "SparseDPLogisticRegression",
                    "default_sparsifier_trials"),
    "sparsifier": (
        "P1_SETTINGS", "SparsifierClassifier", "SparsifierRun", "keep_largest_entries",
        "sparsifier_budget", "sparsify_runs", "sparsify_trials", "split_budget",
    ),
    "threshold": ("DEFAULT_THRESHOLD_FRACTION", "THRESHOLDS"),
    "weights": ("WEIGHTS",),
})
