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
import pandas as pd
import pytest
from sklearn.base import clone

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
    SparseDPLogisticRegression,
    SparsifierClassifier,
)

MULTICLASS = [
    FrankWolfeLassoClassifier(n_iter=20),
    PrivateFrankWolfeLassoClassifier(n_iter=20, epsilon=1.0, random_state=0),
    SparsifierClassifier(n_iter=20, epsilon=1.0, random_state=0),
    SparseDPLogisticRegression(epsilon=1.0, random_state=0),
    ObjectivePerturbationClassifier(epsilon=1.0, random_state=0),
]
BINARY_ONLY = [
    TwoStageClassifier(epsilon=1.0, random_state=0),
    DPIGHTClassifier(epsilon=1.0, random_state=0),
    PrivateADMMClassifier(epsilon=1.0, random_state=0),
    NonPrivateLassoClassifier(tol=1e-6),
]
PRIVATE = (PrivateFrankWolfeLassoClassifier, SparsifierClassifier, SparseDPLogisticRegression,
           TwoStageClassifier, DPIGHTClassifier, PrivateADMMClassifier,
           ObjectivePerturbationClassifier)


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


def _label_type_pairs():
    """``(name, classes, y, y_prime, binary)``: replace-one neighbours over label types.

    In each pair one row's label is replaced by another label of the public set, and the two
    label vectors differ in what scikit-learn's target-type heuristics would make of them:
    floats with a non-integer value ("continuous"), a label absent from one side, or more
    distinct labels than half the rows (a warning that depends on how many occur).
    """
    n = 22
    pairs = []
    y = np.r_[np.zeros(11), np.ones(11)]
    pairs.append(("int", [0, 1, 2], y.astype(int), _replaced(y.astype(int), 2), False))
    pairs.append(("float-non-integer", [0.0, 0.5, 1.0], y, _replaced(y, 0.5), False))
    pairs.append(("float-binary-non-integer", [-0.5, 0.5], y - 0.5,
                  _replaced(y - 0.5, -0.5), True))
    words = np.where(y == 1, "yes", "no").astype("U5")
    pairs.append(("string", ["maybe", "no", "yes"], words, _replaced(words, "maybe"), False))
    truth = np.zeros(n, dtype=bool)
    truth[0] = True
    pairs.append(("bool", [False, True], truth, _replaced(truth, False), True))
    categories = ["red", "green", "blue"]
    colours = pd.Categorical(np.where(y == 1, "red", "green"), categories=categories)
    pairs.append(("categorical", categories, pd.Series(colours),
                  pd.Series(_replaced(colours, "blue")), False))
    many = np.arange(n) % 12  # 12 labels among 22 rows; the neighbour has 11 of them
    pairs.append(("more-classes-than-n/2", list(range(12)), many,
                  np.where(many == 11, 10, many), False))
    return pairs


def _replaced(labels, label):
    changed = labels.copy()
    changed[0] = label
    return changed


LABEL_TYPE_PAIRS = _label_type_pairs()


def _fit_recording_warnings(estimator, X, y, classes, *, as_errors):
    """Fit, with every warning recorded (``as_errors=False``) or raised (``-W error``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error" if as_errors else "always")
        model = clone(estimator).set_params(classes=classes).fit(X, y)
    return model, [(w.category, str(w.message)) for w in caught]


def _public_attributes(model):
    return {name for name in vars(model) if name.endswith("_") and not name.startswith("_")}


@pytest.mark.parametrize("as_errors", [False, True], ids=["warnings-recorded", "W-error"])
@pytest.mark.parametrize(("name", "classes", "y", "y_prime", "binary"), LABEL_TYPE_PAIRS,
                         ids=[pair[0] for pair in LABEL_TYPE_PAIRS])
def test_neighbours_over_label_types_fit_alike(name, classes, y, y_prime, binary, as_errors):
    """Both neighbours fit, with the same attributes, shapes, ledger and warnings (none
    under ``-W error``), for every classifier the label set suits."""
    X = _features(n=len(y), p=3)
    for estimator in MULTICLASS + (BINARY_ONLY if binary else []):
        first, caught = _fit_recording_warnings(estimator, X, y, classes, as_errors=as_errors)
        second, caught_prime = _fit_recording_warnings(estimator, X, y_prime, classes,
                                                       as_errors=as_errors)
        _assert_same_shape_of_output(first, second, X)
        assert _public_attributes(first) == _public_attributes(second)
        assert caught == caught_prime == [], type(estimator).__name__
        assert set(second.predict(X)) <= set(np.asarray(classes).tolist())


@pytest.mark.parametrize("label", ["1", None, np.nan, 3, 0.25, (0, 1)],
                         ids=["string", "None", "NaN", "int", "float", "tuple"])
def test_a_label_outside_classes_is_one_clear_error_whatever_its_type(label):
    X = _features(n=10, p=2)
    y = np.array([0, 1] * 5, dtype=object)
    y[3] = label
    for estimator in (PrivateFrankWolfeLassoClassifier(n_iter=2, random_state=0),
                      TwoStageClassifier(random_state=0)):
        with pytest.raises(ValueError, match=r"^y contains the label .*, which is not in "
                                             r"classes=\[0, 1\]$"):
            clone(estimator).set_params(classes=[0, 1]).fit(X, y)


@pytest.mark.parametrize(("classes", "problem"), [
    ([0.0, np.nan], "must not contain NaN"), (["a", 1], "sort together"),
    ([1, 1.0], "must not repeat"), ([[0, 1]], "one-dimensional"), ([0], "at least two")])
def test_an_invalid_label_set_is_refused(classes, problem):
    X = _features(n=10, p=2)
    with pytest.raises(ValueError, match=problem):
        PrivateFrankWolfeLassoClassifier(n_iter=2, classes=classes).fit(X, np.zeros(10))
