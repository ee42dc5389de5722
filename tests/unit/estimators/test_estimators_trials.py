"""The batched entry points: private_frank_wolfe_trials, sparsify_trials and their pieces."""
import math
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest

from estimator_problems import binary_problem, three_class_problem
from dplasso.estimators import (
    MAX_AUTO_N_ITER,
    auto_n_iter,
    calibrate_selection,
    keep_largest_entries,
    private_frank_wolfe_trials,
    sparsifier_budget,
    sparsify_trials,
    split_budget,
)
from dplasso.estimators import sparsifier as sparsifier_module
from dplasso.estimators.joint_release import joint_share
from dplasso.estimators.private_count import DEFAULT_COUNT_FRACTIONS
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.estimators.private_frank_wolfe import PrivateRun, private_frank_wolfe_runs
from dplasso.privacy.accounting import compose
from dplasso.privacy.calibration import (
    calibrate_exponential_mechanism,
    calibrate_report_noisy_min,
)
from dplasso.privacy.selection import ExponentialMechanismSelector, ReportNoisyMinSelector


def test_private_trials_shapes_and_independent_trials():
    X, y, _ = binary_problem(p=30)
    result = private_frank_wolfe_trials(X, y, lam=5.0, n_iter=40, epsilon=1.0, n_trials=4,
                                        random_state=0)
    assert result.W.shape == (30, 4) and result.intercept.shape == (4,)
    assert result.n_iter == 40 and result.n_nonzero_target is None
    assert result.accounting == ((result.ledger, result.guarantee),)
    assert len({result.W[:, k].tobytes() for k in range(4)}) == 4  # independent noise
    Xm, ym = three_class_problem()
    multi = private_frank_wolfe_trials(Xm, ym, lam=5.0, n_iter=40, epsilon=1.0, n_trials=3,
                                       n_classes=3, fit_intercept=False, random_state=0)
    assert multi.W.shape == (Xm.shape[1], 3, 3)
    np.testing.assert_array_equal(multi.intercept, np.zeros((3, 3)))
    assert multi.ledger.events[0].sensitivity == 2 * 5.0 / len(ym)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_runs_in_one_engine_call_equal_their_own_calls(n_classes, sparse):
    """Budgets, step counts, starts and trial counts batched into one engine call give each
    run what its own ``private_frank_wolfe_trials`` call gives (same generators), with the
    same step count and guarantee."""
    import scipy.sparse as sps

    X, y = binary_problem(p=20)[:2] if n_classes == 2 else three_class_problem()
    if sparse:
        X = sps.csr_matrix(np.where(np.random.default_rng(1).uniform(size=X.shape) < 0.3, X, 0))
    runs = [PrivateRun(0.5, "auto", 2, "zero", 1), PrivateRun(2.0, 37, 3, "random", 2),
            PrivateRun(5.0, "auto", 1, "zero", 3), PrivateRun(1.0, 5, 2, "random", 4)]
    batched = private_frank_wolfe_runs(X, y, runs, lam=10.0, n_classes=n_classes)
    assert len({fit.n_iter for fit in batched}) > 2  # the runs stop at different steps
    for run, fit in zip(runs, batched):
        alone = private_frank_wolfe_trials(
            X, y, lam=10.0, n_iter=run.n_iter, epsilon=run.epsilon, n_trials=run.n_trials,
            init=run.init, random_state=run.random_state, n_classes=n_classes)
        assert fit.n_iter == alone.n_iter and fit.guarantee == alone.guarantee
        np.testing.assert_array_equal(fit.W != 0, alone.W != 0)
        np.testing.assert_allclose(fit.W, alone.W, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(fit.intercept, alone.intercept, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="at least one"):
        private_frank_wolfe_runs(X, y, [], lam=10.0, n_classes=n_classes)


def test_random_init_trials_draw_independent_starts():
    X, y, _ = binary_problem(p=30)
    result = private_frank_wolfe_trials(X, y, lam=5.0, n_iter=10, epsilon=1.0, n_trials=3,
                                        init="random", random_state=0)
    assert np.all(np.count_nonzero(result.W, axis=0) == 30)
    assert np.all(np.abs(result.W).sum(axis=0) + np.abs(result.intercept) <= 5.0 * (1 + 1e-12))


def test_sparsify_trials_keeps_the_top_noisy_count_of_the_private_output():
    """A spy on the top-c~ step: it receives the private weights *without* the intercept row
    and the released counts; the output is its result, with at most c~ nonzeros, exactly c~
    when the private output had that many; the non-private count is solved once for K."""
    X, y, _ = binary_problem(p=40)
    seen = {}

    def spy(W, k):
        seen["W"], seen["k"] = W.copy(), np.asarray(k).copy()
        return keep_largest_entries(W, k)

    with mock.patch.object(sparsifier_module, "keep_largest_entries", side_effect=spy), \
            mock.patch.object(sparsifier_module, "_support_size",
                              wraps=sparsifier_module._support_size) as count_fit:
        result = sparsify_trials(X, y, lam=5.0, n_iter=60, epsilon=1.0, n_trials=12,
                                 count_fraction=0.5, random_state=1)
    count_fit.assert_called_once()
    assert seen["W"].shape == (40, 12)  # 40 features: the intercept is not a candidate
    np.testing.assert_array_equal(seen["k"], result.n_nonzero_target)
    np.testing.assert_array_equal(result.W, keep_largest_entries(seen["W"], seen["k"]))
    before = np.count_nonzero(seen["W"], axis=0)
    after = np.count_nonzero(result.W, axis=0)
    np.testing.assert_array_equal(after, np.minimum(before, result.n_nonzero_target))
    assert np.all((result.n_nonzero_target >= 1) & (result.n_nonzero_target <= 40))
    assert len(set(result.n_nonzero_target.tolist())) > 1  # independent count noise
    assert np.any(result.intercept != 0)


def test_sparsify_trials_multinomial_counts_matrix_entries():
    X, y = three_class_problem()
    result = sparsify_trials(X, y, lam=10.0, n_iter=80, epsilon=5.0, n_trials=5, n_classes=3,
                             random_state=0)
    assert result.W.shape == (X.shape[1], 3, 5) and result.intercept.shape == (3, 5)
    nnz = np.count_nonzero(result.W.reshape(-1, 5), axis=0)
    assert np.all(nnz <= result.n_nonzero_target)
    assert np.all(result.n_nonzero_target <= 3 * X.shape[1])


def test_sparsify_trials_accounting_parts():
    X, y, _ = binary_problem()
    result = sparsify_trials(X, y, lam=5.0, n_iter=30, epsilon=2.0, delta=1e-5,
                             count_fraction=0.25, count_noise="laplace",
                             selection="exponential", random_state=0)
    (count_ledger, count_total), (fw_ledger, fw_total) = result.accounting
    assert [e.mechanism for e in result.ledger.events] == [
        "laplace", "exponential-mechanism"]
    assert count_total.method == "basic" and count_total.epsilon <= 0.5
    assert count_total.epsilon == pytest.approx(0.5, rel=1e-15)
    assert fw_total == fw_ledger.total("zcdp", 1e-5)
    assert fw_total.epsilon == pytest.approx(1.5, rel=1e-9)
    assert result.guarantee.epsilon == pytest.approx(2.0, rel=1e-9)
    assert result.guarantee.delta == 1e-5


@pytest.mark.parametrize(("count", "threshold"), [
    ("joint", "private"), ("accuracy", "private"), ("noise-floor", "none")])
def test_sparsifier_budget_is_what_each_part_spends(count, threshold):
    X, y, _ = binary_problem()
    epsilon = 1.5
    parts = sparsifier_budget(epsilon, y.size, count=count, threshold=threshold)
    assert sum(map(Fraction, parts)) <= Fraction(epsilon)
    assert math.isclose(sum(parts), epsilon, rel_tol=1e-15)
    result = sparsify_trials(X, y, lam=5.0, n_iter="auto", epsilon=epsilon, count=count,
                             threshold=threshold, selection="exponential",
                             weights="frank-wolfe", random_state=0)
    epsilon_threshold, epsilon_count, epsilon_weights = parts
    fraction = {"joint": joint_share(y.size, epsilon),
                "accuracy": DEFAULT_COUNT_FRACTIONS["accuracy"], "noise-floor": 0.0}[count]
    threshold_share = DEFAULT_THRESHOLD_FRACTION if threshold == "private" else 0.0
    assert epsilon_threshold == pytest.approx(threshold_share * epsilon, rel=1e-15)
    assert epsilon_count == pytest.approx(fraction * (epsilon - epsilon_threshold), rel=1e-15)
    spent = [guarantee.epsilon for _, guarantee in result.accounting]
    if count == "joint":  # the weights, then the size and the threshold in one draw
        assert spent[0] == pytest.approx(epsilon_weights, rel=1e-9)
        assert spent[1] == pytest.approx(epsilon_threshold + epsilon_count, rel=1e-12)
    elif count == "accuracy":  # the weights, the count, the threshold
        assert spent == pytest.approx([epsilon_weights, epsilon_count, epsilon_threshold],
                                      rel=1e-9)
    else:
        assert (epsilon_threshold, epsilon_count) == (0.0, 0.0)
        assert spent == pytest.approx([epsilon_weights], rel=1e-9)


@pytest.mark.parametrize(("selection", "kind", "method"), [
    ("laplace", ReportNoisyMinSelector, "advanced"),
    ("exponential", ExponentialMechanismSelector, "zcdp"),
])
@pytest.mark.parametrize("delta", [1e-6, 0.0])
def test_calibrate_selection(selection, kind, method, delta):
    sensitivity, steps, epsilon = 0.01, 50, 0.8
    selector, rule = calibrate_selection(selection, epsilon, delta, steps, sensitivity)
    assert isinstance(selector, kind)
    assert rule == (method if delta > 0 else "basic")
    total = compose([selector.event(sensitivity, steps)], rule, delta if delta > 0 else None)
    assert total.epsilon <= epsilon
    assert total.epsilon == pytest.approx(epsilon, rel=1e-9)
    if delta == 0:
        assert selector.scale == pytest.approx(2 * sensitivity * steps / epsilon, rel=1e-15)


@pytest.mark.parametrize("selection", ["laplace", "exponential"])
def test_calibrate_selection_takes_the_rule_with_the_smaller_scale(selection):
    """With delta > 0 the steps compose by basic composition where its scale is smaller (few
    steps), else by the delta rule; basic spends no delta. Both happen on this grid."""
    other = {"laplace": calibrate_report_noisy_min,
             "exponential": calibrate_exponential_mechanism}[selection]
    sensitivity, delta, rules = 0.02, 1e-6, set()
    for epsilon in (0.1, 1.0, 5.0):
        for steps in (1, 2, 5, 10, 30, 100, 300):
            selector, rule = calibrate_selection(selection, epsilon, delta, steps, sensitivity)
            basic = 2 * sensitivity * steps / epsilon
            approximate = other(epsilon, delta, steps, sensitivity)
            assert selector.scale == pytest.approx(min(basic, approximate), rel=1e-12)
            assert rule == ("basic" if basic <= approximate else RULE[selection])
            rules.add(rule)
            total = compose([selector.event(sensitivity, steps)], rule,
                            None if rule == "basic" else delta)
            assert total.epsilon <= epsilon and total.delta == (0 if rule == "basic" else delta)
    assert rules == {"basic", RULE[selection]}


RULE = {"laplace": "advanced", "exponential": "zcdp"}


def test_one_step_spends_its_whole_budget():
    """One step (where the automatic T went on small data before basic composition was a
    choice: n = 200, p = 40, eps = 0.234) gets all of eps, not the 0.21 (Laplace) or 0.43
    (exponential mechanism) of it that advanced composition or zCDP with delta = 1/n^2 leave."""
    n, lam, epsilon, delta = 200, 10.0, 0.234, 1 / 200**2
    sensitivity = 2 * lam / n
    for selection, share in (("laplace", 0.215), ("exponential", 0.432)):
        selector, rule = calibrate_selection(selection, epsilon, delta, 1, sensitivity)
        assert rule == "basic" and selector.scale == pytest.approx(2 * sensitivity / epsilon)
        approximate = {"laplace": calibrate_report_noisy_min,
                       "exponential": calibrate_exponential_mechanism}[selection]
        assert selector.scale / approximate(epsilon, delta, 1, sensitivity) == pytest.approx(
            share, abs=0.005)


def test_calibrate_selection_rejects_bad_budgets():
    with pytest.raises(ValueError, match="selection must be one of"):
        calibrate_selection("argmin", 1.0, 1e-6, 10, 0.1)
    with pytest.raises(ValueError, match=r"delta must lie in \[0, 1\)"):
        calibrate_selection("laplace", 1.0, 1.0, 10, 0.1)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        calibrate_selection("laplace", 0.0, 1e-6, 10, 0.1)


def _bound(T, lam, n, epsilon, delta, m, selection):
    """The objective of auto_n_iter, written out from its docstring."""
    selector, _ = calibrate_selection(selection, epsilon, delta, T, 2 * lam / n)
    return 2 * lam**2 / (T + 2) + 2 * selector.scale * math.log(2 * m)


@pytest.mark.parametrize(("n", "epsilon", "selection"), [
    (2000, 0.5, "laplace"), (20_000, 1.0, "exponential"), (500, 2.0, "laplace")])
def test_auto_n_iter_is_close_to_the_best_step_count(n, epsilon, selection):
    """The 64-point geometric grid has ratio 1000**(1/63) < 1.12 between neighbours; near its
    minimum the bound is flat, so the grid's choice is within 1% of the best integer."""
    lam, delta, m = 10.0, 1.0 / n**2, 101
    chosen = auto_n_iter(lam, n, epsilon, delta, m, selection)
    assert 1 <= chosen <= MAX_AUTO_N_ITER
    every = range(1, MAX_AUTO_N_ITER + 1, 7)
    best = min(_bound(T, lam, n, epsilon, delta, m, selection) for T in every)
    assert _bound(chosen, lam, n, epsilon, delta, m, selection) <= 1.01 * best


def test_auto_n_iter_grows_like_n_to_the_two_thirds():
    """At fixed delta the bound balances lam^2/T against sqrt(T)/n, so T ~ n^(2/3): eight times
    the rows, four times the steps (to the grid's resolution, a ratio 1.12 either way)."""
    small = auto_n_iter(10.0, 2_000, 0.2, 1e-8, 101)
    large = auto_n_iter(10.0, 16_000, 0.2, 1e-8, 101)
    assert 4 / 1.25 <= large / small <= 4 * 1.25
    assert auto_n_iter(10.0, 10**9, 1.0, 1e-8, 101) == MAX_AUTO_N_ITER


def test_keep_largest_entries_breaks_ties_toward_the_lower_index():
    W = np.array([[0.5, 0.0], [-2.0, 1.0], [2.0, 0.0], [0.1, -1.0]])
    kept = keep_largest_entries(W, [2, 3])
    np.testing.assert_array_equal(kept[:, 0], [0.0, -2.0, 2.0, 0.0])
    np.testing.assert_array_equal(kept[:, 1], [0.0, 1.0, 0.0, -1.0])  # only 2 nonzeros exist
    np.testing.assert_array_equal(keep_largest_entries(W, [1, 1])[:, 0], [0, -2.0, 0, 0])
    matrix = np.arange(12.0).reshape(3, 2, 2) - 5.5
    top = keep_largest_entries(matrix, [3, 0])
    assert np.count_nonzero(top[..., 0]) == 3 and not top[..., 1].any()
    np.testing.assert_array_equal(np.sort(np.abs(top[..., 0][top[..., 0] != 0])),
                                  [3.5, 4.5, 5.5])
    with pytest.raises(ValueError, match="k must hold 2 non-negative integers"):
        keep_largest_entries(W, [1])
    with pytest.raises(ValueError, match="k must hold 2 non-negative integers"):
        keep_largest_entries(W, [1, -1])


def test_split_budget():
    epsilon_count, epsilon_fw = split_budget(0.3, 0.1)
    assert epsilon_count == 0.3 * 0.1
    assert epsilon_fw in (0.3 - 0.3 * 0.1, math.nextafter(0.3 - 0.3 * 0.1, 0.0))
    assert Fraction(epsilon_count) + Fraction(epsilon_fw) <= Fraction(0.3)
    assert math.isclose(epsilon_count + epsilon_fw, 0.3, rel_tol=1e-15)
    with pytest.raises(ValueError, match="count_fraction"):
        split_budget(1.0, 1.5)
