"""Uniform sampling in the L1 ball (the naive private variant's random start)."""
import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.optim import random_l1_ball_init

M, N_DRAWS, LAM = 6, 20_000, 2.5


def _uniformity_pvalues(W, lam):
    """Three tests of uniformity in the ball, each returning a p-value.

    For ``w`` uniform in the ``m``-dimensional L1 ball of radius ``lam``:
    ``(||w||_1 / lam)^m ~ U(0, 1)`` (volume scales as ``r^m``), ``|w_1| / lam ~ Beta(1, m)``
    (marginal of the uniform corner simplex) and ``sign(w_1)`` is a fair coin.
    """
    W = W.reshape(-1, W.shape[-1])
    m = W.shape[0]
    radius = np.abs(W).sum(axis=0) / lam
    p_radius = stats.kstest(radius ** m, "uniform").pvalue
    p_marginal = stats.kstest(np.abs(W[0]) / lam, stats.beta(1, m).cdf).pvalue
    p_sign = stats.binomtest(int(np.sum(W[0] > 0)), W.shape[1]).pvalue
    return np.array([p_radius, p_marginal, p_sign])


@pytest.mark.statistical
def test_random_l1_ball_init_is_uniform():
    """KS tests on the radius law and a marginal, binomial test on a sign.

    Under uniformity each p-value is U(0, 1) (KS is exact-distribution for continuous
    laws; the binomial test is conservative), so with the Bonferroni threshold ALPHA / 3
    the false-failure probability is at most ALPHA = 1e-6. Fixed seed.
    """
    W = random_l1_ball_init((M, N_DRAWS), LAM, np.random.default_rng(0))
    assert np.all(_uniformity_pvalues(W, LAM) >= ALPHA / 3)


@pytest.mark.statistical
def test_uniformity_check_rejects_broken_samplers():
    """Power companion: samplers that are not uniform in the ball are rejected."""
    rng = np.random.default_rng(0)
    spacings = rng.standard_exponential((M + 1, N_DRAWS))
    signs = rng.choice([-1.0, 1.0], size=(M, N_DRAWS))
    on_sphere = LAM * spacings[:M] / spacings[:M].sum(axis=0) * signs  # forgot the radius
    positive_only = LAM * spacings[:M] / spacings.sum(axis=0)  # forgot the signs
    uniform_box = rng.uniform(-1, 1, size=(M, N_DRAWS)) * LAM / M  # wrong shape of set
    for broken in (on_sphere, positive_only, uniform_box):
        assert _uniformity_pvalues(broken, LAM).min() < ALPHA / 3


def test_random_l1_ball_init_shapes_feasibility_and_reproducibility():
    W = random_l1_ball_init((4, 3, 5), 1.5, np.random.default_rng(1))
    assert W.shape == (4, 3, 5)
    m = 12
    norms = np.abs(W.reshape(m, 5)).sum(axis=0)
    assert np.all(norms <= 1.5 * (1 + m * np.finfo(float).eps))
    assert np.all(W != 0)  # dense, which is the point of the naive variant
    again = random_l1_ball_init((4, 3, 5), 1.5, np.random.default_rng(1))
    np.testing.assert_array_equal(W, again)
    other = random_l1_ball_init((4, 3, 5), 1.5, np.random.default_rng(2))
    assert not np.array_equal(W, other)
    with pytest.raises(ValueError, match="shape must be"):
        random_l1_ball_init((4,), 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="lam must be"):
        random_l1_ball_init((4, 2), 0.0, np.random.default_rng(0))
