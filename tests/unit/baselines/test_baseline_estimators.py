"""The baseline classifiers: delegation to the fit functions, the count release, privacy
bookkeeping and the accountant flow, the public hyperparameter rules, labels, bounds, bad input."""
import math
from contextlib import nullcontext
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from baselines_problems import small_problem, synthetic_problem
from dplasso.baselines.admm import best_composition, fit_private_admm, per_iteration_epsilon
from dplasso.baselines.dp_ight import fit_dp_ight
from dplasso.baselines.estimators import (
    ADMM_JACOBIAN_SHARE,
    DP_IGHT_N_ITER,
    DPIGHTClassifier,
    NonPrivateLassoClassifier,
    PrivateADMMClassifier,
    TwoStageClassifier,
    admm_hyperparameters,
    admm_rho,
    dp_ight_step_size,
    fit_dp_ight_public_step,
    fit_with_private_count,
)
from dplasso.baselines.nonprivate import fit_nonprivate_lasso
from dplasso.estimators.objective_perturbation import jacobian_epsilon
from dplasso.baselines.two_stage import fit_two_stage
from dplasso.estimators import (
    DEFAULT_COUNT_FRACTION,
    PrivacyLeakWarning,
    lasso_support_size,
    noisy_count,
)
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.privacy import BudgetAccountant, BudgetExceededError, REPLACE_ONE

PRIVATE = [TwoStageClassifier, PrivateADMMClassifier, DPIGHTClassifier]
COUNTED = [TwoStageClassifier, DPIGHTClassifier]
ALL = PRIVATE + [NonPrivateLassoClassifier]
BINARY = [0, 1]
"""The public label set of the problems (passed as ``classes``)."""


def _problem(n=300, p=10, seed=0):
    X, y = small_problem(n=n, p=p, seed=seed)
    y = (X[:, 0] - 0.5 * X[:, 1] + 0.3 * np.random.default_rng(seed).standard_normal(n)
         > 0).astype(int)
    return X, y


def _weights(model):
    return np.r_[model.coef_[0], model.intercept_]


# --- delegation: each classifier is its fit function -----------------------------------------

def test_classifiers_with_a_given_sparsity_equal_their_fit_functions():
    X, y = _problem()
    n, p = X.shape
    delta = 1.0 / n**2
    two_stage = TwoStageClassifier(classes=BINARY, n_nonzero=3, epsilon=2.0, threshold="none",
                                   random_state=5).fit(X, y)
    fit = fit_two_stage(X, y, epsilon=2.0, n_nonzero=3, random_state=5)
    np.testing.assert_array_equal(_weights(two_stage), np.r_[fit.coef, fit.intercept])

    ight = DPIGHTClassifier(classes=BINARY, n_nonzero=3, epsilon=2.0, threshold="none",
                            random_state=5).fit(X, y)
    fit = fit_dp_ight(X, y, epsilon=2.0, delta=delta, n_nonzero=3, n_iter=DP_IGHT_N_ITER,
                      step_size=4.0 / 7.0, random_state=5)
    np.testing.assert_array_equal(_weights(ight), np.r_[fit.coef, fit.intercept])
    assert ight.step_size_ == 4.0 / 7.0 and ight.n_iter_ == DP_IGHT_N_ITER

    admm = PrivateADMMClassifier(classes=BINARY, epsilon=2.0, threshold="none",
                                 random_state=5).fit(X, y)
    alpha, rho = admm_hyperparameters(n, p + 1, 2.0, delta, admm.n_iter)
    fit = fit_private_admm(X, y, epsilon=2.0, delta=delta, alpha=alpha, rho=rho,
                           n_iter=admm.n_iter, random_state=5)
    np.testing.assert_array_equal(_weights(admm), np.r_[fit.coef, fit.intercept])
    assert (admm.alpha_, admm.rho_) == (alpha, rho)


@pytest.mark.parametrize("estimator", COUNTED)
def test_count_mode_releases_the_sparsifiers_count_first(estimator):
    """``n_nonzero="count"``: the count of the non-private fit at ``count_lam``, released with
    the Sparsifier's double-geometric noise at ``f * epsilon`` and, by default, the proven
    sensitivity ``p``, as the first draw of the stream, then the method with the rest of the
    budget."""
    X, y = _problem()
    model = estimator(classes=BINARY, epsilon=3.0, threshold="none", random_state=7).fit(X, y)
    count = lasso_support_size(X, y, lam=10.0)
    released = noisy_count(count, DEFAULT_COUNT_FRACTION * 3.0, X.shape[1], "geometric",
                           np.random.default_rng(7), n_max=X.shape[1])
    count_event = model.privacy_ledger_.events[0]
    assert count_event.sensitivity == X.shape[1] and "proven" in count_event.note
    assert model.n_nonzero_target_ == released
    assert np.count_nonzero(model.coef_) <= released
    function, delta = ((fit_two_stage, 0.0) if estimator is TwoStageClassifier
                       else (fit_dp_ight_public_step, 1.0 / X.shape[0] ** 2))
    direct = fit_with_private_count(
        function, X, y, count=count, epsilon=3.0, delta=delta,
        count_fraction=DEFAULT_COUNT_FRACTION, count_sensitivity="max", count_noise="geometric",
        random_state=7)
    np.testing.assert_array_equal(_weights(model), np.r_[direct.fit.coef, direct.fit.intercept])
    assert direct.n_nonzero_target == released


def test_nonprivate_classifier_is_the_reference_fit_and_counts_like_the_sparsifier():
    X, y = _problem()
    model = NonPrivateLassoClassifier(classes=BINARY, lam=4.0).fit(X, y)
    fit = fit_nonprivate_lasso(X, y, lam=4.0)
    np.testing.assert_array_equal(_weights(model), np.r_[fit.coef, fit.intercept])
    assert np.count_nonzero(model.coef_) == lasso_support_size(X, y, lam=4.0)
    assert 0 < np.count_nonzero(model.coef_) < X.shape[1]  # a sparse, nontrivial fit
    assert 0.0 <= model.wolfe_gap_ <= 1e-10 * math.log(2.0)
    with pytest.warns(ConvergenceWarning, match="stopped at Wolfe gap"):
        NonPrivateLassoClassifier(classes=BINARY, lam=4.0, max_iter=1).fit(X, y)


# --- privacy bookkeeping ----------------------------------------------------------------------

@pytest.mark.parametrize(("estimator", "params", "method_delta"), [
    (TwoStageClassifier, {}, 0.0),
    (TwoStageClassifier, {"noise": "gaussian", "delta": 1e-5}, 1e-5),
    (TwoStageClassifier, {"n_nonzero": 2, "count_noise": "laplace"}, 0.0),
    (PrivateADMMClassifier, {"delta": 1e-5}, None),
    (PrivateADMMClassifier, {"delta": 0.0}, 0.0),
    (DPIGHTClassifier, {"delta": 1e-5}, 1e-5),
    (DPIGHTClassifier, {"n_nonzero": 4, "delta": 1e-5}, 1e-5),
])
@pytest.mark.parametrize("epsilon", [0.3, 4.0])
def test_ledger_composes_to_the_requested_budget(estimator, params, method_delta, epsilon):
    X, y = _problem()
    model = estimator(classes=BINARY, epsilon=epsilon, random_state=0, **params).fit(X, y)
    guarantee = model.privacy_guarantee_
    assert guarantee.epsilon == pytest.approx(epsilon, rel=1e-12)
    assert guarantee.epsilon <= epsilon * (1 + 1e-15)
    if method_delta is None:  # ADMM spends delta only when zCDP composition is used
        zcdp = best_composition(epsilon, 1e-5, model.n_iter_) == "zcdp"
        method_delta = 1e-5 if zcdp else 0.0
    assert guarantee.delta == pytest.approx(method_delta, rel=1e-12)
    events = model.privacy_ledger_.events
    assert all(event.relation == REPLACE_ONE for event in events)
    counted = estimator in COUNTED and params.get("n_nonzero", "count") == "count"
    assert (events[0].mechanism in ("discrete-laplace", "laplace")) == counted
    if counted:  # the threshold (default) takes its share first, the count a share of the rest
        assert events[0].epsilon == pytest.approx(
            DEFAULT_COUNT_FRACTION * (1 - DEFAULT_THRESHOLD_FRACTION) * epsilon, rel=1e-12)
    assert events[-1].note.startswith("decision threshold")


@pytest.mark.parametrize("estimator", PRIVATE)
def test_accountant_refuses_before_any_work_then_spends(estimator):
    X, y = _problem(n=120, p=6)
    delta = 1e-3 if estimator is not TwoStageClassifier else None
    targets = ["base.lasso_support_size", "sparse.fit_two_stage", "rules.fit_dp_ight",
               "admm.fit_private_admm"]
    accountant = BudgetAccountant(epsilon=1.0, delta=1e-2)
    patches = [mock.patch(f"dplasso.baselines.estimators.{name}") for name in targets]
    mocks = [p.start() for p in patches]
    try:
        with pytest.raises(BudgetExceededError):
            estimator(classes=BINARY, epsilon=1.5, delta=delta, accountant=accountant).fit(X, y)
    finally:
        for p in patches:
            p.stop()
    for m in mocks:
        m.assert_not_called()
    assert accountant.spent == ()
    estimator(classes=BINARY, epsilon=0.6, delta=delta, accountant=accountant,
              random_state=0).fit(X, y)
    assert accountant.total_spent().epsilon == pytest.approx(0.6, rel=1e-9)
    with pytest.raises(BudgetExceededError):
        estimator(classes=BINARY, epsilon=0.6, delta=delta, accountant=accountant).fit(X, y)
    estimator(classes=BINARY, epsilon=0.4, delta=delta, accountant=accountant,
              random_state=1).fit(X, y)
    assert accountant.remaining().epsilon == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("estimator", PRIVATE)
def test_fixed_random_state_reproduces_and_seeds_differ(estimator):
    X, y = _problem()

    def fit(seed):
        return estimator(classes=BINARY, epsilon=1.0, random_state=seed).fit(X, y)

    first, again, other = fit(3), fit(3), fit(4)
    np.testing.assert_array_equal(_weights(first), _weights(again))
    assert not np.array_equal(_weights(first), _weights(other))
    generator = estimator(classes=BINARY, epsilon=1.0,
                          random_state=np.random.default_rng(3)).fit(X, y)
    np.testing.assert_array_equal(_weights(generator), _weights(first))


def test_large_epsilon_finds_the_true_support():
    """At epsilon = 1000 (noise negligible, a sanity check of the wiring, not of privacy) the
    sparse methods given ``s = 5`` select exactly the 5 true features of the n = 2000, p = 50
    problem, and every private classifier is within 0.03 training accuracy of the non-private
    fit (fixed seed; observed gaps are below 0.01)."""
    X, y, w_true = synthetic_problem()
    true = np.flatnonzero(w_true)
    reference = NonPrivateLassoClassifier(classes=BINARY, lam=float(np.abs(w_true).sum())).fit(
        X, y).score(X, y)
    for estimator in COUNTED:
        model = estimator(classes=BINARY, n_nonzero=5, epsilon=1000.0, random_state=0).fit(X, y)
        np.testing.assert_array_equal(np.flatnonzero(model.coef_[0]), true)
        assert model.score(X, y) >= reference - 0.03
    admm = PrivateADMMClassifier(classes=BINARY, epsilon=1000.0, random_state=0).fit(X, y)
    assert admm.score(X, y) >= reference - 0.03


# --- the public hyperparameter rules ----------------------------------------------------------

@pytest.mark.parametrize("epsilon_0", [0.01, 0.5, 2.0, 7.0])
def test_admm_rho_costs_the_stated_share_of_the_iteration_budget(epsilon_0):
    n, d = 800, 31
    rho = admm_rho(n, d, epsilon_0)
    cost = jacobian_epsilon(math.sqrt(d), n * rho)
    assert cost == pytest.approx(ADMM_JACOBIAN_SHARE * min(epsilon_0, 2.0), rel=1e-12)


def test_admm_alpha_is_one_noise_standard_deviation_of_the_noise_share():
    n, d, epsilon, delta, K = 900, 21, 1.5, 1e-6, 3
    alpha, rho = admm_hyperparameters(n, d, epsilon, delta, K)
    epsilon_0 = per_iteration_epsilon(epsilon, delta, K, best_composition(epsilon, delta, K))
    epsilon_noise = epsilon_0 - jacobian_epsilon(math.sqrt(d), n * rho)
    assert epsilon_noise == pytest.approx((1 - ADMM_JACOBIAN_SHARE) * epsilon_0, rel=1e-12)
    assert alpha == pytest.approx(2.0 * d / (n * epsilon_noise), rel=1e-12)
    assert admm_hyperparameters(n, d, epsilon, delta, K, alpha=0.3, rho=2.0) == (0.3, 2.0)
    rho_min = d / (4.0 * n * math.expm1(epsilon_0))
    with pytest.raises(ValueError, match=f"use rho > {rho_min:.6g}"):
        admm_hyperparameters(n, d, epsilon, delta, K, rho=0.5 * rho_min)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_dp_ight_step_is_the_inverse_worst_case_restricted_smoothness(fit_intercept):
    """For ``v`` with ``m = 2s (+1)`` nonzeros, ``v' H v <= (m/4) |v|^2`` on any data of the
    domain (a theorem: ``sigma' <= 1/4``, ``|x'v| <= |v|_1 <= sqrt(m) |v|_2``), attained by
    rows ``x = sign(v)`` at ``w = 0`` with equal magnitudes; the step is ``1/L = 4/m``."""
    s = 3
    m = 2 * s + int(fit_intercept)
    step = dp_ight_step_size(s, fit_intercept)
    assert step == 4.0 / m
    rng = np.random.default_rng(0)
    for _ in range(20):
        X = rng.uniform(-1.0, 1.0, size=(50, 12))
        w = rng.normal(size=12)
        curvature = 0.25 / np.cosh(X @ w / 2.0) ** 2
        H = X.T @ (curvature[:, None] * X) / X.shape[0]
        v = np.zeros(12)
        v[rng.choice(12, size=m, replace=False)] = rng.normal(size=m)
        assert v @ H @ v <= (1.0 / step) * (v @ v) * (1 + 1e-12)
    v = np.zeros(12)
    v[:m] = rng.choice([-1.0, 1.0], size=m)
    X = np.tile(np.sign(np.where(v == 0, 1.0, v)), (5, 1))
    H = 0.25 * X.T @ X / X.shape[0]
    assert v @ H @ v == pytest.approx((1.0 / step) * (v @ v), rel=1e-12)


# --- the scikit-learn surface -----------------------------------------------------------------

@pytest.mark.parametrize("estimator", ALL)
def test_labels_probabilities_and_layout(estimator):
    X, y = _problem()
    labels = np.where(y == 1, "yes", "no")
    params = {} if estimator is NonPrivateLassoClassifier else {"epsilon": 5.0,
                                                                "random_state": 0}
    model = estimator(classes=["no", "yes"], **params).fit(X, labels)
    np.testing.assert_array_equal(model.classes_, ["no", "yes"])
    assert model.coef_.shape == (1, X.shape[1]) and model.intercept_.shape == (1,)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        estimator(classes=[0, 1, 2], **params).fit(X, np.arange(X.shape[0]) % 3)


@pytest.mark.parametrize("estimator", ALL)
def test_sparse_input_is_never_densified(estimator):
    X, y = _problem()
    X[np.abs(X) < 0.4] = 0.0
    params = {} if estimator is NonPrivateLassoClassifier else {"epsilon": 2.0,
                                                                "random_state": 0}
    with mock.patch.object(sp.csc_matrix, "toarray", side_effect=AssertionError("densified")), \
            mock.patch.object(sp.csr_matrix, "toarray", side_effect=AssertionError("densified")):
        model = estimator(classes=BINARY, **params).fit(sp.csr_matrix(X), y)
        model.predict(sp.csr_matrix(X))


@pytest.mark.parametrize("estimator", ALL)
def test_bounds_error_names_the_row_and_clip_equals_fitting_clipped_data(estimator):
    X, y = _problem()
    scaled = 2.5 * X
    params = {} if estimator is NonPrivateLassoClassifier else {"epsilon": 2.0,
                                                                "random_state": 0}
    with pytest.raises(ValueError, match=r"row \d+ has sup norm"):
        estimator(classes=BINARY, **params).fit(scaled, y)
    clipped = estimator(classes=BINARY, bounds="clip", **params).fit(scaled, y)
    manual = estimator(classes=BINARY, **params).fit(np.clip(scaled, -1, 1), y)
    np.testing.assert_array_equal(_weights(clipped), _weights(manual))


def test_no_intercept_gives_a_zero_intercept():
    X, y = _problem()
    for estimator in PRIVATE:
        model = estimator(classes=BINARY, epsilon=2.0, fit_intercept=False, threshold="none",
                          random_state=0).fit(X, y)
        np.testing.assert_array_equal(model.intercept_, [0.0])
        thresholded = estimator(classes=BINARY, epsilon=2.0, fit_intercept=False,
                                random_state=0).fit(X, y)
        assert thresholded.privacy_ledger_.events[-1].note.startswith("decision threshold")
    np.testing.assert_array_equal(
        NonPrivateLassoClassifier(classes=BINARY, fit_intercept=False).fit(X, y).intercept_, [0.0])


@pytest.mark.parametrize(("estimator", "params", "error", "message"), [
    (TwoStageClassifier, {"epsilon": 0.0}, ValueError, "epsilon must be a finite number > 0"),
    (TwoStageClassifier, {"n_nonzero": "all"}, ValueError, "n_nonzero must be one of"),
    (TwoStageClassifier, {"n_nonzero": 0}, ValueError, "n_nonzero must be >= 1"),
    (TwoStageClassifier, {"n_nonzero": 11}, ValueError, "n_nonzero must be <= 10"),
    (TwoStageClassifier, {"noise": "laplace"}, ValueError, "noise must be one of"),
    (TwoStageClassifier, {"noise": "gaussian", "delta": 0.0}, ValueError, "needs delta > 0"),
    (TwoStageClassifier, {"selection_share": 1.0}, ValueError, "selection_share must lie"),
    (TwoStageClassifier, {"count_fraction": 0.0}, ValueError, "count_fraction must lie"),
    (TwoStageClassifier, {"count_sensitivity": 1.5}, TypeError, "count_sensitivity must be"),
    (DPIGHTClassifier, {"count_sensitivity": "p"}, ValueError, "count_sensitivity must be"),
    (TwoStageClassifier, {"count_noise": "gaussian"}, ValueError, "count_noise must be one"),
    (TwoStageClassifier, {"count_lam": -1.0}, ValueError, "lam must be a finite number > 0"),
    (TwoStageClassifier, {"delta": 1.5}, ValueError, r"delta must lie in \[0, 1\)"),
    (PrivateADMMClassifier, {"alpha": "big"}, ValueError, "alpha must be one of"),
    (PrivateADMMClassifier, {"rho": -1.0}, ValueError, "rho must be a finite number > 0"),
    (PrivateADMMClassifier, {"rho": 1e-9}, ValueError, "rho=1e-09 is too small"),
    (PrivateADMMClassifier, {"n_iter": 0}, ValueError, "n_iter must be >= 1"),
    (DPIGHTClassifier, {"delta": 0.0}, ValueError, "DP-IGHT needs delta > 0"),
    (DPIGHTClassifier, {"step_size": "fast"}, ValueError, "step_size must be one of"),
    (DPIGHTClassifier, {"n_iter": 2.5}, TypeError, "n_iter must be an integer"),
    (PrivateADMMClassifier, {"accountant": 1.0}, TypeError, "accountant must be None"),
    (NonPrivateLassoClassifier, {"lam": 0.0}, ValueError, "lam must be a finite number > 0"),
    (NonPrivateLassoClassifier, {"max_iter": 0}, ValueError, "max_iter must be >= 1"),
    (NonPrivateLassoClassifier, {"bounds": "scale"}, ValueError, "bounds must be one of"),
    (DPIGHTClassifier, {"fit_intercept": "yes"}, TypeError, "fit_intercept must be a bool"),
])
def test_parameter_errors(estimator, params, error, message):
    X, y = _problem()
    with pytest.raises(error, match=message):
        estimator(classes=BINARY, **params).fit(X, y)


@pytest.mark.parametrize("estimator", ALL)
def test_data_errors(estimator):
    X, y = _problem(n=60, p=5)
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        estimator(classes=BINARY).fit(bad, y)
    leak = pytest.warns(PrivacyLeakWarning) if estimator in PRIVATE else nullcontext()
    with leak, pytest.raises(ValueError, match="one class only"):
        estimator().fit(X, np.ones_like(y))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        estimator(classes=BINARY).fit(X, y[:-1])
