"""Screening schedules and the Frank-Wolfe screening hook (private and non-private)."""
import math

import numpy as np
import pytest

from dplasso.optim.frank_wolfe import exact_select, frank_wolfe
from dplasso.optim.losses import MultinomialLoss, SquaredLoss
from dplasso.privacy import PrivacyLedger
from dplasso.screening.callback import make_screening_callback
from dplasso.screening.private import screening_sensitivity
from dplasso.screening.schedule import ScreeningSchedule

from screening_problems import SUITE, make_problem


def test_schedule_rounds_and_iterations():
    every_50 = ScreeningSchedule(1000, every=50)
    assert every_50.rounds == 20
    np.testing.assert_array_equal(every_50.iterations, np.arange(50, 1001, 50))
    assert every_50.is_round(50) and every_50.is_round(1000) and not every_50.is_round(49)
    every_step = ScreeningSchedule(1000, every=1)
    assert every_step.rounds == 1000 and every_step.is_round(1)
    last = ScreeningSchedule(1000)
    assert last.rounds == 1 and list(last.iterations) == [1000]
    assert last.is_round(1000) and not last.is_round(999) and not last.is_round(1001)
    # rounds == number of t in 1..T that are rounds, for uneven divisions too
    for schedule in (ScreeningSchedule(103, every=10), ScreeningSchedule(7, every=7), last):
        assert schedule.rounds == sum(schedule.is_round(t) for t in range(1, schedule.n_iter + 1))
    # 20 rounds of (1/6000)/20 would add up to an ulp more than 1/6000: one ulp less
    assert ScreeningSchedule(1000, every=50).round_budget(2.5, 1 / 6000) == (
        0.125, math.nextafter(1 / 120000, 0.0))


def test_schedule_rejects_bad_arguments():
    with pytest.raises(ValueError, match="no round"):
        ScreeningSchedule(10, every=11)
    with pytest.raises(ValueError, match="every"):
        ScreeningSchedule(10, every=0)
    with pytest.raises(ValueError, match="n_iter"):
        ScreeningSchedule(0)
    with pytest.raises(TypeError, match="every"):
        ScreeningSchedule(10, every=2.5)


def _problem():
    return make_problem(*SUITE[10])  # logistic, sparse, n=60, p=20, lam=3


def test_nonprivate_callback_is_safe_and_records_rounds():
    problem = _problem()
    p = problem.X.shape[1]
    schedule = ScreeningSchedule(60, every=10)
    w_true = problem.support.astype(float)
    callback = make_screening_callback(problem.X, problem.y, problem.lam, problem.loss,
                                       schedule, w_true=w_true)
    result = frank_wolfe(problem.loss, problem.X, problem.y, problem.lam, 60, exact_select,
                         n_trials=2, callback=callback,
                         mask_semantics="zero-and-exclude")
    assert callback.screened.shape == (p, 2) and callback.screened.any()
    np.testing.assert_array_equal(result.mask, callback.screened)
    assert not (callback.screened & problem.support[:, np.newaxis]).any()
    assert not result.W[callback.screened].any()
    assert [r["t"] for r in callback.records] == [t for t in range(10, 61, 10) for _ in (0, 1)]
    last = callback.records[-1]
    assert last["n_screened"] == callback.screened[:, 1].sum()
    assert last["n_screened_true_nonzero"] == 0
    assert last["n_screened_true_zero"] == last["n_screened"]
    assert last["radius"] > 0 and callback.ledger is None
    counts = [r["n_screened"] for r in callback.records if r["trial"] == 0]
    assert counts == sorted(counts)  # the union only grows


def test_callback_records_the_weights_each_round_sees_under_both_semantics():
    """``nnz``/``nnz_kept`` count the iterate's nonzeros before and after the round's mask;
    under zero-and-may-return screened coordinates can be nonzero again at a later round."""
    problem = _problem()
    schedule = ScreeningSchedule(60, every=10)
    callback = make_screening_callback(problem.X, problem.y, problem.lam, problem.loss,
                                       schedule, private=True, epsilon=1.0, delta=1e-5, rng=2,
                                       w_true=problem.support.astype(float))
    seen = []

    def spy(t, W, G, gap):
        mask = callback(t, W, G, gap)
        if mask is not None:
            seen.append((np.array(W) != 0, mask, callback.screened.copy()))
        return mask

    frank_wolfe(problem.loss, problem.X, problem.y, problem.lam, 60, exact_select, n_trials=2,
                callback=spy, mask_semantics=["zero-and-may-return", "zero-and-exclude"])
    records = iter(callback.records)
    back = False
    for nonzero, mask, union_after in seen:
        for k in range(2):
            record = next(records)
            assert record["nnz"] == nonzero[:, k].sum()
            assert record["nnz_kept"] == (nonzero[:, k] & ~mask[:, k]).sum()
            assert record["nnz_kept_true_nonzero"] == (
                nonzero[:, k] & ~mask[:, k] & problem.support).sum()
        back |= bool(np.any(nonzero[:, 0] & union_after[:, 0] & ~mask[:, 0]))
        assert not np.any(nonzero[:, 1] & (union_after[:, 1] & ~mask[:, 1]))
    assert back  # a coordinate screened earlier is nonzero (may return) at a later round


def test_private_callback_spends_the_budget_over_the_rounds():
    problem = make_problem(*SUITE[0])  # squared loss
    loss = SquaredLoss(y_bound=float(np.abs(problem.y).max()))
    schedule = ScreeningSchedule(20, every=5)
    ledger = PrivacyLedger()
    callback = make_screening_callback(problem.X, problem.y, problem.lam, loss, schedule,
                                       private=True, epsilon=2.5, delta=1e-4, rng=3,
                                       ledger=ledger, w_true=problem.w_star)
    frank_wolfe(loss, problem.X, problem.y, problem.lam, 20, exact_select, n_trials=3,
                callback=callback,
                mask_semantics="zero-and-exclude")
    assert callback.ledger is ledger and len(ledger) == schedule.rounds == 4
    declared = screening_sensitivity(*problem.X.shape, problem.lam, loss)
    for event in ledger.events:
        assert event.sensitivity == declared.l2
        assert (event.epsilon, event.delta) == (2.5 / 4, 1e-4 / 4)
    total = ledger.total("basic")
    assert total.epsilon == pytest.approx(2.5, rel=1e-12)
    assert total.delta == pytest.approx(1e-4, rel=1e-12)
    assert {r["sigma"] for r in callback.records} == {callback.records[0]["sigma"]}
    assert len(callback.records) == 4 * 3


def test_private_callback_creates_its_ledger_and_is_reproducible():
    problem = _problem()
    schedule = ScreeningSchedule(10)
    masks = []
    for _ in range(2):
        callback = make_screening_callback(problem.X, problem.y, problem.lam, problem.loss,
                                           schedule, private=True, epsilon=1.0, delta=1e-5,
                                           rng=11)
        frank_wolfe(problem.loss, problem.X, problem.y, problem.lam, 10, exact_select,
                    callback=callback,
                    mask_semantics="zero-and-exclude")
        assert len(callback.ledger) == 1
        masks.append(callback.screened)
    np.testing.assert_array_equal(*masks)


def test_callback_rejects_inconsistent_switches():
    problem = _problem()
    args = (problem.X, problem.y, problem.lam, problem.loss, ScreeningSchedule(10))
    with pytest.raises(ValueError, match="private=True only"):
        make_screening_callback(*args, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="private=True only"):
        make_screening_callback(*args, ledger=PrivacyLedger())
    with pytest.raises(ValueError, match="needs epsilon and delta"):
        make_screening_callback(*args, private=True, epsilon=1.0)
    with pytest.raises(TypeError, match="ScreeningSchedule"):
        make_screening_callback(*args[:4], 10)
    with pytest.raises(ValueError, match="w_true"):
        make_screening_callback(*args, w_true=np.zeros(3))
    with pytest.raises(ValueError, match="radius_kind"):
        make_screening_callback(*args, radius_kind="tight")
    with pytest.raises(TypeError, match="LogisticLoss and SquaredLoss"):
        make_screening_callback(*args[:3], MultinomialLoss(2), ScreeningSchedule(10))


@pytest.mark.parametrize("private", [False, True])
def test_rounds_on_the_engines_gradient_equal_rounds_that_recompute_it(private):
    """The callback takes the engine's gradient and loss values (``wants_objective``); a
    wrapper that hides them makes it recompute both from ``X W``: the same masks and records
    (radius and gap to rounding)."""
    problem = _problem()
    schedule = ScreeningSchedule(60, every=3)
    runs = []
    for hide in (False, True):
        callback = make_screening_callback(
            problem.X, problem.y, problem.lam, problem.loss, schedule, private=private,
            epsilon=2.0 if private else None, delta=1e-5 if private else None,
            rng=4 if private else None, w_true=problem.support.astype(float))
        hook = (lambda t, W, G, gap, callback=callback: callback(t, W, G, gap)) if hide \
            else callback
        result = frank_wolfe(problem.loss, problem.X, problem.y, problem.lam, 60,
                             exact_select, n_trials=2, callback=hook,
                             mask_semantics="zero-and-may-return")
        runs.append((result, callback))
    (engine, given), (recomputed, own) = runs
    assert given.screened.any()
    np.testing.assert_array_equal(given.screened, own.screened)
    np.testing.assert_allclose(engine.W, recomputed.W, rtol=1e-12, atol=1e-15)
    assert len(given.records) == len(own.records)
    for a, b in zip(given.records, own.records):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == pytest.approx(b[key], rel=1e-10, abs=1e-15), key
