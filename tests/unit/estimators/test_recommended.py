"""The recommended model is the Sparsifier at its tested settings: ``SparseDPLogisticRegression``
fits what ``SparsifierClassifier()`` fits with the same budget, label set, intercept, bounds,
accountant and seed, bit for bit, and spends the same budget (a default of either that
drifts from the other fails here), and it keeps scikit-learn's parameter contract with at
most eight parameters."""
import inspect

import numpy as np
import pytest
from sklearn.base import clone

from estimator_problems import binary_problem, three_class_problem
from dplasso.estimators import (
    DEFAULT_LAM,
    SparseDPLogisticRegression,
    SparsifierClassifier,
    default_sparsifier_trials,
)
from dplasso.estimators.recommended import RECOMMENDED_SETTINGS
from dplasso.privacy import BudgetAccountant


def _two_features(n, p, seed=0):
    """``y = [x_0 > x_1]`` on ``[-1, 1]^p``: a signal strong enough to release a model."""
    X = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n, p))
    return X, (X[:, 0] - X[:, 1] > 0).astype(int)


def _small():
    X, y, _ = binary_problem(n=40, p=5, seed=0)
    return X, y


def _few_columns():
    X, y, _ = binary_problem(n=300, p=6)
    return X, y


# name: (data, parameters, what the fit releases)
DESIGNS = {
    # d = 7 <= 8 (n eps)^(1/3) = 67: objective-perturbation weights
    "objective-perturbation": (_few_columns, dict(epsilon=2.0, random_state=1), "weights-op"),
    # d = 121 > 8 (2000 * 1.5)^(1/3) = 115: private Frank-Wolfe weights
    "frank-wolfe": (lambda: _two_features(2000, 120), dict(epsilon=1.5, random_state=0),
                    "weights-fw"),
    # 40 rows at epsilon 0.5: the constant model
    "constant": (_small, dict(epsilon=0.5, random_state=0), "constant"),
    # three classes (Frank-Wolfe, multinomial), no intercept, a given delta
    "multiclass": (lambda: three_class_problem(n=300, p=8),
                   dict(epsilon=1.0, delta=1e-5, fit_intercept=False, random_state=3),
                   "weights-fw"),
    # clipped rows outside the domain, with an accountant
    "clipped": (lambda: (3.0 * _few_columns()[0], _few_columns()[1]),
                dict(epsilon=1.0, bounds="clip", random_state=7), "any"),
}


@pytest.mark.parametrize("name", DESIGNS)
def test_the_recommended_model_is_the_sparsifier_at_its_defaults(name):
    data, params, released = DESIGNS[name]
    X, y = data()
    classes = np.unique(y).tolist()
    models, accountants = [], []
    for cls in (SparseDPLogisticRegression, SparsifierClassifier):
        accountant = BudgetAccountant(epsilon=10.0, delta=0.5)
        models.append(cls(classes=classes, accountant=accountant, **params).fit(X, y))
        accountants.append(accountant)
    recommended, sparsifier = models
    np.testing.assert_array_equal(recommended.coef_, sparsifier.coef_)
    np.testing.assert_array_equal(recommended.intercept_, sparsifier.intercept_)
    np.testing.assert_array_equal(recommended.classes_, sparsifier.classes_)
    for attribute in ("n_nonzero_target_", "n_iter_", "n_features_in_",
                      "privacy_guarantee_"):
        assert getattr(recommended, attribute) == getattr(sparsifier, attribute), attribute
    assert recommended.privacy_ledger_.events == sparsifier.privacy_ledger_.events
    assert accountants[0].spent == accountants[1].spent
    assert accountants[0].spent and accountants[0].held.epsilon == 0.0
    if released == "constant":
        assert recommended.n_nonzero_target_ == 0 and not np.any(recommended.coef_)
    elif released == "weights-op":
        assert recommended.n_iter_ == 0 and recommended.n_nonzero_target_ > 0
        assert recommended.privacy_ledger_.events[0].mechanism.startswith(
            "objective-perturbation")
    elif released == "weights-fw":
        assert recommended.n_iter_ > 0 and recommended.n_nonzero_target_ > 0


def test_the_batched_fit_is_the_model_s_fit():
    X, y = _few_columns()
    model = SparseDPLogisticRegression(epsilon=2.0, classes=[0, 1], random_state=4).fit(X, y)
    fit = default_sparsifier_trials(X, y, epsilon=2.0, random_state=4)
    np.testing.assert_array_equal(model.coef_[0], fit.W[:, 0])
    np.testing.assert_array_equal(model.intercept_, fit.intercept)
    assert model.n_nonzero_target_ == fit.n_nonzero_target[0]


def test_the_fixed_settings_are_the_sparsifier_s_defaults_and_the_module_constants():
    defaults = SparsifierClassifier().get_params()
    assert {key: defaults[key] for key in RECOMMENDED_SETTINGS} == dict(RECOMMENDED_SETTINGS)
    assert RECOMMENDED_SETTINGS["lam"] == DEFAULT_LAM
    assert RECOMMENDED_SETTINGS["count"] == "joint"
    with pytest.raises(TypeError):
        RECOMMENDED_SETTINGS["lam"] = 1.0


def test_at_most_eight_parameters_all_shared_with_the_sparsifier():
    names = set(inspect.signature(SparseDPLogisticRegression).parameters)
    assert len(names) <= 8
    assert names == {"epsilon", "delta", "classes", "fit_intercept", "bounds", "accountant",
                     "random_state"}
    sparsifier = SparsifierClassifier().get_params()
    recommended = SparseDPLogisticRegression().get_params()
    assert recommended == {name: sparsifier[name] for name in names}
    assert not names & set(RECOMMENDED_SETTINGS)


def test_get_params_set_params_and_clone_round_trip():
    model = SparseDPLogisticRegression(epsilon=0.5, delta=1e-6, classes=[0, 1],
                                       fit_intercept=False, bounds="clip", random_state=3)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    copy.set_params(epsilon=2.0, random_state=9)
    assert (copy.epsilon, copy.random_state, model.epsilon) == (2.0, 9, 0.5)
    with pytest.raises(ValueError, match="lam"):
        copy.set_params(lam=1.0)
    X, y = _few_columns()
    fitted = clone(model).fit(X, y)
    again = clone(fitted)
    assert not hasattr(again, "coef_") and again.get_params() == model.get_params()
    np.testing.assert_array_equal(again.fit(X, y).coef_, fitted.coef_)


@pytest.mark.parametrize("params, match", [
    (dict(epsilon=0), "epsilon"),
    (dict(bounds="clipped"), "bounds"),
    (dict(fit_intercept="yes"), "fit_intercept"),
    (dict(accountant=2.0), "accountant"),
])
def test_bad_parameters_are_refused_at_fit_naming_the_argument(params, match):
    X, y = _few_columns()
    with pytest.raises((ValueError, TypeError), match=match):
        SparseDPLogisticRegression(classes=[0, 1], **params).fit(X, y)


def test_without_classes_it_warns_naming_itself_at_the_caller():
    from dplasso.estimators import PrivacyLeakWarning

    X, y = _few_columns()
    with pytest.warns(PrivacyLeakWarning, match="SparseDPLogisticRegression") as caught:
        SparseDPLogisticRegression(random_state=0).fit(X, y)
    assert caught[0].filename == __file__
