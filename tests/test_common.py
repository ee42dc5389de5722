"""scikit-learn's estimator checks over every estimator of :mod:`dplasso.estimators` and
:mod:`dplasso.baselines.estimators`, and over :class:`dplasso.data.PublicRangeScaler`.

The checks feed data outside the project's data domain (features of any size), so every
estimator is built with ``bounds="clip"``: the explicit opt-in that clips entries to
``[-1, 1]`` in ``fit`` (prediction clips any finite row whatever ``bounds``). Clipping is a fixed per-row map, so the private
estimators' guarantees hold for the unclipped data as well. Parameters keep the checks fast
(few steps), and the private estimators run at a large epsilon so that their models are
accurate enough for the checks that measure accuracy (a privacy level no one would deploy;
the checks test the API contract, not privacy). Every check passes: no entry of
``expected_failed_checks`` is needed (one would name a single check and give its reason).

The checks fit on label sets of their own choosing (strings, several sizes), so the
estimators are built without ``classes``, and the private ones then warn
:class:`~dplasso.estimators.PrivacyLeakWarning` on every fit (labels read from the data).
That warning, and only it, is ignored here; ``tests/proofs/test_label_set.py`` tests it.
"""
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from dplasso.baselines.estimators import (
    DPIGHTClassifier,
    NonPrivateLassoClassifier,
    ObjectivePerturbationClassifier,
    PrivateADMMClassifier,
    TwoStageClassifier,
)
from dplasso.data import PublicRangeScaler
from dplasso.estimators import (
    FrankWolfeLassoClassifier,
    PrivateFrankWolfeLassoClassifier,
    SparseDPLogisticRegression,
    SparsifierClassifier,
)

ESTIMATORS = [
    FrankWolfeLassoClassifier(n_iter=100, bounds="clip"),
    PrivateFrankWolfeLassoClassifier(n_iter=100, epsilon=1e4, delta=1e-6,
                                     selection="exponential", bounds="clip", random_state=0),
    PrivateFrankWolfeLassoClassifier(n_iter=100, epsilon=100.0, delta=1e-6,
                                     selection="laplace", init="random", bounds="clip",
                                     random_state=0),
    SparsifierClassifier(n_iter=100, epsilon=1e4, delta=1e-6, bounds="clip", random_state=0),
    SparsifierClassifier(n_iter=100, epsilon=100.0, delta=1e-6, count_sensitivity=1,
                         fit_intercept=False, bounds="clip", random_state=0),
    SparseDPLogisticRegression(epsilon=1e4, delta=1e-6, bounds="clip", random_state=0),
    # Baselines (binary only: their multiclass check expects the "Only binary" error). A given
    # n_nonzero of 1 keeps the one-feature check valid.
    TwoStageClassifier(epsilon=1e4, bounds="clip", random_state=0),
    TwoStageClassifier(n_nonzero=1, epsilon=1e4, delta=1e-6, noise="gaussian",
                       count_noise="laplace", fit_intercept=False, bounds="clip",
                       random_state=0),
    PrivateADMMClassifier(epsilon=1e4, bounds="clip", random_state=0),
    DPIGHTClassifier(epsilon=1e4, delta=1e-6, bounds="clip", random_state=0),
    ObjectivePerturbationClassifier(epsilon=1e4, bounds="clip", random_state=0),
    NonPrivateLassoClassifier(tol=1e-6, bounds="clip"),
    # Scalar ranges: the checks vary the number of features.
    PublicRangeScaler(low=-3.0, high=3.0),
]


@pytest.mark.filterwarnings("ignore::dplasso.estimators.PrivacyLeakWarning")
# scikit-learn's check data at epsilon = 1e4 (a near-zero quadratic weight) can stall the
# objective-perturbation solve above its tolerance; it says so (a ConvergenceWarning, tested in
# tests/unit/estimators), which is beside what these API checks test.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
