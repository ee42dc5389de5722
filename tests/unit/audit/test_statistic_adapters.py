"""Statistic adapters compute what the privatised code computes."""
import numpy as np
import pytest
import scipy.sparse as sp

from dplasso.audit.statistics import FeatureSum, FrankWolfeScores, LabelCount, LassoSupportSize
from dplasso.estimators.count import lasso_support_size
from dplasso.optim.losses import LogisticLoss, MultinomialLoss, SquaredLoss


def _data(seed=0, n=30, p=4):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, p)), rng.integers(0, 2, n).astype(float)


def test_feature_sum_and_label_count():
    X, y = _data()
    assert FeatureSum(2)(X, y) == pytest.approx([X[:, 2].sum()])
    assert FeatureSum(2)(sp.csr_matrix(X), y) == pytest.approx([X[:, 2].sum()])
    assert LabelCount()(X, y) == [y.sum()]
    assert np.array_equal(FeatureSum(1).search_directions(X, y), [0, 1, 0, 0])


def test_frank_wolfe_scores_are_plus_minus_lam_gradient():
    X, y = _data()
    W = np.random.default_rng(1).uniform(-0.5, 0.5, (4, 3))
    loss = LogisticLoss()
    scores = FrankWolfeScores(loss, W, 2.0)(X, y)
    G = loss.gradient(X, y, W)
    assert scores.shape == (8, 3)
    assert np.allclose(scores[:4], 2.0 * G) and np.allclose(scores[4:], -2.0 * G)


def test_frank_wolfe_scores_label_values_and_directions():
    X, y = _data()
    W = np.zeros((4, 3, 2))
    multi = FrankWolfeScores(MultinomialLoss(3), W, 1.0)
    assert multi.label_values == (0.0, 1.0, 2.0)
    assert multi(X, y).shape == (2 * 12, 2)
    assert multi.search_directions(X, y).shape == (4, 12)
    assert FrankWolfeScores(SquaredLoss(y_bound=2.0), np.zeros((4, 1)), 1.0).label_values == (
        -2.0, 0.0, 2.0)
    with pytest.raises(ValueError, match="y_bound"):
        FrankWolfeScores(SquaredLoss(), np.zeros((4, 1)), 1.0).label_values
    with pytest.raises(TypeError, match="Loss"):
        FrankWolfeScores("logistic", np.zeros((4, 1)), 1.0)


def test_lasso_support_size_is_the_sparsifier_count():
    """The adapter evaluates the Sparsifier's own count; its first search direction is the
    L1-ball solution, nonzero exactly on the counted support (intercept entry dropped)."""
    X, y = _data(n=80, p=6)
    statistic = LassoSupportSize(lam=2.0)
    count = lasso_support_size(X, y.astype(int), lam=2.0)
    assert statistic(X, y) == [count] and count > 0
    directions = statistic.search_directions(X, y)
    assert directions.shape == (6, 2)
    assert np.count_nonzero(directions[:, 0]) == count


def _neighbours(X, y, count, seed=5):
    """``count`` replace-one neighbours of ``(X, y)`` (a random row, a flipped label)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        i = int(rng.integers(len(y)))
        X_new, y_new = X.copy(), y.copy()
        X_new[i] = rng.choice([-1.0, 0.0, 1.0], X.shape[1])
        y_new[i] = 1.0 - y[i] if rng.random() < 0.5 else y[i]
        out.append((X_new, y_new))
    return out


def test_lasso_support_size_of_many_datasets_is_each_call():
    X, y = _data(n=80, p=6)
    datasets = [(X, y)] + _neighbours(X, y, 12)
    statistic = LassoSupportSize(lam=2.0)
    values = statistic.many(datasets)
    assert [v.tolist() for v in values] == [statistic(A, b).tolist() for A, b in datasets]
    assert len({float(v[0]) for v in values}) > 1


def test_block_median_utility_of_many_datasets_is_each_call(monkeypatch):
    """``many`` gives each neighbour's utility (a fresh adapter per dataset) and solves the
    blocks it has not seen in one batch; a second call solves nothing."""
    from dplasso.audit import statistics
    from dplasso.audit.statistics import BlockMedianUtility

    X, y = _data(n=60, p=5)
    datasets = [(X, y)] + _neighbours(X, y, 10)
    expected = [BlockMedianUtility(2.0, 4)(A, b) for A, b in datasets]
    batches = []
    solve = statistics.fit_support_sizes
    monkeypatch.setattr(statistics, "fit_support_sizes",
                        lambda loss, problems, *a, **k: batches.append(len(problems))
                        or solve(loss, problems, *a, **k))
    statistic = BlockMedianUtility(2.0, 4)
    values = statistic.many(datasets)
    assert all(np.array_equal(v, e) for v, e in zip(values, expected))
    assert len({tuple(e) for e in expected}) > 1
    assert batches == [4 + 10]  # the four blocks of X, then one changed block per neighbour
    statistic.many(datasets)
    assert batches == [14]


def test_threshold_utility_is_the_release_utility():
    """The adapter, written from the lemma's definition, agrees with the sorted-search counts
    the release computes (binary; every (class, offset) pair of three classes)."""
    from dplasso.estimators.problem import prepare_design
    from dplasso.estimators.threshold import _binary_utilities, class_offset_utilities
    from dplasso.audit.statistics import ThresholdUtility

    X, y = _data(n=50)
    design = prepare_design(X, fit_intercept=True, bounds="error")
    w = np.random.default_rng(2).uniform(-1, 1, 5)
    binary = ThresholdUtility(w)
    assert binary.grid().shape == (256,) and binary.grid()[-1] == pytest.approx(np.abs(w).sum())
    assert np.array_equal(binary(X, y), _binary_utilities(
        (design @ w)[:, None], y.astype(int), binary.grid()[:, None])[:, 0])
    W = np.random.default_rng(3).uniform(-1, 1, (5, 3))
    labels = np.random.default_rng(4).integers(0, 3, 50)
    multi = ThresholdUtility(W)
    values = multi(X, labels.astype(float))
    assert values.shape == (3 * 256,) and multi.label_values == (0.0, 1.0, 2.0)
    expected = class_offset_utilities((design @ W)[:, :, None], labels, multi.grid()[:, None])
    assert np.array_equal(values, expected[:, :, 0].ravel())
    with pytest.raises(ValueError, match="W_full"):
        ThresholdUtility(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_accuracy_count_utility_is_the_release_utility(n_classes):
    """The adapter, written from the lemma's definition (every threshold tried, entries cut
    by a sort of Python tuples), equals the release's vectorised utilities, on weights with
    ties in magnitude and scores with ties, with and without an intercept coordinate."""
    from dplasso.estimators.private_count import accuracy_count_sizes, accuracy_count_utilities
    from dplasso.estimators.problem import prepare_design
    from dplasso.audit.statistics import AccuracyCountUtility

    rng = np.random.default_rng(5)
    X = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=(30, 6))
    y = rng.integers(0, n_classes, 30)
    shape = (6, 4) if n_classes == 2 else (6, n_classes, 4)
    W = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=shape)
    intercept = rng.choice([0.0, 0.5], size=shape[1:])
    for fit_intercept in (True, False):
        design = prepare_design(X, fit_intercept=fit_intercept, bounds="error")
        b = intercept if fit_intercept else np.zeros_like(intercept)
        released = accuracy_count_utilities(design, y, W, b, n_classes=n_classes)
        assert released.shape == (accuracy_count_sizes(W[..., 0].size).size, 4)
        for k in range(4):
            W_full = np.concatenate([W[..., k], b[np.newaxis, ..., k]]) if fit_intercept \
                else W[..., k]
            adapter = AccuracyCountUtility(W_full, fit_intercept=fit_intercept)
            assert adapter.sizes() == list(accuracy_count_sizes(W[..., 0].size))
            np.testing.assert_array_equal(adapter(X, y), released[:, k])
