"""The Sparsifier's budget: what each part is calibrated to, and how the parts compose.

Claim: with a share ``f`` of ``epsilon`` for the count, the count release is
``f * epsilon``-DP (pure, given its declared sensitivity; exactly that epsilon is recorded),
the Frank-Wolfe steps are ``((1 - f) * epsilon, delta)``-DP under their composition rule, and
basic composition of the two gives ``(epsilon, delta)``. The top-c~ step adds nothing (it reads
only the released weights and count: see ``test_sparsify_trials_keeps_the_top_noisy_count_of_
the_private_output`` in ``tests/unit/estimators``). Checked to the number on a grid, through
the ledger's own composition functions.
"""
import math

import numpy as np
import pytest

from experiment_sparsifier import ExperimentSparsifier
from dplasso.estimators import (
    PrivateFrankWolfeLassoClassifier,
    SparsifierClassifier,
    sparsify_trials,
)
from dplasso.privacy.accounting import basic_composition, compose
from dplasso.privacy.calibration import (
    calibrate_exponential_mechanism,
    calibrate_report_noisy_min,
)

RULES = {("laplace", True): ("basic", "advanced"), ("exponential", True): ("basic", "zcdp"),
         ("laplace", False): ("basic",), ("exponential", False): ("basic",)}
"""The rules a Frank-Wolfe part may compose by: basic always, or the delta rule where it gives
the smaller noise (``calibrate_selection``)."""
CALIBRATE = {"laplace": calibrate_report_noisy_min,
             "exponential": calibrate_exponential_mechanism}


def _data(n=80, p=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


@pytest.mark.parametrize("selection", ["laplace", "exponential"])
@pytest.mark.parametrize("delta", [1e-5, 0.0])
@pytest.mark.parametrize(("epsilon", "fraction"), [(0.1, 0.25), (1.0, 0.5), (4.0, 0.1)])
@pytest.mark.parametrize(("noise", "mechanism"), [("geometric", "discrete-laplace"),
                                                  ("laplace", "laplace")])
def test_parts_compose_to_the_requested_budget(selection, delta, epsilon, fraction, noise,
                                               mechanism):
    X, y = _data()
    n_iter = 15
    result = sparsify_trials(X, y, lam=4.0, n_iter=n_iter, epsilon=epsilon, delta=delta,
                             count_fraction=fraction, count_noise=noise, selection=selection,
                             random_state=0)
    (count_ledger, count_total), (fw_ledger, fw_total) = result.accounting
    count_event, = count_ledger.events
    assert count_event.mechanism == mechanism and count_event.delta == 0
    if noise == "geometric":  # the exact rational scale makes the recorded epsilon exact
        assert count_event.epsilon == fraction * epsilon
    assert count_event.epsilon <= fraction * epsilon
    assert count_event.epsilon == pytest.approx(fraction * epsilon, rel=1e-15)
    assert count_total == basic_composition([count_event])

    fw_event, = fw_ledger.events
    assert fw_event.count == n_iter
    assert fw_event.sensitivity == 2 * 4.0 / len(y)
    rule = fw_total.method
    assert rule in RULES[(selection, delta > 0)]
    assert fw_total == compose([fw_event], rule, None if rule == "basic" else delta)
    fw_budget = epsilon - fraction * epsilon
    assert fw_total.epsilon <= fw_budget
    assert fw_total.epsilon == pytest.approx(fw_budget, rel=1e-9)
    assert fw_total.delta == (0.0 if rule == "basic" else delta)
    # the rule taken is the one with the smaller noise scale (larger per-step epsilon)
    scales = [2 * fw_event.sensitivity * n_iter / fw_budget]
    if delta > 0:
        scales.append(CALIBRATE[selection](fw_budget, delta, n_iter, fw_event.sensitivity))
    assert 2 * fw_event.sensitivity / fw_event.epsilon == pytest.approx(min(scales), rel=1e-12)

    assert result.ledger.events == (count_event, fw_event)
    assert result.guarantee.epsilon == math.fsum([count_total.epsilon, fw_total.epsilon])
    assert result.guarantee.epsilon == pytest.approx(epsilon, rel=1e-9)
    assert result.guarantee.delta == fw_total.delta


@pytest.mark.parametrize(("sensitivity", "recorded", "status"), [
    ("max", 6, "proven sensitivity 6"), (6, 6, "proven sensitivity 6"), (9, 9, "proven"),
    (1, 1, "declared (unproven) sensitivity 1"), (3, 3, "declared (unproven) sensitivity 3")])
def test_count_sensitivity_scales_the_noise_not_the_budget(sensitivity, recorded, status):
    """The default ``"max"`` is the proven bound ``p = 6``; smaller values are recorded as
    declared. Either way the count spends exactly its share of the budget."""
    X, y = _data()
    model = SparsifierClassifier(lam=4.0, n_iter=10, epsilon=2.0, count_fraction=0.5,
                                 count_sensitivity=sensitivity, classes=[0, 1],
                                 random_state=0).fit(X, y)
    count_event = model.privacy_ledger_.events[0]
    assert count_event.sensitivity == recorded
    assert count_event.epsilon == 1.0
    assert status in count_event.note


def test_default_count_sensitivity_is_the_number_of_countable_coefficients():
    X, y = _data()
    assert SparsifierClassifier().count_sensitivity == "max"
    labels = np.digitize(X[:, 0], [-0.3, 0.3])  # three classes: m = p * C = 18
    model = SparsifierClassifier(lam=4.0, n_iter=10, classes=[0, 1, 2],
                                 random_state=0).fit(X, labels)
    assert model.privacy_ledger_.events[0].sensitivity == X.shape[1] * 3


def test_random_start_spends_nothing_extra():
    X, y = _data()
    ledgers = [PrivateFrankWolfeLassoClassifier(lam=4.0, n_iter=10, epsilon=1.0, init=init,
                                                classes=[0, 1], random_state=0).fit(X, y).privacy_ledger_
               for init in ("zero", "random")]
    assert ledgers[0].events == ledgers[1].events


@pytest.mark.parametrize("count", ["accuracy", "noise-floor", "block-median", "lasso-support"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_default_sparsifier_parts_compose_to_the_budget(count, n_classes):
    """Threshold f_b eps; of the rest, the count (when it spends) f_c (1 - f_b) eps (f_c =
    0.1 for the accuracy count, 1/4 for the others) and the steps what remains; the noise
    floor spends nothing, so its steps get (1 - f_b) eps. The accuracy count's event comes
    after the steps' (it reads their weights), the others' before."""
    X, y = _data(n=120)
    if n_classes == 3:
        y = np.digitize(X[:, 0], [-0.3, 0.3])
    epsilon, f_threshold = 2.0, 0.1
    f_count = 0.1 if count == "accuracy" else 0.25
    model = ExperimentSparsifier(lam=4.0, n_iter=10, epsilon=epsilon, count=count,
                                 classes=list(range(n_classes)), random_state=0).fit(X, y)
    events = model.privacy_ledger_.events
    threshold_event = events[-1]
    assert threshold_event.note.startswith("decision threshold")
    assert threshold_event.count == 1
    assert threshold_event.epsilon * threshold_event.count == pytest.approx(
        f_threshold * epsilon, rel=1e-12)
    assert len(events) == (2 if count == "noise-floor" else 3)
    spent_count = (0.0 if count == "noise-floor"
                   else events[1 if count == "accuracy" else 0].epsilon)
    if count == "accuracy":
        assert events[1].note.startswith("Sparsifier count: size among")
    assert spent_count == pytest.approx(
        0.0 if count == "noise-floor" else f_count * (1 - f_threshold) * epsilon)
    assert model.privacy_guarantee_.epsilon <= epsilon
    assert model.privacy_guarantee_.epsilon == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("estimator", [PrivateFrankWolfeLassoClassifier, ExperimentSparsifier])
def test_without_an_intercept_column_the_threshold_is_the_intercept(estimator):
    """The Sparsifier's default joint release releases the threshold with its size; its
    accuracy count runs the threshold as a step of its own, which can be switched off."""
    X, y = _data()
    model = estimator(fit_intercept=False, n_iter=5, classes=[0, 1], random_state=0).fit(X, y)
    assert model.intercept_[0] != 0.0
    last = model.privacy_ledger_.events[-1].note
    if estimator is ExperimentSparsifier:
        assert last.startswith("Sparsifier model: size, threshold or a constant")
        extra = {"count": "accuracy"}
        separate = estimator(fit_intercept=False, n_iter=5, classes=[0, 1], random_state=0,
                             **extra).fit(X, y)
        assert separate.intercept_[0] != 0.0
        assert separate.privacy_ledger_.events[-1].note.startswith("decision threshold")
    else:
        assert last.startswith("decision threshold")
        extra = {}
    plain = estimator(fit_intercept=False, threshold="none", n_iter=5, classes=[0, 1],
                      random_state=0, **extra)
    assert plain.fit(X, y).intercept_[0] == 0.0


def test_split_share_rounds_down_and_checks_its_arguments():
    from fractions import Fraction

    from dplasso.privacy.shares import split_share
    share, rest = split_share(1.0, 0.1)  # 0.1 + (1 - 0.1) rounds to 1 but exceeds it
    assert (share, rest) == (0.1, math.nextafter(0.9, 0.0))
    assert Fraction(share) + Fraction(rest) <= 1
    with pytest.raises(ValueError, match="fraction must be a finite number"):
        split_share(1.0, math.nan)
    with pytest.raises(ValueError, match=r"fraction must lie in \[0, 1\]"):
        split_share(1.0, 1.5)


def test_remaining_share_rounds_down_and_checks_its_arguments():
    from fractions import Fraction

    from dplasso.privacy.shares import remaining_share
    spent = (0.1 * 0.7, 0.25 * 0.63)
    rest = remaining_share(0.7, *spent)
    assert sum(map(Fraction, (*spent, rest))) <= Fraction(0.7)
    assert rest >= math.nextafter(0.7 - math.fsum(spent), 0.0) - 1e-15
    with pytest.raises(ValueError, match="spent must be a finite number"):
        remaining_share(1.0, math.nan)
    with pytest.raises(ValueError, match="add up to more than"):
        remaining_share(1.0, 0.6, 0.6)
