"""The Sparsifier core, ``sparsify_runs``: several runs in one engine call, the count given,
the weights given, against the calls each of them replaces."""
from unittest import mock

import numpy as np
import pytest

from estimator_problems import binary_problem, three_class_problem
from dplasso.estimators import (
    SparsifierRun,
    keep_largest_entries,
    lasso_support_size,
    noisy_count,
    private_frank_wolfe_trials,
    sparsify_runs,
    sparsify_trials,
    split_budget,
)
from dplasso.estimators import sparsifier as sparsifier_module
from dplasso.estimators import private_frank_wolfe
from dplasso.estimators.private_frank_wolfe import PrivateRun
from dplasso.privacy.accounting import advanced_composition
from dplasso.privacy.calibration import fw_score_sensitivity, talwar_laplace_scale
from dplasso.privacy.selection import report_noisy_min_event
from dplasso.estimators.threshold import (
    DEFAULT_THRESHOLD_FRACTION,
    release_threshold,
    split_threshold_budget,
)

LAM = 10.0


def _problem(n_classes):
    return binary_problem(p=20)[:2] if n_classes == 2 else three_class_problem()


def _runs(n_classes):
    runs = [SparsifierRun(2.0, 3, 1, count="lasso-support", count_fraction=0.25,
                          count_sensitivity=1, threshold="private"),
            SparsifierRun(1.0, 2, 2, n_iter=20, count="accuracy", threshold="private"),
            SparsifierRun(5.0, 2, 3, count="noise-floor", threshold="private"),
            SparsifierRun(3.0, 2, 4, count="block-median"),
            SparsifierRun(2.0, 2, 5, count="joint", threshold="private", weights="auto"),
            PrivateRun(2.0, "auto", 2, "random", 6),
            PrivateRun(1.0, 15, 2, "zero", 7, None, "private")]
    return runs


def _alone(X, y, run, n_classes, **kwargs):
    if isinstance(run, PrivateRun):
        return private_frank_wolfe_trials(
            X, y, lam=LAM, n_iter=run.n_iter, epsilon=run.epsilon, n_trials=run.n_trials,
            n_classes=n_classes, init=run.init, threshold=run.threshold,
            random_state=run.random_state)
    return sparsify_trials(
        X, y, lam=LAM, n_iter=run.n_iter, epsilon=run.epsilon, n_trials=run.n_trials,
        n_classes=n_classes, count=run.count, count_fraction=run.count_fraction,
        count_sensitivity=run.count_sensitivity, threshold=run.threshold, weights=run.weights,
        random_state=run.random_state, **kwargs)


def _assert_same_fit(fit, alone):
    """The same releases: counts, step counts, ledgers exactly; the weights up to the
    rounding of the batched product (the same support)."""
    assert fit.n_iter == alone.n_iter and fit.guarantee == alone.guarantee
    assert fit.ledger.events == alone.ledger.events
    assert [part[1] for part in fit.accounting] == [part[1] for part in alone.accounting]
    if alone.n_nonzero_target is None:
        assert fit.n_nonzero_target is None and fit.weights_nnz is None
    else:
        np.testing.assert_array_equal(fit.n_nonzero_target, alone.n_nonzero_target)
        np.testing.assert_array_equal(fit.weights_nnz, alone.weights_nnz)
    np.testing.assert_array_equal(fit.W != 0, alone.W != 0)
    np.testing.assert_allclose(fit.W, alone.W, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fit.intercept, alone.intercept, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_runs_in_one_call_are_each_run_s_own_call(n_classes):
    """Every count, threshold, start and step count batched: each run releases what its own
    ``sparsify_trials`` (or ``private_frank_wolfe_trials``) call releases; the non-private
    count is solved once for every run that needs it."""
    X, y = _problem(n_classes)
    runs = _runs(n_classes)
    with mock.patch.object(sparsifier_module, "_support_size",
                           wraps=sparsifier_module._support_size) as solve:
        batched = sparsify_runs(X, y, runs, lam=LAM, n_classes=n_classes)
    solve.assert_called_once()
    assert len({fit.n_iter for fit in batched}) > 2  # the runs stop at different steps
    for run, fit in zip(runs, batched):
        _assert_same_fit(fit, _alone(X, y, run, n_classes))


@pytest.mark.parametrize("threshold", ["none", "private"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_p1_s_sparsifier_is_its_count_then_the_weights_then_the_cut(n_classes, threshold):
    """P1's pipeline from its pieces, one generator for all: the threshold's share first,
    the count's of the rest, the noisy count drawn, private Frank-Wolfe from zero on what
    is left, the top-c~ cut, then the threshold released on the cut model."""
    X, y = _problem(n_classes)
    count = lasso_support_size(X, y, lam=LAM, n_classes=n_classes)
    n_countable = X.shape[1] * (1 if n_classes == 2 else n_classes)
    for sensitivity in (1, "max"):
        (fit,) = sparsify_runs(
            X, y, [SparsifierRun(2.0, 4, 11, count_fraction=0.25,
                                 count_sensitivity=sensitivity, threshold=threshold)],
            lam=LAM, n_classes=n_classes, support_size=count)
        rng = np.random.default_rng(11)
        epsilon_threshold, rest = split_threshold_budget(2.0, threshold,
                                                         DEFAULT_THRESHOLD_FRACTION)
        epsilon_count, epsilon_fw = split_budget(rest, 0.25)
        targets = noisy_count(count, epsilon_count, sensitivity, "geometric", rng,
                              n_max=n_countable, size=4)
        weights = private_frank_wolfe_trials(X, y, lam=LAM, n_iter="auto", epsilon=epsilon_fw,
                                             n_trials=4, n_classes=n_classes, random_state=rng)
        W, intercept = keep_largest_entries(weights.W, targets), weights.intercept
        if threshold == "private":
            intercept, _ = release_threshold(np.column_stack([X, np.ones(len(y))]), y, W,
                                             intercept, n_classes=n_classes,
                                             epsilon=epsilon_threshold, rng=rng)
        np.testing.assert_array_equal(fit.n_nonzero_target, targets)
        np.testing.assert_array_equal(fit.W, W)
        np.testing.assert_array_equal(fit.intercept, intercept)
        assert fit.n_iter == weights.n_iter and fit.accounting[1][1] == weights.guarantee
        assert fit.accounting[1][0].events == weights.ledger.events


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_given_support_size_is_the_solved_one(n_classes):
    X, y = _problem(n_classes)
    count = lasso_support_size(X, y, lam=LAM, n_classes=n_classes)
    run = SparsifierRun(2.0, 4, 11, count_sensitivity=1, threshold="private")
    with mock.patch.object(sparsifier_module, "_support_size") as solve:
        (given,) = sparsify_runs(X, y, [run], lam=LAM, n_classes=n_classes,
                                 support_size=count)
    solve.assert_not_called()
    _assert_same_fit(given, _alone(X, y, run, n_classes))
    alone = _alone(X, y, run, n_classes, support_size=count)
    np.testing.assert_array_equal(given.W, alone.W)


def test_given_weights_are_cut_by_the_released_count():
    """The weights released once (count-noise experiment): each run draws its count from its
    generator, keeps that many entries of the given weights, and accounts for both."""
    X, y = _problem(2)
    fit = private_frank_wolfe_trials(X, y, lam=LAM, n_iter=30, epsilon=3.0, n_trials=4,
                                     random_state=0)
    run = SparsifierRun(0.5, 4, 9, count_sensitivity=1, count_noise="laplace", weights=fit)
    (cut,) = sparsify_runs(X, y, [run], lam=LAM, support_size=5)
    targets = noisy_count(5, 0.5, 1, "laplace", np.random.default_rng(9), n_max=X.shape[1],
                          size=4)
    np.testing.assert_array_equal(cut.n_nonzero_target, targets)
    np.testing.assert_array_equal(cut.W, keep_largest_entries(fit.W, targets))
    np.testing.assert_array_equal(cut.intercept, fit.intercept)
    np.testing.assert_array_equal(cut.weights_nnz, np.count_nonzero(fit.W, axis=0))
    assert cut.n_iter == fit.n_iter and cut.accounting[1][1] == fit.guarantee
    assert cut.accounting[0][1].epsilon == pytest.approx(0.5, rel=1e-15)
    assert cut.guarantee.epsilon == pytest.approx(0.5 + fit.guarantee.epsilon, rel=1e-15)


@pytest.mark.parametrize(("runs", "kwargs", "error", "match"), [
    ([], {}, ValueError, "at least one"),
    ([(2.0, 1)], {}, TypeError, "SparsifierRun or PrivateRun"),
    ([SparsifierRun(2.0)], {"support_size": 21}, ValueError, "support_size must be <= 20"),
    ([SparsifierRun(2.0)], {"support_size": -1}, ValueError, "support_size"),
    ([SparsifierRun(2.0, count="joint")], {}, ValueError, "threshold must be 'private'"),
    ([SparsifierRun(2.0, count="other")], {}, ValueError, "count must be one of"),
])
def test_bad_runs_are_refused_before_any_draw(runs, kwargs, error, match):
    X, y = _problem(2)
    with pytest.raises(error, match=match):
        sparsify_runs(X, y, runs, lam=LAM, **kwargs)


def test_given_weights_need_p1_s_count_its_budget_and_their_trials():
    X, y = _problem(2)
    fit = private_frank_wolfe_trials(X, y, lam=LAM, n_iter=5, epsilon=3.0, n_trials=2,
                                     random_state=0)
    for run, match in [
            (SparsifierRun(1.0, 2, weights=fit, count="accuracy"), "count='lasso-support'"),
            (SparsifierRun(1.0, 2, weights=fit, count_fraction=0.5), "count_fraction"),
            (SparsifierRun(1.0, 3, weights=fit), "n_trials=3")]:
        with pytest.raises(ValueError, match=match):
            sparsify_runs(X, y, [run], lam=LAM)


def test_talwar_calibration_is_the_closed_form_scale_and_its_ledger_says_what_it_spends():
    """``calibration="talwar"`` (the authors' convention, an experiment option): each run's
    selections use Talwar et al.'s closed-form Laplace scale for its own T and budget; the
    ledger records those selections under replace-one, so it shows more than the nominal
    budget; the default (proven) calibration is the call without the option."""
    X, y = _problem(2)
    runs = [PrivateRun(2.0, 12, 3, "zero", 1), SparsifierRun(1.0, 2, 2, n_iter=7,
                                                             count_sensitivity=1)]
    with mock.patch.object(private_frank_wolfe, "ReportNoisyMinSelector",
                           wraps=private_frank_wolfe.ReportNoisyMinSelector) as selector:
        plain, cut = sparsify_runs(X, y, runs, lam=LAM, calibration="talwar")
    n = X.shape[0]
    scales = [call.args[0] for call in selector.call_args_list]
    assert scales == [talwar_laplace_scale(2.0, 1 / n**2, 12, LAM, n),
                      talwar_laplace_scale(0.75, 1 / n**2, 7, LAM, n)]
    sensitivity = fw_score_sensitivity("logistic", LAM, n)
    spent = advanced_composition([report_noisy_min_event(sensitivity, scales[0], 12)],
                                 1 / n**2).epsilon
    assert plain.guarantee.epsilon == pytest.approx(spent, rel=1e-12) and spent > 2.0
    assert cut.guarantee.epsilon > 1.0
    proven = sparsify_runs(X, y, runs, lam=LAM)
    default = sparsify_runs(X, y, runs, lam=LAM, calibration="proven")
    for a, b in zip(proven, default):
        np.testing.assert_array_equal(a.W, b.W)
        assert a.guarantee == b.guarantee and a.guarantee.epsilon <= 2.0


@pytest.mark.parametrize(("kwargs", "runs"), [
    ({"calibration": "closed-form"}, [PrivateRun(1.0, 5)]),
    ({"calibration": "talwar", "selection": "exponential"}, [PrivateRun(1.0, 5)]),
    ({"calibration": "talwar"}, [PrivateRun(1.0, 5, delta=0.0)]),
])
def test_a_calibration_it_cannot_apply_is_refused_before_any_draw(kwargs, runs):
    X, y = _problem(2)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="calibration"):
        sparsify_runs(X, y, [SparsifierRun(1.0, 1, rng, count_sensitivity=1), *runs],
                      lam=LAM, **kwargs)
    assert rng.bit_generator.state == state
