"""The sensitivity search: norms, validation, hints, and known answers."""
import numpy as np
import pytest
import scipy.sparse as sp

from dplasso.audit.sensitivity import SearchResult, change_norm, sensitivity_search
from dplasso.privacy.neighbours import REPLACE_ONE


def _data(seed=0, n=12, p=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, p)), rng.integers(0, 2, n).astype(float)


def column_sums(X, y):
    return np.asarray(X.sum(axis=0)).ravel()


@pytest.mark.parametrize("norm, expected", [("inf", 3.0), ("1", 4.0), ("2", 10.0 ** 0.5)])
def test_change_norm(norm, expected):
    assert change_norm([1.0, 1.0], [4.0, 2.0], norm) == pytest.approx(expected)


def test_change_norm_rejects_shape_change_and_unknown_norm():
    with pytest.raises(ValueError, match="shape"):
        change_norm([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="norm"):
        change_norm([1.0], [2.0], norm="max")


def test_column_sums_sensitivity_is_found_in_each_norm():
    """Column sums of rows in [-1,1]^p: replace-one sensitivity 2 (inf), 2p (1), 2 sqrt(p) (2);
    the Rademacher design makes all three attainable."""
    rng = np.random.default_rng(3)
    X = rng.choice([-1.0, 1.0], size=(10, 3))
    y = np.zeros(10)
    for norm, bound in [("inf", 2.0), ("1", 6.0), ("2", 2.0 * 3 ** 0.5)]:
        result = sensitivity_search(column_sums, X, y, bound, norm=norm, rng=0,
                                    directions=np.ones(3))
        assert isinstance(result, SearchResult)
        assert result.found == pytest.approx(bound)
        assert result.ratio == pytest.approx(1.0)
        assert not result.exceeded
        assert result.relation == REPLACE_ONE and result.norm == norm
        X_new, _ = result.witness.apply(X, y)
        assert change_norm(column_sums(X, y), column_sums(X_new, y), norm) == pytest.approx(
            result.found)


def test_exceeded_when_declared_too_small():
    X, y = _data()
    result = sensitivity_search(column_sums, X, y, 1.0, rng=0)
    assert result.found > 1.0 and result.exceeded and result.ratio > 1.0


def test_sparse_input_is_searched_without_densifying():
    seen = []

    def statistic(X, y):
        seen.append(sp.issparse(X))
        return column_sums(X, y)

    X = sp.random(15, 5, density=0.3, format="csr", random_state=0)
    result = sensitivity_search(statistic, X, np.zeros(15), 2.0, rng=0, n_rows=4,
                                n_random=4)
    assert all(seen) and result.n_evaluations == len(seen)


def test_statistic_hints_are_used():
    """Labels come from ``label_values``; directions from ``search_directions``."""

    class LabelSum:
        label_values = (-3.0, 3.0)

        def __call__(self, X, y):
            return np.array([np.sum(y)])

    X, _ = _data()
    y = np.zeros(12)
    result = sensitivity_search(LabelSum(), X, y, 3.0, rng=0)
    assert result.found == pytest.approx(3.0)
    assert result.witness.y in (-3.0, 3.0)


def test_search_is_reproducible_with_a_seed():
    X, y = _data()
    a = sensitivity_search(column_sums, X, y, 2.0, rng=5)
    b = sensitivity_search(column_sums, X, y, 2.0, rng=5)
    assert a.found == b.found and a.witness.index == b.witness.index


@pytest.mark.parametrize("kwargs, message", [
    ({"declared": 0.0}, "declared"),
    ({"declared": np.inf}, "declared"),
    ({"norm": "max"}, "norm"),
])
def test_validation(kwargs, message):
    X, y = _data()
    arguments = {"declared": 1.0, **kwargs}
    declared = arguments.pop("declared")
    with pytest.raises(ValueError, match=message):
        sensitivity_search(column_sums, X, y, declared, **arguments)


def test_rejects_data_outside_the_domain_and_bad_labels():
    X, y = _data()
    with pytest.raises(ValueError, match="data domain"):
        sensitivity_search(column_sums, 2.0 * X + 1.5, y, 1.0)
    with pytest.raises(ValueError, match="y must have shape"):
        sensitivity_search(column_sums, X, y[:-1], 1.0)


class _CountingSupportSize:
    """The Sparsifier's count with or without ``many``; records each call's size."""

    def __init__(self, many):
        from dplasso.audit.statistics import LassoSupportSize

        self.inner, self.calls = LassoSupportSize(lam=2.0), []
        self.label_values = self.inner.label_values
        self.search_directions = self.inner.search_directions
        if many:
            self.many = lambda datasets: self.calls.append(len(datasets)) or self.inner.many(
                datasets)

    def __call__(self, X, y):
        self.calls.append(1)
        return self.inner(X, y)


@pytest.mark.parametrize("budget", [None, 1])
def test_a_statistic_of_many_datasets_scores_the_scan_in_batches(monkeypatch, budget):
    """With ``many`` the search finds what one call per neighbour finds, the scan's pairs in
    batches of at most NEIGHBOURS_BYTES (here also one design at a time) and the ascent one
    by one."""
    from dplasso.audit import sensitivity

    if budget is not None:
        monkeypatch.setattr(sensitivity, "NEIGHBOURS_BYTES", budget)
    X, y = _data(n=40, p=4)
    kwargs = dict(norm="1", n_rows=3, n_random=3, ascent_starts=1, ascent_rounds=1)
    plain, batched = _CountingSupportSize(many=False), _CountingSupportSize(many=True)
    expected = sensitivity_search(plain, X, y, 1.0, rng=4, **kwargs)
    result = sensitivity_search(batched, X, y, 1.0, rng=4, **kwargs)
    assert (result.found, result.n_evaluations, result.witness.index, result.witness.y) == (
        expected.found, expected.n_evaluations, expected.witness.index, expected.witness.y)
    assert np.array_equal(result.witness.x, expected.witness.x)
    assert sum(batched.calls) == sum(plain.calls) == expected.n_evaluations
    assert max(batched.calls) == (1 if budget else batched.calls[1]) and len(batched.calls) > 2
    if budget is None:
        assert batched.calls[1] > 10  # the whole scan in one batch
