"""The two estimators are the Sparsifier at two fixed sets of settings:
``SparseDPLogisticRegression`` fits what ``sparsify_trials`` fits at ``RECOMMENDED_SETTINGS``, ``SparsifierClassifier`` what it
fits at ``P1_SETTINGS``, with the same budget, label set, intercept, bounds and seed, bit for bit,
ledger for ledger (a setting of either that drifts from its map fails here); the accountant
spends what the ledger states; the recommended model keeps scikit-learn's parameter contract
with at most eight parameters."""
import inspect

import numpy as np
import pytest
from sklearn.base import clone

from estimator_problems import binary_problem, three_class_problem
from dplasso.estimators import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    P1_SETTINGS,
    SparseDPLogisticRegression,
    SparsifierClassifier,
    default_sparsifier_trials,
    sparsify_trials,
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


def _batched(X, y, classes, *, settings, epsilon, delta=None, fit_intercept=True,
             bounds="error", random_state=None):
    """One ``sparsify_trials`` fit at ``settings`` with the estimator's own parameters."""
    return sparsify_trials(X, np.searchsorted(classes, y), epsilon=epsilon, delta=delta,
                           n_classes=len(classes), fit_intercept=fit_intercept, bounds=bounds,
                           random_state=random_state, **settings)


def _assert_fit_is_batched(model, fit, accountant):
    np.testing.assert_array_equal(model.coef_.T.reshape(fit.W.shape[:-1]), fit.W[..., 0])
    np.testing.assert_array_equal(model.intercept_, np.reshape(fit.intercept, -1))
    assert model.n_nonzero_target_ == fit.n_nonzero_target[0]
    assert model.n_iter_ == fit.n_iter
    assert model.privacy_ledger_.events == fit.ledger.events
    assert model.privacy_guarantee_ == fit.guarantee
    assert accountant.spent and accountant.held.epsilon == 0.0
    assert accountant.total_spent().epsilon == pytest.approx(fit.guarantee.epsilon, rel=1e-12)


@pytest.mark.parametrize("name", DESIGNS)
def test_the_recommended_model_is_the_sparsifier_at_its_settings(name):
    data, params, released = DESIGNS[name]
    X, y = data()
    classes = np.unique(y).tolist()
    accountant = BudgetAccountant(epsilon=10.0, delta=0.5)
    recommended = SparseDPLogisticRegression(classes=classes, accountant=accountant,
                                             **params).fit(X, y)
    fit = _batched(X, y, classes, settings=RECOMMENDED_SETTINGS, **params)
    _assert_fit_is_batched(recommended, fit, accountant)
    if released == "constant":
        assert recommended.n_nonzero_target_ == 0 and not np.any(recommended.coef_)
    elif released == "weights-op":
        assert recommended.n_iter_ == 0 and recommended.n_nonzero_target_ > 0
        assert recommended.privacy_ledger_.events[0].mechanism.startswith(
            "objective-perturbation")
    elif released == "weights-fw":
        assert recommended.n_iter_ > 0 and recommended.n_nonzero_target_ > 0


@pytest.mark.parametrize("name", ["frank-wolfe", "multiclass", "clipped"])
def test_sparsifier_classifier_is_the_sparsifier_at_p1_s_settings(name):
    data, params, _ = DESIGNS[name]
    X, y = data()
    classes = np.unique(y).tolist()
    accountant = BudgetAccountant(epsilon=10.0, delta=0.5)
    model = SparsifierClassifier(classes=classes, accountant=accountant, **params).fit(X, y)
    settings = {**P1_SETTINGS, "lam": DEFAULT_LAM, "n_iter": "auto",
                "count_fraction": DEFAULT_COUNT_FRACTION, "count_sensitivity": "max"}
    _assert_fit_is_batched(model, _batched(X, y, classes, settings=settings, **params),
                           accountant)
    assert model.privacy_ledger_.events[0].mechanism == "discrete-laplace"  # P1's count


def test_the_batched_fit_is_the_model_s_fit():
    X, y = _few_columns()
    model = SparseDPLogisticRegression(epsilon=2.0, classes=[0, 1], random_state=4).fit(X, y)
    fit = default_sparsifier_trials(X, y, epsilon=2.0, random_state=4)
    np.testing.assert_array_equal(model.coef_[0], fit.W[:, 0])
    np.testing.assert_array_equal(model.intercept_, fit.intercept)
    assert model.n_nonzero_target_ == fit.n_nonzero_target[0]


def test_the_fixed_settings_are_read_only_and_the_module_constants():
    assert RECOMMENDED_SETTINGS["lam"] == DEFAULT_LAM
    assert RECOMMENDED_SETTINGS["count"] == "joint" and P1_SETTINGS["count"] == "lasso-support"
    assert P1_SETTINGS["selection"] == "laplace" and P1_SETTINGS["threshold"] == "none"
    with pytest.raises(TypeError):
        RECOMMENDED_SETTINGS["lam"] = 1.0
    with pytest.raises(TypeError):
        P1_SETTINGS["count"] = "joint"


def test_at_most_eight_parameters_none_of_them_a_fixed_setting():
    names = set(inspect.signature(SparseDPLogisticRegression).parameters)
    assert len(names) <= 8
    assert names == {"epsilon", "delta", "classes", "fit_intercept", "bounds", "accountant",
                     "random_state"}
    sparsifier = SparsifierClassifier().get_params()
    recommended = SparseDPLogisticRegression().get_params()
    assert recommended == {name: sparsifier[name] for name in names}
    assert not names & set(RECOMMENDED_SETTINGS)
    assert not set(sparsifier) & set(P1_SETTINGS)


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
