"""No side channels: a private fit's warnings and attributes carry nothing computed from the
data that its ledger does not account for.

What a private fit may show besides its released outputs (``coef_``, ``intercept_``, the noisy
``n_nonzero_target_``) must be a function of public quantities only. So, for neighbouring
datasets (replace-one; their exact counts differ) and a fixed seed, every other public
attribute, the ledger and every warning message must be identical, and none may print the
non-private values the fit computed (the Wolfe gap and the iterations of the count's
non-private solve). The count solve is forced to stop early (``solve_working_set`` patched to
a few iterations), so that its ``ConvergenceWarning`` fires on both neighbours. (Whether that
warning fires at all depends on the data: one bit, seen by whoever runs the fit and not part
of the release.) The screening hook's
records of a private round keep no exact gap.
"""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import dplasso.estimators.count as count_module
from dplasso.baselines.estimators import (
    DPIGHTClassifier,
    ObjectivePerturbationClassifier,
    PrivateADMMClassifier,
    TwoStageClassifier,
)
from dplasso.estimators import (
    PrivateFrankWolfeLassoClassifier,
    SparseDPLogisticRegression,
    SparsifierClassifier,
    lasso_support_size,
)
from dplasso.estimators.problem import prepare_design
from dplasso.optim.frank_wolfe import exact_select, frank_wolfe
from dplasso.optim.losses import LogisticLoss
from dplasso.optim.working_set import solve_working_set
from dplasso.screening.callback import make_screening_callback
from dplasso.screening.schedule import ScreeningSchedule

RELEASED = {"coef_", "intercept_", "n_nonzero_target_"}
"""Attributes that are the private release itself (they differ between neighbours)."""
EARLY_STOP = 7
"""Iterations the patched count solve runs: far from its gap target, so it warns."""

ESTIMATORS = [  # (estimator, whether it runs the non-private count solve)
    (PrivateFrankWolfeLassoClassifier(n_iter=10, epsilon=1.0, classes=[0, 1], random_state=0),
     False),
    (SparseDPLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0), False),
    (SparsifierClassifier(n_iter=10, epsilon=1.0, classes=[0, 1], random_state=0), True),
    (TwoStageClassifier(epsilon=1.0, classes=[0, 1], random_state=0), True),
    (DPIGHTClassifier(epsilon=1.0, classes=[0, 1], random_state=0), True),
    (PrivateADMMClassifier(epsilon=1.0, classes=[0, 1], random_state=0), False),
    (ObjectivePerturbationClassifier(epsilon=1.0, classes=[0, 1], random_state=0), False),
]


def neighbours(n=60, p=5, seed=0):
    """``(X, y)`` and a replace-one neighbour (row 0 replaced by a far-away row)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[0], y_prime[0] = 1.0, 1 - y[0]
    return (X, y), (X_prime, y_prime)


def _renderings(value):
    """The ways a non-private number could be printed."""
    if isinstance(value, (int, np.integer)):
        return {f" {value} ", f"={value}", f"{value} iterations"}
    return {repr(float(value)), f"{value:.3g}", f"{value:g}", f"{value:.6g}"}


def _non_private_values(X, y):
    """The gap and the iterations of the (patched) count solve."""
    design = prepare_design(X, fit_intercept=True, bounds="error")
    solution = solve_working_set(LogisticLoss(), design, y.astype(float), 10.0,
                               max_iter=EARLY_STOP)
    return {solution.gap, solution.n_iter}


def _fit_and_observe(estimator, X, y, monkeypatch):
    honest = count_module.solve_working_set
    def early_stop(*args, **kwargs):
        return honest(*args, **{**kwargs, "max_iter": EARLY_STOP})

    monkeypatch.setattr(count_module, "solve_working_set", early_stop)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = estimator.fit(X, y)
    public = {name: value for name, value in vars(model).items()
              if name.endswith("_") and not name.startswith("_") and name not in RELEASED}
    return model, public, [str(w.message) for w in caught]


def _text(value):
    if hasattr(value, "events"):  # a ledger: every field of every event
        return " ".join(repr(event) for event in value.events)
    return repr(value)


@pytest.mark.parametrize(("estimator", "counted"), ESTIMATORS,
                         ids=[f"{type(e).__name__}-{getattr(e, 'count', '')}"
                              for e, _ in ESTIMATORS])
def test_private_fits_show_only_public_values_besides_their_release(estimator, counted,
                                                                    monkeypatch):
    (X, y), (X_prime, y_prime) = neighbours()
    # the exact counts differ (3 and 2), so an attribute carrying one would differ too
    assert lasso_support_size(X, y, lam=10.0) != lasso_support_size(X_prime, y_prime, lam=10.0)
    _, public, messages = _fit_and_observe(estimator, X, y, monkeypatch)
    _, public_prime, messages_prime = _fit_and_observe(estimator, X_prime, y_prime, monkeypatch)
    assert public.keys() == public_prime.keys()
    for name in public:
        assert _text(public[name]) == _text(public_prime[name]), name
    assert messages == messages_prime
    assert len(messages) == int(counted)  # the count solve's ConvergenceWarning, nothing else
    shown = " ".join(messages) + " ".join(_text(v) for v in public.values())
    for data in ((X, y), (X_prime, y_prime)):
        secrets = _non_private_values(*data)
        for secret in secrets:
            for rendering in _renderings(secret):
                assert rendering not in shown, (secret, rendering)


def test_the_count_warning_names_public_parameters_only():
    (X, y), (X_prime, y_prime) = neighbours()
    with pytest.warns(ConvergenceWarning) as first:
        lasso_support_size(X, y, lam=10.0, max_iter=7)
    with pytest.warns(ConvergenceWarning) as second:
        lasso_support_size(X_prime, y_prime, lam=10.0, max_iter=7)
    message = str(first[0].message)
    assert message == str(second[0].message)
    assert "max_iter=7" in message and "tol=1e-10" in message
    design = prepare_design(X, fit_intercept=True, bounds="error")
    gap = solve_working_set(LogisticLoss(), design, y.astype(float), 10.0, max_iter=7).gap
    assert not any(r in message for r in _renderings(gap))


def test_private_screening_records_keep_no_exact_gap():
    (X, y), _ = neighbours(n=40, p=6)
    y = y.astype(float)
    lam, schedule, gaps = 3.0, ScreeningSchedule(12, every=4), []

    def run(**record):
        callback = make_screening_callback(X, y, lam, LogisticLoss(), schedule, private=True,
                                           epsilon=1.0, delta=1e-5, rng=0, **record)

        def hook(t, W, G, gap):
            gaps.extend(np.asarray(gap).ravel().tolist())
            return callback(t, W, G, gap)

        frank_wolfe(LogisticLoss(), X, y, lam, 12, exact_select, n_trials=2, callback=hook,
        mask_semantics="zero-and-exclude")
        return callback.records

    records = run()
    assert records and all("gap" not in record for record in records)
    values = {value for record in records for value in record.values()}
    assert not values & set(gaps)
    diagnostic = run(record_gap=True)  # the experiments' explicit, non-private opt-in
    assert {record["gap"] for record in diagnostic} <= set(gaps)
