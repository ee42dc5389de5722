"""Privacy mechanisms, events, ledger and accounting (replace-one neighbouring relation).

Modules: :mod:`~dplasso.privacy.laplace`, :mod:`~dplasso.privacy.discrete_laplace` (exact
double-geometric sampler), :mod:`~dplasso.privacy.gaussian`,
:mod:`~dplasso.privacy.selection` (report-noisy-min, exponential mechanism),
:mod:`~dplasso.privacy.accounting` (events, ledger, composition, budget accountant),
:mod:`~dplasso.privacy.calibration` (total budget to per-step noise scale),
:mod:`~dplasso.privacy.shares` (budget splits whose shares never add up to more than the whole),
:mod:`~dplasso.privacy.ulps` (a calibrated float nudged by ulps until the ledger agrees),
:mod:`~dplasso.privacy.rng` (random-state conversion).
"""
from dplasso._lazy import lazy_exports

__all__ = [
    "REPLACE_ONE",
    "as_generator",
    "PrivacyEvent",
    "PrivacyGuarantee",
    "PrivacyLedger",
    "BudgetAccountant",
    "BudgetExceededError",
    "basic_composition",
    "advanced_composition",
    "zcdp_composition",
    "zcdp_to_epsilon",
    "compose",
    "laplace_noise",
    "laplace_scale",
    "laplace_event",
    "discrete_laplace_noise",
    "discrete_laplace_scale",
    "discrete_laplace_event",
    "gaussian_noise",
    "gaussian_rho",
    "gaussian_event",
    "report_noisy_min",
    "exponential_mechanism_min",
    "ReportNoisyMinSelector",
    "ExponentialMechanismSelector",
    "calibrate_report_noisy_min",
    "calibrate_exponential_mechanism",
    "talwar_laplace_scale",
    "fw_score_sensitivity",
    "split_share",
    "even_share",
]

lazy_exports(__name__, {
    "accounting": (
        "BudgetAccountant", "BudgetExceededError", "PrivacyEvent", "PrivacyGuarantee",
        "PrivacyLedger", "advanced_composition", "basic_composition", "compose",
        "zcdp_composition", "zcdp_to_epsilon",
    ),
    "calibration": (
        "calibrate_exponential_mechanism", "calibrate_report_noisy_min", "fw_score_sensitivity",
        "talwar_laplace_scale",
    ),
    "discrete_laplace": (
        "discrete_laplace_event", "discrete_laplace_noise", "discrete_laplace_scale",
    ),
    "gaussian": ("gaussian_event", "gaussian_noise", "gaussian_rho"),
    "laplace": ("laplace_event", "laplace_noise", "laplace_scale"),
    "neighbours": ("REPLACE_ONE",),
    "rng": ("as_generator",),
    "shares": ("even_share", "split_share"),
    "selection": (
        "ExponentialMechanismSelector", "ReportNoisyMinSelector", "exponential_mechanism_min",
        "report_noisy_min",
    ),
})
