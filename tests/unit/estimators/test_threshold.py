"""The multiclass threshold scores the rule ``predict`` applies, ties included.

Tie-rich bases: rows in {-1, 0, 1}, integer weights and intercepts, so every score is a small
integer, and grids of radius 1 or 2, whose end points (exactly ``+-2R``) equal score
differences and whose interior points lie at least 1/255 from every integer (255 is odd), so
the arithmetic of both sides is exact. For each base and each (class, offset) pair the
utility must equal the number of rows the shifted model predicts correctly, with ``predict``'s
tie rule (the first class of largest score).
"""
import numpy as np

from dplasso.estimators import FrankWolfeLassoClassifier
from dplasso.estimators.threshold import (
    THRESHOLD_GRID_SIZE,
    _weighted_counts_below,
    class_offset_utilities,
    offset_utilities,
)

N_BASES, N_ROWS, N_FEATURES, N_CLASSES = 300, 12, 3, 3


def tie_rich_bases(seed=0):
    """``(X, W, b, y, grids)``: ``N_BASES`` integer bases, one per trial."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-1, 2, size=(N_BASES, N_ROWS, N_FEATURES)).astype(np.float64)
    W = rng.integers(-1, 2, size=(N_BASES, N_FEATURES, N_CLASSES)).astype(np.float64)
    b = rng.integers(-1, 2, size=(N_BASES, N_CLASSES)).astype(np.float64)
    y = rng.integers(0, N_CLASSES, size=N_ROWS)
    radius = rng.choice([1.0, 2.0], size=N_BASES)
    grids = 2.0 * radius[np.newaxis, :] * np.linspace(-1.0, 1.0, THRESHOLD_GRID_SIZE)[:, None]
    return X, W, b, y, grids


def _scores(X, W, b):
    """``(n, C, K)``: each trial's scores on its own rows."""
    return np.moveaxis(np.einsum("knp,kpc->knc", X, W) + b[:, None, :], 0, -1)


def _argmax_accuracy(scores, y, grids):
    """``(C, G, K)``: rows ``numpy.argmax`` classifies correctly after each shift."""
    n, n_classes, n_trials = scores.shape
    out = np.empty((n_classes, grids.shape[0], n_trials), dtype=np.int64)
    for c in range(n_classes):
        for g in range(grids.shape[0]):
            shifted = scores.copy()
            shifted[:, c, :] += grids[g]
            out[c, g] = np.sum(np.argmax(shifted, axis=1) == y[:, None], axis=0)
    return out


def test_utilities_count_the_rows_predict_classifies_correctly():
    X, W, b, y, grids = tie_rich_bases()
    scores = _scores(X, W, b)
    expected = _argmax_accuracy(scores, y, grids)
    np.testing.assert_array_equal(class_offset_utilities(scores, y, grids), expected)
    # the bases are tie-rich: a rule that ignores the order of tied classes (g > d counts as
    # class c, g = d as its rival, whatever their order) disagrees on some of them
    disagree = np.zeros(N_BASES, dtype=bool)
    for c in range(N_CLASSES):
        others = scores.copy()
        others[:, c, :] = -np.inf
        rival = others.argmax(axis=1)
        gaps = others.max(axis=1) - scores[:, c, :]
        own = np.broadcast_to((y == c)[:, None], gaps.shape)
        rivals = ~own & (y[:, None] == rival)
        strict = rivals.sum(axis=0) + _weighted_counts_below(
            gaps, own.astype(np.int64) - rivals, grids, inclusive=False)
        disagree |= np.any(strict != expected[c], axis=0)
    assert disagree.sum() >= 10, disagree.sum()


def test_binary_utilities_count_the_rows_predict_classifies_correctly():
    """Scores and offsets on a grid of halves, so that many scores equal minus an offset
    (the boundary ``s + g = 0`` predicts class 0)."""
    rng = np.random.default_rng(1)
    for n_rows in (3, 300, 600):  # fewer and more rows than the 256 offsets
        scores = rng.integers(-4, 5, size=(n_rows, 40)) / 2.0
        y = rng.integers(0, 2, size=n_rows)
        utilities, grids = offset_utilities(scores, y, radius=np.full(40, 2.0))
        assert np.isin(-scores, grids).any()
        predicted = scores[None] + grids[:, None, :] > 0  # (G, n, K)
        expected = np.sum(predicted == y[None, :, None].astype(bool), axis=1)
        np.testing.assert_array_equal(utilities, expected)


def test_weighted_counts_below_by_brute_force():
    """Both paths (more values than points, and fewer), ties with the points included."""
    rng = np.random.default_rng(2)
    for n_values, n_points in ((2, 9), (9, 9), (30, 9), (1, 1)):
        values = rng.integers(-3, 4, size=(n_values, 25)).astype(float)
        weights = rng.integers(-1, 2, size=(n_values, 25))
        points = np.sort(rng.integers(-3, 4, size=(n_points, 25)), axis=0).astype(float)
        for inclusive in (True, False):
            below = (values[:, None] <= points[None]) if inclusive else (
                values[:, None] < points[None])
            np.testing.assert_array_equal(
                _weighted_counts_below(values, weights, points, inclusive=inclusive),
                np.sum(below * weights[:, None], axis=0))


def test_predict_breaks_ties_as_the_utilities_do():
    """The estimators' ``predict`` itself, on the first 20 bases: both grid ends (where the
    ties are) and a few interior offsets."""
    X, W, b, y, grids = tie_rich_bases()
    utilities = class_offset_utilities(_scores(X, W, b), y, grids)
    model = FrankWolfeLassoClassifier(n_iter=1, classes=[0, 1, 2]).fit(X[0], y)
    for k in range(20):
        model.coef_ = W[k].T.copy()
        for c in range(N_CLASSES):
            for g in (0, 1, 2, 127, 128, 253, 254, 255):
                model.intercept_ = b[k].copy()
                model.intercept_[c] += grids[g, k]
                assert np.sum(model.predict(X[k]) == y) == utilities[c, g, k]
