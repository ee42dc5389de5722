"""The label set is public: neighbours that differ in whether a label occurs give outputs of
the same shape, the same ``classes_`` and the same ledger.

Replace-one neighbours: a dataset with exactly one row labelled 2 and the same dataset with
that row's label replaced by 1 (multiclass); a binary dataset with exactly one positive row
and the same with that row's label set to 0 (then no positive row at all). With the label
set passed as ``classes`` every classifier fits both; without it the labels come from ``y``,
the private classifiers warn :class:`~dplasso.estimators.PrivacyLeakWarning` once per fit, and
the second neighbour of the binary pair cannot even be fitted (the leak the warning names).
"""
import warnings

import numpy as np
import pytest

from dplasso.baselines.estimators import (
    DPIGHTClassifier,
    NonPrivateLassoClassifier,
    ObjectivePerturbationClassifier,
    PrivateADMMClassifier,
    TwoStageClassifier,
)
from dplasso.estimators import (
    FrankWolfeLassoClassifier,
    PrivacyLeakWarning,
    PrivateFrankWolfeLassoClassifier,
    SparsifierClassifier,
)

MULTICLASS = [
    FrankWolfeLassoClassifier(n_iter=20),
    PrivateFrankWolfeLassoClassifier(n_iter=20, epsilon=1.0, random_state=0),
    SparsifierClassifier(n_iter=20, epsilon=1.0, random_state=0),
]
BINARY_ONLY = [
    TwoStageClassifier(epsilon=1.0, random_state=0),
    DPIGHTClassifier(epsilon=1.0, random_state=0),
    PrivateADMMClassifier(epsilon=1.0, random_state=0),
    ObjectivePerturbationClassifier(epsilon=1.0, random_state=0),
    NonPrivateLassoClassifier(tol=1e-6),
]
PRIVATE = (PrivateFrankWolfeLassoClassifier, SparsifierClassifier, TwoStageClassifier,
           DPIGHTClassifier, PrivateADMMClassifier, ObjectivePerturbationClassifier)


def _features(n=40, p=4, seed=0):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n, p))


def multiclass_pair():
    """Labels 0/1 and one row labelled 2; its neighbour relabels that row 1."""
    X = _features()
    y = (X[:, 0] > 0).astype(int)
    y[5] = 2
    y_prime = y.copy()
    y_prime[5] = 1
    return X, y, y_prime


def binary_pair():
    """One positive row; its neighbour relabels it 0 (no positive row left)."""
    X = _features()
    y = np.zeros(X.shape[0], dtype=int)
    y[5] = 1
    return X, y, np.zeros_like(y)


def _fit(estimator, X, y, classes):
    return estimator.set_params(classes=classes).fit(X, y)


def _assert_same_shape_of_output(first, second, X):
    np.testing.assert_array_equal(first.classes_, second.classes_)
    assert first.coef_.shape == second.coef_.shape
    assert first.intercept_.shape == second.intercept_.shape
    assert first.predict_proba(X).shape == second.predict_proba(X).shape
    assert np.isfinite(first.coef_).all() and np.isfinite(second.coef_).all()
    if hasattr(first, "privacy_ledger_"):
        assert getattr(first, "n_iter_", None) == getattr(second, "n_iter_", None)
        assert first.privacy_ledger_.events == second.privacy_ledger_.events
        assert first.privacy_guarantee_ == second.privacy_guarantee_


@pytest.mark.parametrize("estimator", MULTICLASS, ids=lambda e: type(e).__name__)
def test_a_label_present_in_one_neighbour_only_keeps_the_multiclass_output(estimator):
    X, y, y_prime = multiclass_pair()
    first = _fit(estimator, X, y, [0, 1, 2])
    second = _fit(estimator, X, y_prime, [0, 1, 2])
    _assert_same_shape_of_output(first, second, X)
    np.testing.assert_array_equal(second.classes_, [0, 1, 2])
    assert second.coef_.shape == (3, X.shape[1])


@pytest.mark.parametrize("estimator", MULTICLASS + BINARY_ONLY, ids=lambda e: type(e).__name__)
def test_a_binary_dataset_without_positives_fits_like_its_neighbour(estimator):
    X, y, y_prime = binary_pair()
    first = _fit(estimator, X, y, [0, 1])
    second = _fit(estimator, X, y_prime, [0, 1])
    _assert_same_shape_of_output(first, second, X)
    assert second.coef_.shape == (1, X.shape[1])


@pytest.mark.parametrize("estimator", MULTICLASS + BINARY_ONLY, ids=lambda e: type(e).__name__)
def test_labels_read_from_the_data_warn_once_and_tell_neighbours_apart(estimator):
    X, y, y_prime = binary_pair()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fit(estimator, X, y, None)
    leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert len(leaks) == (1 if isinstance(estimator, PRIVATE) else 0)
    assert all("not private" in str(w.message) and "classes=" in str(w.message) for w in leaks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match="one class only"):
            _fit(estimator, X, y_prime, None)


def test_the_label_set_is_sorted_and_may_hold_labels_of_any_kind():
    X, y, _ = binary_pair()
    labels = np.where(y == 1, "yes", "no")
    model = PrivateFrankWolfeLassoClassifier(n_iter=5, random_state=0,
                                             classes=["yes", "no", "maybe"]).fit(X, labels)
    np.testing.assert_array_equal(model.classes_, ["maybe", "no", "yes"])
    assert model.coef_.shape == (3, X.shape[1])
    assert set(model.predict(X)) <= {"maybe", "no", "yes"}


@pytest.mark.parametrize("estimator", [e for e in MULTICLASS + BINARY_ONLY
                                       if isinstance(e, PRIVATE)],
                         ids=lambda e: type(e).__name__)
def test_the_leak_warning_points_at_the_callers_fit(estimator):
    X, y, _ = binary_pair()
    with pytest.warns(PrivacyLeakWarning) as caught:
        estimator.set_params(classes=None).fit(X, y)
    assert caught[0].filename == __file__
