"""Privacy maps to the exact number, and numerical checks of the claims behind them.

The claims are checked on exact laws (no sampling): the selection laws on worst-case
neighbouring score vectors, the discrete Laplace pmf, the Gaussian's Renyi divergences (by
quadrature), the tight composition profile of pure DP (for advanced composition and the zCDP
conversion), and neighbour searches for the Frank-Wolfe score sensitivity.
"""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit, logsumexp

from dplasso.privacy.accounting import PrivacyEvent, compose
from dplasso.privacy.calibration import fw_score_sensitivity
from dplasso.privacy.discrete_laplace import (
    discrete_laplace_epsilon,
    discrete_laplace_pmf,
    discrete_laplace_scale,
)
from dplasso.privacy.gaussian import gaussian_rho
from dplasso.privacy.laplace import laplace_epsilon
from dplasso.privacy.selection import (
    exponential_mechanism_epsilon,
    exponential_mechanism_probabilities,
    exponential_mechanism_rho,
    report_noisy_min_epsilon,
    report_noisy_min_probabilities,
)


def test_maps_to_the_exact_number():
    assert laplace_epsilon(1.0, 0.5) == 2.0
    assert discrete_laplace_epsilon(3, Fraction(3, 2)) == 2.0
    assert discrete_laplace_scale(2, Fraction(1, 5)) == 10
    assert gaussian_rho(1.0, 2.0) == 0.125
    assert report_noisy_min_epsilon(0.25, 1.0) == 0.5
    assert exponential_mechanism_epsilon(0.25, 1.0) == 0.5
    assert exponential_mechanism_rho(0.25, 1.0) == 0.03125
    assert fw_score_sensitivity("logistic", 4.0, 1000) == 0.008
    assert fw_score_sensitivity("multinomial", 4.0, 1000) == 0.008
    assert fw_score_sensitivity("squared", 2.0, 100, y_bound=3.0) == 0.2


def neighbouring_score_pairs(scores, sensitivity):
    """Every neighbour s' = s + sensitivity * u with u in {-1, +1}^m (the extreme moves)."""
    for signs in itertools.product((-1.0, 1.0), repeat=scores.size):
        yield scores + sensitivity * np.array(signs)


SCORE_VECTORS = [np.array([0.0, 0.0]), np.array([0.0, 0.3, 1.0, -0.5]),
                 np.array([0.0, 2.0, 2.5, 4.0])]


@pytest.mark.parametrize("scores", SCORE_VECTORS)
def test_report_noisy_min_is_2_delta_over_b_dp_and_not_delta_over_b(scores):
    """max |log P(i)/P'(i)| over extreme neighbours is <= 2 Delta/b; it exceeds Delta/b (the
    monotone-query constant), so the factor 2 is needed for non-monotone scores."""
    sensitivity, scale = 0.2, 0.4
    p = report_noisy_min_probabilities(scores, scale)
    worst = max(np.abs(np.log(p) - np.log(report_noisy_min_probabilities(s, scale))).max()
                for s in neighbouring_score_pairs(scores, sensitivity))
    bound = report_noisy_min_epsilon(sensitivity, scale)
    assert worst <= bound + 1e-9
    assert worst > bound / 2


@pytest.mark.parametrize("privacy_map, law", [
    (report_noisy_min_epsilon, report_noisy_min_probabilities),
    (exponential_mechanism_epsilon, exponential_mechanism_probabilities),
])
def test_selection_bounds_are_nearly_attained(privacy_map, law):
    """With a clear leader and far-behind rivals, the extreme neighbour's log-ratio is within
    0.1% of 2 Delta / scale: the constant 2 cannot be lowered."""
    scores, sensitivity, scale = np.array([0.0, 2.0, 2.5, 4.0]), 0.2, 0.4
    p = law(scores, scale)
    worst = max(np.abs(np.log(p) - np.log(law(s, scale))).max()
                for s in neighbouring_score_pairs(scores, sensitivity))
    assert worst >= 0.999 * privacy_map(sensitivity, scale)


def test_report_noisy_min_two_candidate_worst_case_closed_form():
    """s = (0, 0), s' = (D, -D): log-ratio 2D/b - log(1 + D/b) (closed form of the law)."""
    sensitivity, scale = 0.3, 0.5
    p = report_noisy_min_probabilities(np.array([0.0, 0.0]), scale)
    q = report_noisy_min_probabilities(np.array([sensitivity, -sensitivity]), scale)
    r = sensitivity / scale
    assert math.log(p[0] / q[0]) == pytest.approx(2 * r - math.log1p(r), rel=1e-9)


def renyi_divergence(p, q, order):
    return logsumexp(order * np.log(p) + (1 - order) * np.log(q)) / (order - 1)


@pytest.mark.parametrize("scores", SCORE_VECTORS)
def test_exponential_mechanism_dp_bounded_range_and_zcdp(scores):
    """On every extreme neighbour: |log P/P'| <= eps0 = 2 Delta/scale, the log-ratio spans an
    interval of width <= eps0 (bounded range), and the Renyi divergence of every order
    alpha in [1.01, 200] is <= alpha * eps0^2 / 8 (the zCDP claim)."""
    sensitivity, scale = 0.2, 0.4
    eps0 = exponential_mechanism_epsilon(sensitivity, scale)
    rho = exponential_mechanism_rho(sensitivity, scale)
    p = exponential_mechanism_probabilities(scores, scale)
    worst_ratio = 0.0
    for s in neighbouring_score_pairs(scores, sensitivity):
        q = exponential_mechanism_probabilities(s, scale)
        log_ratio = np.log(p) - np.log(q)
        worst_ratio = max(worst_ratio, np.abs(log_ratio).max())
        assert log_ratio.max() - log_ratio.min() <= eps0 + 1e-12
        for order in np.geomspace(1.01, 200, 40):
            assert renyi_divergence(p, q, order) <= order * rho * (1 + 1e-9)
            assert renyi_divergence(q, p, order) <= order * rho * (1 + 1e-9)
    assert worst_ratio <= eps0 + 1e-12


@pytest.mark.parametrize("sensitivity, sigma", [(1.0, 2.0), (0.3, 0.2), (2.0, 5.0)])
def test_gaussian_rho_is_the_renyi_divergence_of_the_shifted_normal(sensitivity, sigma):
    """The zCDP claim of N(0, sigma^2) noise on a query moved by Delta: the Renyi divergence
    of every order alpha in [1.01, 200] between N(0, sigma^2) and N(Delta, sigma^2), by
    quadrature of the two densities, is at most alpha * rho, and equal to it (the map is
    tight, so a smaller rho would be refuted)."""
    rho = gaussian_rho(sensitivity, sigma)
    p, q = stats.norm(0.0, sigma), stats.norm(sensitivity, sigma)
    for order in np.geomspace(1.01, 200, 12):
        # log of the integrand p^alpha q^(1 - alpha), shifted by its maximum for quadrature
        def log_integrand(x):
            return order * p.logpdf(x) + (1 - order) * q.logpdf(x)

        peak = order * 0.0 + (1 - order) * sensitivity  # the integrand's mode
        top = log_integrand(peak)
        reach = 40.0 * sigma
        value, _ = integrate.quad(lambda x: math.exp(log_integrand(x) - top), peak - reach,
                                  peak + reach, points=[peak], epsabs=0.0, epsrel=1e-10,
                                  limit=200)
        divergence = (math.log(value) + top) / (order - 1)
        assert divergence <= order * rho * (1 + 1e-9) + 1e-12
        assert divergence >= order * rho * (1 - 1e-6)


@pytest.mark.parametrize("sensitivity, epsilon", [(1, Fraction(1, 2)), (3, Fraction(2, 1)),
                                                  (2, Fraction(1, 10))])
def test_discrete_laplace_pmf_ratio_is_exactly_exp_epsilon(sensitivity, epsilon):
    """P(k) / P(k + Delta) = exp(epsilon) for k >= 0 and never more (shift by the sensitivity)."""
    scale = discrete_laplace_scale(sensitivity, epsilon)
    k = np.arange(-50, 51)
    log_pmf = np.log(discrete_laplace_pmf(k, scale))
    ratio = log_pmf - np.log(discrete_laplace_pmf(k + sensitivity, scale))
    assert np.abs(ratio).max() == pytest.approx(float(epsilon), rel=1e-12)
    assert np.all(np.abs(ratio) <= float(epsilon) * (1 + 1e-12))


def optimal_composition_delta(eps0, k, epsilon):
    """Tight delta(epsilon) of k-fold composition of eps0-DP (Kairouz, Oh & Viswanath 2015):
    the k-fold randomised-response pair, sum over l of [Bin(l; k, q) - e^eps Bin(l; k, p)]_+
    with p = e^eps0 / (1 + e^eps0), q = 1 - p, restricted to (k - 2l) eps0 > epsilon."""
    p = math.exp(eps0) / (1 + math.exp(eps0))
    l = np.arange(k + 1)
    active = (k - 2 * l) * eps0 > epsilon
    l = l[active]
    terms = stats.binom.pmf(l, k, 1 - p) - math.exp(epsilon) * stats.binom.pmf(l, k, p)
    return float(np.clip(terms, 0, None).sum())


@pytest.mark.parametrize("eps0, k, delta", [(0.01, 500, 1e-6), (0.1, 100, 1e-5),
                                            (0.005, 2000, 1e-8), (0.5, 10, 1e-3)])
def test_advanced_and_zcdp_totals_are_valid_for_pure_steps(eps0, k, delta):
    """Both composed epsilons are upper bounds of the tight composition: the tight delta at
    those epsilons is <= the claimed delta. The check has teeth: at half the advanced epsilon
    the tight delta exceeds the claim."""
    event = PrivacyEvent(mechanism="laplace", sensitivity=1.0, epsilon=eps0, count=k,
                         numerics="idealised-float")
    advanced = compose([event], "advanced", delta)
    zcdp = compose([event], "zcdp", delta)
    assert optimal_composition_delta(eps0, k, advanced.epsilon) <= delta
    assert optimal_composition_delta(eps0, k, zcdp.epsilon) <= delta
    assert optimal_composition_delta(eps0, k, advanced.epsilon / 2) > delta


def logistic_scores(X, y, w, lam):
    """Vertex scores (+lam g, -lam g) with g the mean logistic-loss gradient."""
    g = X.T @ (expit(X @ w) - y) / X.shape[0]
    return np.concatenate([lam * g, -lam * g])


def squared_scores(X, y, w, lam):
    g = X.T @ (X @ w - y) / X.shape[0]
    return np.concatenate([lam * g, -lam * g])


def test_logistic_score_sensitivity_neighbour_search():
    """Random and adversarial replace-one neighbours (rows in {-1, +1}^p, ||w||_1 = lam): the
    largest score change is <= 2 lam / n and comes within 2% of it."""
    rng = np.random.default_rng(0)
    n, p, lam = 50, 8, 6.0
    bound = fw_score_sensitivity("logistic", lam, n)
    worst = 0.0
    for _ in range(300):
        X = rng.choice([-1.0, 1.0], size=(n, p))
        y = rng.integers(0, 2, n).astype(float)
        w = np.zeros(p)
        w[rng.integers(p)] = lam * rng.choice([-1.0, 1.0])
        base = logistic_scores(X, y, w, lam)
        X2, y2 = X.copy(), y.copy()
        # adversarial replacement: flip the row so its margin changes sign, flip the label
        X2[0] = -X[0] if rng.random() < 0.5 else rng.choice([-1.0, 1.0], size=p)
        y2[0] = 1.0 - y[0]
        worst = max(worst, np.abs(logistic_scores(X2, y2, w, lam) - base).max())
    assert worst <= bound
    assert worst >= 0.98 * bound


def test_squared_score_sensitivity_is_attained():
    """|(x.w - y) x_j| <= lam + B, and the pair below moves a score by exactly 2 lam (lam + B)/n."""
    n, p, lam, y_bound = 10, 4, 2.0, 3.0
    bound = fw_score_sensitivity("squared", lam, n, y_bound=y_bound)
    w = np.zeros(p)
    w[0] = lam
    X = np.ones((n, p))
    y = np.zeros(n)
    y[0] = -y_bound  # row 0: residual lam + B on every coordinate
    X2, y2 = X.copy(), y.copy()
    X2[0, 0] = -1.0
    y2[0] = y_bound  # row 0': residual -(lam + B)
    change = np.abs(squared_scores(X2, y2, w, lam) - squared_scores(X, y, w, lam)).max()
    assert change == pytest.approx(bound, rel=1e-12)
    rng = np.random.default_rng(1)
    for _ in range(300):
        X = rng.uniform(-1, 1, (n, p))
        y = rng.uniform(-y_bound, y_bound, n)
        w = rng.standard_normal(p)
        w *= lam / np.abs(w).sum()
        X2, y2 = X.copy(), y.copy()
        X2[3] = rng.choice([-1.0, 1.0], size=p)
        y2[3] = rng.choice([-y_bound, y_bound])
        assert np.abs(squared_scores(X2, y2, w, lam) - squared_scores(X, y, w, lam)).max() <= bound
