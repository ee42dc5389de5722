"""The Sparsifier with every experiment option a parameter, for tests that fit it as an estimator.

:class:`~dplasso.estimators.SparsifierClassifier` fixes P1's settings and
:class:`~dplasso.estimators.SparseDPLogisticRegression` the recommended ones; the other counts,
selections, thresholds and weights are options of :func:`~dplasso.estimators.sparsify_trials`.
:class:`ExperimentSparsifier` gives those options the estimator interface (clone, seed, fit,
ledger) through the same fit as both estimators, so a law test can fit any of them many times.
Its defaults are :data:`~dplasso.estimators.RECOMMENDED_SETTINGS` at the recommended model's
parameters: ``ExperimentSparsifier()`` fits what ``SparseDPLogisticRegression()`` fits.
"""
from dplasso.estimators.base import FrankWolfeClassifierBase
from dplasso.estimators.recommended import RECOMMENDED_SETTINGS
from dplasso.estimators.sparsifier import _fit_sparsifier

SETTINGS = tuple(RECOMMENDED_SETTINGS)
"""The options beyond the recommended model's own parameters."""


class ExperimentSparsifier(FrankWolfeClassifierBase):
    """``sparsify_trials`` with ``K = 1`` behind the estimator interface (tests only)."""

    _private_fit = True

    def __init__(self, lam=RECOMMENDED_SETTINGS["lam"], n_iter=RECOMMENDED_SETTINGS["n_iter"],
                 epsilon=1.0, delta=None, count=RECOMMENDED_SETTINGS["count"],
                 count_fraction=RECOMMENDED_SETTINGS["count_fraction"],
                 count_sensitivity=RECOMMENDED_SETTINGS["count_sensitivity"],
                 count_noise=RECOMMENDED_SETTINGS["count_noise"],
                 selection=RECOMMENDED_SETTINGS["selection"],
                 threshold=RECOMMENDED_SETTINGS["threshold"],
                 threshold_fraction=RECOMMENDED_SETTINGS["threshold_fraction"],
                 fit_intercept=True, bounds="error", weights=RECOMMENDED_SETTINGS["weights"],
                 accountant=None, random_state=None, classes=None):
        self.lam = lam
        self.n_iter = n_iter
        self.epsilon = epsilon
        self.delta = delta
        self.count = count
        self.count_fraction = count_fraction
        self.count_sensitivity = count_sensitivity
        self.count_noise = count_noise
        self.selection = selection
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.weights = weights
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def fit(self, X, y):
        """The fit of both estimators, at this instance's options."""
        return _fit_sparsifier(self, X, y, **{name: getattr(self, name) for name in SETTINGS})
