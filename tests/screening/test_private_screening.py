"""The private screening release: declared sensitivity, Gaussian noise, ledger event, checks."""
import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

from dplasso.optim.losses import LogisticLoss, SquaredLoss
from dplasso.privacy import PrivacyLedger, REPLACE_ONE
from dplasso.privacy.gaussian import gaussian_delta
from dplasso.privacy.gaussian import gaussian_sigma_analytic
from dplasso.screening.private import (
    private_screen,
    private_screen_split,
    screening_sensitivity,
    split_rule,
    split_screening_sensitivity,
    sqrt_product_sensitivity,
)
from dplasso.screening.rule import screen

from statistical import ALPHA
from screening_problems import SUITE, make_problem

EPS = np.finfo(np.float64).eps


def test_sensitivity_constants_logistic_dual():
    """The lemma's constants, recomputed term by term for P2's setting (n=3000, p=600, lam=5)."""
    n, p, lam = 3000, 600, 5.0
    s = screening_sensitivity(n, p, lam, LogisticLoss())
    c, l_max, phi = expit(lam), math.log1p(math.exp(lam)), (n + p) * EPS
    h_min = min(t * expit(t) for t in np.linspace(-lam, lam, 200_001))  # ~ -W(1/e)
    h_max = lam * c
    assert s.gradient == pytest.approx(2 * c / n, rel=1e-14)
    d_gap = (h_max - h_min) / n + lam * 2 * c / n + phi * (l_max / n + lam * 2 * c / n)
    g_max = h_max + lam * c + phi * (l_max + lam * c)
    assert s.gap == pytest.approx(d_gap, rel=1e-9)
    assert s.gap_max == pytest.approx(g_max, rel=1e-14)
    kappa = math.sqrt(2 / (4 * n))
    assert s.radius_scale == pytest.approx(kappa, rel=1e-14)
    # here n * Delta_G > G_max, and the first branch of H wins
    assert s.scaled_norm == pytest.approx(kappa * math.sqrt(n * d_gap), rel=1e-9)
    assert s.coordinate == pytest.approx(2 * c / n + kappa * math.sqrt(n * d_gap), rel=1e-9)
    assert s.l2 == pytest.approx(math.sqrt(p + 1) * s.coordinate, rel=1e-14)
    assert s.relation == REPLACE_ONE


def test_sqrt_product_bound_holds_and_is_attained():
    """Lemma lem-sqrt-product: |sqrt(G N) - sqrt(G' N')| <= H for G, G' in [0, G_max] with
    |G - G'| <= Delta and N, N' in [0, n] with |N - N'| <= 1; H is attained."""
    rng = np.random.default_rng(0)
    for d_gap, g_max, n in [(0.01, 1.0, 50), (0.5, 1.0, 3), (2.0, 1.0, 10), (1e-3, 5.0, 2)]:
        H = sqrt_product_sensitivity(d_gap, g_max, n)
        G = rng.uniform(0, g_max, 200_000)
        G2 = np.clip(G + rng.uniform(-d_gap, d_gap, G.size), 0, g_max)
        N = rng.uniform(0, n, G.size)
        N2 = np.clip(N + rng.uniform(-1, 1, G.size), 0, n)
        corners = np.array([  # the three maximisers of the proof
            [min(d_gap, g_max), 0.0, n, n],
            [g_max, g_max, 1.0, 0.0],
            [g_max, max(g_max - d_gap, 0.0), n, n - 1],
        ])
        G, G2 = np.append(G, corners[:, 0]), np.append(G2, corners[:, 1])
        N, N2 = np.append(N, corners[:, 2]), np.append(N2, corners[:, 3])
        change = np.abs(np.sqrt(G * N) - np.sqrt(G2 * N2))
        assert change.max() <= H * (1 + 1e-12)
        assert change.max() == pytest.approx(H, rel=1e-12)


def test_sensitivity_constants_squared_and_primal():
    n, p, lam, y_bound = 200, 50, 2.0, 3.0
    squared = screening_sensitivity(n, p, lam, SquaredLoss(y_bound=y_bound))
    assert squared.gradient == pytest.approx(2 * (lam + y_bound) / n, rel=1e-14)
    # (z - y) z over |z| <= 2, |y| <= 3 ranges over [-9/4, 10]
    d_gap = (10 + 9 / 4) / n + lam * 2 * (lam + y_bound) / n
    assert squared.gap == pytest.approx(d_gap, rel=1e-9)
    assert squared.radius_scale == pytest.approx(math.sqrt(2 / n), rel=1e-14)
    # squared loss: L = mu = 1/n, the primal radius scale is the same
    primal = screening_sensitivity(n, p, lam, SquaredLoss(y_bound=y_bound),
                                   radius_kind="primal")
    assert primal.l2 == pytest.approx(squared.l2, rel=1e-12)
    # logistic primal: kappa = L sqrt(2/mu), mu = sigma'(lam)/n
    logistic = screening_sensitivity(n, p, lam, LogisticLoss(), radius_kind="primal")
    mu = expit(lam) * (1 - expit(lam)) / n
    assert logistic.radius_scale == pytest.approx((0.25 / n) * math.sqrt(2 / mu), rel=1e-14)


def test_l2_sensitivity_grows_like_sqrt_p():
    """The sqrt(d) of the paper: the per-coordinate bound does not depend on p (up to the
    rounding floor), the L2 sensitivity scales with sqrt(p + 1)."""
    values = {p: screening_sensitivity(1000, p, 5.0, LogisticLoss()) for p in (10, 100, 1000)}
    for p, s in values.items():
        assert s.l2 / math.sqrt(p + 1) == pytest.approx(values[10].coordinate, rel=1e-9)


def test_sensitivity_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n_samples"):
        screening_sensitivity(0, 5, 1.0, LogisticLoss())
    with pytest.raises(ValueError, match="radius_kind"):
        screening_sensitivity(10, 5, 1.0, LogisticLoss(), radius_kind="x")
    with pytest.raises(ValueError, match="y_bound"):
        screening_sensitivity(10, 5, 1.0, SquaredLoss())


def _problem_with_trials(n_trials):
    problem = make_problem(*SUITE[7])  # logistic, dense, n=60, p=20
    return problem, np.repeat(problem.w_star[:, np.newaxis], n_trials, axis=1)


def _noise_rejected(noise, sigma, alpha):
    """Two-sided tests that ``noise`` is i.i.d. N(0, sigma^2): variance (chi-square) and mean.

    Each test gets ``alpha / 2``; under the null the sum of squares over ``sigma^2`` is
    chi-square with ``noise.size`` degrees of freedom and the scaled mean is standard normal.
    """
    m = noise.size
    chi2 = float(np.sum((noise / sigma) ** 2))
    low, high = stats.chi2.ppf([alpha / 4, 1 - alpha / 4], m)
    z = abs(float(noise.mean())) * math.sqrt(m) / sigma
    return not (low <= chi2 <= high) or z > stats.norm.ppf(1 - alpha / 4)


@pytest.mark.statistical
@pytest.mark.release.with_args(private_screen)
def test_release_adds_gaussian_noise_at_the_calibrated_scale():
    """Noisy minus exact statistics and threshold are i.i.d. N(0, sigma^2).

    False-failure probability at most ALPHA = 1e-6 (two tests at ALPHA/2, each two-sided;
    chi-square and normal quantiles from scipy). Power: the same test rejects the release
    measured against twice its sigma (a mechanism adding half the noise it declares).
    """
    problem, W = _problem_with_trials(500)
    mask, info = private_screen(problem.X, problem.y, W, problem.lam, problem.loss,
                                epsilon=1.0, delta=1e-5, rng=2024)
    exact = screen(problem.X, problem.y, W, problem.lam, problem.loss)
    noise = np.vstack([info.noisy_statistic - exact.statistic,
                       (info.noisy_threshold - exact.threshold)[np.newaxis, :]])
    assert not _noise_rejected(noise, info.sigma, ALPHA)
    assert _noise_rejected(noise, 2.0 * info.sigma, ALPHA)
    np.testing.assert_array_equal(mask, info.noisy_statistic < info.noisy_threshold)


def test_calibration_event_and_ledger():
    problem, W = _problem_with_trials(3)
    ledger = PrivacyLedger()
    _, info = private_screen(problem.X, problem.y, W, problem.lam, problem.loss,
                             epsilon=0.7, delta=1e-6, rng=1, ledger=ledger)
    declared = screening_sensitivity(*problem.X.shape, problem.lam, problem.loss)
    assert info.sensitivity == declared
    assert ledger.events == (info.event,)
    event = info.event
    assert (event.mechanism, event.relation, event.count) == ("gaussian", REPLACE_ONE, 1)
    assert event.sensitivity == declared.l2
    assert (event.epsilon, event.delta) == (0.7, 1e-6)
    assert event.rho == pytest.approx(declared.l2**2 / (2 * info.sigma**2))
    assert gaussian_delta(declared.l2, info.sigma, 0.7) <= 1e-6
    # the calibration is tight: 1% less noise would not be (0.7, 1e-6)-DP
    assert gaussian_delta(declared.l2, 0.99 * info.sigma, 0.7) > 1e-6


def test_negligible_noise_recovers_the_exact_mask():
    """With a huge epsilon every feature decided by a margin of 12 sigma keeps its exact
    verdict (a flip needs |N_i - N_0| > 12 sigma, probability below 1e-17 per feature)."""
    problem, W = _problem_with_trials(2)
    W[:, 1] *= 0.5  # a suboptimal point too
    mask, info = private_screen(problem.X, problem.y, W, problem.lam, problem.loss,
                                epsilon=1e9, delta=0.5, rng=0)
    exact = screen(problem.X, problem.y, W, problem.lam, problem.loss)
    decisive = np.abs(exact.statistic - exact.threshold) > 12 * info.sigma
    assert decisive.mean() > 0.8 and exact.mask[decisive].any()
    np.testing.assert_array_equal(mask[decisive], exact.mask[decisive])


def test_same_seed_same_release():
    problem, W = _problem_with_trials(2)
    args = (problem.X, problem.y, W, problem.lam, problem.loss, 1.0, 1e-5)
    first = private_screen(*args, rng=5)[1].noisy_statistic
    np.testing.assert_array_equal(first, private_screen(*args, rng=5)[1].noisy_statistic)
    assert not np.array_equal(first, private_screen(*args, rng=6)[1].noisy_statistic)


def test_private_screen_rejects_bad_input():
    problem, W = _problem_with_trials(1)
    X, y, lam = problem.X, problem.y, problem.lam
    with pytest.raises(ValueError, match="epsilon"):
        private_screen(X, y, W, lam, problem.loss, 0.0, 1e-5, 0)
    with pytest.raises(ValueError, match="delta"):
        private_screen(X, y, W, lam, problem.loss, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="y_bound"):
        private_screen(X, X[:, 0], W, lam, SquaredLoss(), 1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="response bound"):
        private_screen(X, 2.0 * np.ones(X.shape[0]), W, lam, SquaredLoss(y_bound=1.0),
                       1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="data domain"):
        private_screen(3.0 * X, y, W, lam, problem.loss, 1.0, 1e-5, 0)


def test_split_release_noise_event_and_mask():
    """The split release: independent N(0, sigma_g^2) on |g| and N(0, sigma_G^2) on the gap,
    both from one analytic calibration at L2 sensitivity sqrt(2); the mask is
    ``split_rule`` of the released numbers. Noise test: false-failure probability at most
    ALPHA (as above); it rejects the release measured against twice its scale."""
    problem, W = _problem_with_trials(500)
    ledger = PrivacyLedger()
    mask, info = private_screen_split(problem.X, problem.y, W, problem.lam, problem.loss,
                                      1.0, 1e-5, rng=11, ledger=ledger)
    declared = split_screening_sensitivity(*problem.X.shape, problem.lam, problem.loss)
    base = screening_sensitivity(*problem.X.shape, problem.lam, problem.loss)
    assert declared.gradient_l2 == pytest.approx(math.sqrt(problem.X.shape[1]) * base.gradient)
    assert (declared.gap, declared.l2) == (base.gap, math.sqrt(2.0))
    sigma = gaussian_sigma_analytic(math.sqrt(2.0), 1.0, 1e-5)
    assert info.sigma_gradient == sigma * declared.gradient_l2
    assert info.sigma_gap == sigma * declared.gap
    assert ledger.events == (info.event,) and info.event.sensitivity == math.sqrt(2.0)
    exact = screen(problem.X, problem.y, W, problem.lam, problem.loss)
    norms = np.linalg.norm(np.asarray(problem.X.todense() if hasattr(problem.X, "todense")
                                      else problem.X), axis=0)
    magnitude = exact.statistic - norms[:, np.newaxis] * exact.radius
    noise = np.vstack([(info.noisy_gradient - magnitude) / info.sigma_gradient,
                       ((info.noisy_gap - exact.gap_used) / info.sigma_gap)[np.newaxis]])
    assert not _noise_rejected(noise, 1.0, ALPHA)
    assert _noise_rejected(noise, 2.0, ALPHA)
    np.testing.assert_array_equal(mask, split_rule(
        info.noisy_gradient, info.noisy_gap, problem.X.shape[0], declared,
        info.sigma_gradient, info.sigma_gap))
    with pytest.raises(ValueError, match="z must be"):
        private_screen_split(problem.X, problem.y, W, problem.lam, problem.loss, 1.0, 1e-5,
                             rng=0, z=-1.0)


def test_split_rule_on_exact_values_is_the_safe_rule_with_the_norm_bound():
    """Noise-free, the split rule screens a subset of what the safe rule screens (its column
    norms are replaced by the bound sqrt(n)), so it is safe; at the optimum it still screens."""
    problem, W = _problem_with_trials(3)
    exact = screen(problem.X, problem.y, W, problem.lam, problem.loss)
    norms = np.linalg.norm(np.asarray(problem.X.todense() if hasattr(problem.X, "todense")
                                      else problem.X), axis=0)
    magnitude = exact.statistic - norms[:, np.newaxis] * exact.radius
    declared = split_screening_sensitivity(*problem.X.shape, problem.lam, problem.loss)
    mask = split_rule(magnitude, exact.gap_used, problem.X.shape[0], declared, 0.0, 0.0)
    assert not (mask & ~exact.mask).any()
    assert mask[:, 0].any()  # the first trial is the optimum: something is screened
