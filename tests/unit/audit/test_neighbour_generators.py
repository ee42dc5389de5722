"""Replace-one neighbours: row replacement (dense and sparse), candidates, greedy search."""
import numpy as np
import pytest
import scipy.sparse as sp

from dplasso.audit.neighbours import (
    Replacement,
    candidate_rows,
    coordinate_ascent,
    most_moving_replacement,
    replace_row,
    sign_rows,
)


def _data(seed=0, n=8, p=4):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, p)), rng.integers(0, 2, n)


def test_replace_row_dense_changes_exactly_one_row_and_copies():
    X, y = _data()
    X_new, y_new = replace_row(X, y, 3, np.ones(4), 1)
    assert np.array_equal(X_new[3], np.ones(4)) and y_new[3] == 1
    others = np.arange(8) != 3
    assert np.array_equal(X_new[others], X[others]) and np.array_equal(y_new[others], y[others])
    assert not np.shares_memory(X_new, X) and not np.shares_memory(y_new, y)
    assert y_new.dtype == y.dtype


def test_replace_row_keeps_real_responses_float():
    X, _ = _data()
    y = np.zeros(8, dtype=np.int64)
    _, y_new = replace_row(X, y, 0, np.zeros(4), 0.5)
    assert y_new.dtype == np.float64 and y_new[0] == 0.5


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_replace_row_sparse_stays_sparse_and_matches_dense(fmt):
    rng = np.random.default_rng(1)
    X = sp.random(10, 6, density=0.3, format=fmt, random_state=rng)
    y = rng.integers(0, 2, 10)
    x_new = np.array([0.0, -1.0, 0.0, 0.5, 0.0, 1.0])
    X_new, _ = replace_row(X, y, 4, x_new, 1)
    assert sp.issparse(X_new)
    assert X_new.format == ("csc" if fmt == "csc" else "csr")
    expected = X.toarray()
    expected[4] = x_new
    assert np.array_equal(X_new.toarray(), expected)
    assert X_new.nnz == np.count_nonzero(expected)


@pytest.mark.parametrize("x_new, message", [
    (np.full(4, 1.5), "data domain"),
    (np.ones(3), "shape"),
    (np.array([0.0, np.nan, 0.0, 0.0]), "NaN"),
])
def test_replace_row_rejects_bad_rows(x_new, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        replace_row(X, y, 0, x_new, 0)


def test_replace_row_rejects_bad_index():
    X, y = _data()
    with pytest.raises(ValueError, match="index"):
        replace_row(X, y, 8, np.zeros(4), 0)


def test_sign_rows_maximise_and_minimise_the_projection():
    d = np.array([0.3, -2.0, 0.0, 1.0])
    rows = sign_rows(d)
    assert np.array_equal(rows, [[1, -1, 1, 1], [-1, 1, -1, -1]])
    # Over all 16 corners of the box, the sign row attains the max of <x, d>.
    corners = np.array(np.meshgrid(*[[-1, 1]] * 4)).reshape(4, -1).T
    assert rows[0] @ d == pytest.approx((corners @ d).max())
    assert rows[1] @ d == pytest.approx((corners @ d).min())


def test_candidate_rows_kinds_labels_and_domain():
    X, _ = _data()
    directions = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, 0.0]])
    candidates = candidate_rows(X, n_random=5, rng=np.random.default_rng(0),
                                directions=directions, label_values=(0.0, 1.0),
                                n_duplicates=1)
    kinds, counts = np.unique(candidates.kind, return_counts=True)
    found = dict(zip(kinds, counts))
    assert found["random"] == 5
    assert found["aligned"] == 2 * 2 * 2      # 2 directions x (+-) x 2 labels
    assert found["duplicate"] % 2 == 0 and found["duplicate"] <= 2 * 2 * 2
    assert np.all(np.abs(candidates.x) <= 1.0)
    assert set(np.unique(candidates.y)) <= {0.0, 1.0}
    duplicates = candidates.x[candidates.kind == "duplicate"]
    assert all(any(np.array_equal(row, x) for x in X) for row in duplicates)


def test_candidate_rows_zero_fraction_makes_sparse_rows():
    X, _ = _data(n=4, p=200)
    candidates = candidate_rows(X, n_random=50, rng=np.random.default_rng(0),
                                zero_fraction=0.9)
    zero_share = np.mean(candidates.x == 0.0)
    assert 0.85 < zero_share < 0.95


def test_coordinate_ascent_reaches_the_corner_maximising_a_linear_objective():
    d = np.array([0.5, -1.0, 2.0, -0.1])
    start = Replacement(0, np.zeros(4), 0.0, "random")
    best, value, n_evaluations = coordinate_ascent(
        lambda r: float(r.x @ d + r.y), start, rng=np.random.default_rng(0), rounds=3)
    assert np.array_equal(best.x, np.sign(d)) and best.y == 1.0
    assert value == pytest.approx(np.abs(d).sum() + 1.0)
    assert best.kind == "ascent" and n_evaluations > 1


def test_most_moving_replacement_finds_the_row_to_replace():
    """Change of a column sum: largest when row with x_j = -1 becomes +1 (change 2)."""
    X = np.full((6, 3), 0.5)
    X[4, 1] = -1.0
    y = np.zeros(6)

    def change(replacement):
        X_new, _ = replacement.apply(X, y)
        return abs(X_new[:, 1].sum() - X[:, 1].sum())

    best, value, _ = most_moving_replacement(
        change, X, y, rng=np.random.default_rng(0), n_rows=None, n_random=4,
        directions=np.array([0.0, 1.0, 0.0]))
    assert best.index == 4 and best.x[1] == 1.0
    assert value == pytest.approx(2.0)


def test_flip_rows_adds_the_label_flips_of_rows_the_sample_missed():
    """A statistic that only row 3's label moves: found by its flip, missed without it (the
    seeded sample is rows 6 and 7)."""
    X = np.zeros((10, 2))
    y = np.zeros(10)

    def change(replacement):
        _, y_new = replacement.apply(X, y)
        return abs(y_new[3] - y[3])

    def search(**extra):
        return most_moving_replacement(change, X, y, rng=np.random.default_rng(0), n_rows=2,
                                       n_random=2, ascent_starts=0, **extra)

    _, missed, _ = search()
    best, found, _ = search(flip_rows=[3, 8])
    assert missed == 0.0 and found == 1.0
    assert (best.index, best.y, best.kind) == (3, 1.0, "flipped-label")
