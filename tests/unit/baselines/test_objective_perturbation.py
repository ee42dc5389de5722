"""Objective perturbation: calibration, sampler law, solver, sensitivities, privacy loss."""
import dataclasses
import math

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from scipy import stats
from scipy.special import expit

from baselines_problems import small_problem
from statistical import ALPHA
from dplasso.audit.sensitivity import sensitivity_search
from dplasso.estimators.objective_perturbation import (
    calibrate_objective_perturbation,
    gamma_norm_noise,
    gaussian_noise_std,
    jacobian_epsilon,
    quad_weight_for_jacobian,
    solve_perturbed_logistic,
    stationarity_noise,
)


# ---------------------------------------------------------------- calibration arithmetic

@pytest.mark.parametrize("R", [1.0, math.sqrt(6.0), 100.0])
@pytest.mark.parametrize("eps_j", [1e-4, 0.5, 3.0, 40.0])
def test_quad_weight_for_jacobian_inverts_jacobian_epsilon(R, eps_j):
    quad = quad_weight_for_jacobian(R, eps_j)
    assert jacobian_epsilon(R, quad) == pytest.approx(eps_j, rel=1e-12)
    # Kifer et al.'s sufficient choice Delta = 2 lambda / epsilon with lambda = R^2/4 and
    # epsilon = 2 eps_j is never smaller than ours (log(1 + u) <= u).
    assert quad <= R * R / (4.0 * eps_j)


def test_huge_epsilon_gives_a_positive_quadratic_weight():
    quad = quad_weight_for_jacobian(3.0, 1e6)
    assert 0 < quad < 1e-300
    assert calibrate_objective_perturbation(3.0, 1e6).quad_weight > 0


@pytest.mark.parametrize("noise, delta", [("gamma", 0.0), ("gaussian", 1e-5)])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0])
def test_calibration_splits_the_budget_as_documented(noise, delta, epsilon):
    R = math.sqrt(7.0)
    mech = calibrate_objective_perturbation(R, epsilon, delta, noise=noise)
    assert mech.epsilon == pytest.approx(epsilon, rel=1e-13)
    assert mech.epsilon_jacobian == pytest.approx(epsilon / 2, rel=1e-12)
    assert mech.sensitivity == 2 * R
    if noise == "gamma":
        assert mech.delta == 0.0
        assert mech.noise_scale == pytest.approx(2 * R / mech.epsilon_noise, rel=1e-14)
    else:
        # the derivation: outside P(chi2_2 > r^2) = delta, the loss is 2u^2 + 2ru, u = R/sigma
        r = math.sqrt(stats.chi2(2).isf(delta))
        u = R / mech.noise_scale
        assert 2 * u * u + 2 * r * u == pytest.approx(mech.epsilon_noise, rel=1e-12)
        assert r == pytest.approx(math.sqrt(2 * math.log(1 / delta)), rel=1e-12)


def test_given_quad_weight_sets_the_jacobian_share():
    mech = calibrate_objective_perturbation(2.0, 1.0, quad_weight=50.0)
    assert mech.epsilon_jacobian == pytest.approx(math.log1p(4.0 / 200.0), rel=1e-14)
    assert mech.epsilon == pytest.approx(1.0, rel=1e-14)


def test_too_small_quad_weight_is_refused():
    with pytest.raises(ValueError, match="no budget is left for the noise"):
        calibrate_objective_perturbation(2.0, 0.01, quad_weight=1.0)


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 0.0}, "epsilon must be"),
    ({"epsilon": 1.0, "noise": "laplace"}, "noise must be one of"),
    ({"epsilon": 1.0, "noise": "gaussian", "delta": 0.0}, "delta must lie in"),
    ({"epsilon": 1.0, "delta": 1.0}, "delta must lie in"),
    ({"epsilon": 1.0, "jacobian_share": 1.0}, "jacobian_share"),
])
def test_calibration_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        calibrate_objective_perturbation(2.0, **kwargs)


def test_gaussian_noise_std_decreases_with_budget():
    stds = [gaussian_noise_std(3.0, e, 1e-6) for e in (0.1, 1.0, 10.0)]
    assert stds[0] > stds[1] > stds[2] > 0


# ---------------------------------------------------------------- Gamma-norm sampler

def _gamma_norm_pvalues(samples, dim, scale):
    """KS p-values: norms vs Gamma(dim, scale); first direction coordinate vs its sphere law."""
    norms = np.linalg.norm(samples, axis=1)
    p_norm = stats.kstest(norms, stats.gamma(dim, scale=scale).cdf).pvalue
    first = (samples[:, 0] / norms + 1.0) / 2.0  # uniform direction: Beta((d-1)/2, (d-1)/2)
    p_dir = stats.kstest(first, stats.beta((dim - 1) / 2, (dim - 1) / 2).cdf).pvalue
    return p_norm, p_dir


@pytest.mark.statistical
def test_gamma_norm_noise_has_density_exp_minus_norm_over_scale():
    """Density proportional to exp(-||b||/theta): Gamma(d, theta) norm, uniform direction.

    Two Kolmogorov-Smirnov tests on 20000 fixed-seed draws (d = 4): the norm against
    Gamma(d, theta) and the first coordinate of the direction against
    Beta((d-1)/2, (d-1)/2) (its law under the uniform distribution on the sphere). Each
    p-value is uniform under the null; thresholds ALPHA/2 (Bonferroni) give a false-failure
    probability of at most ALPHA. The companion test shows both checks reject broken samplers.
    """
    rng = np.random.default_rng(20240601)
    dim, scale = 4, 0.7
    samples = np.array([gamma_norm_noise(dim, scale, rng) for _ in range(20000)])
    p_norm, p_dir = _gamma_norm_pvalues(samples, dim, scale)
    assert p_norm >= ALPHA / 2 and p_dir >= ALPHA / 2


@pytest.mark.statistical
def test_gamma_norm_checks_reject_broken_samplers():
    """Power of the previous test: a Gamma(d-1) norm (radial Jacobian forgotten) and a
    direction normalised from a uniform cube both give p-values below ALPHA/2."""
    rng = np.random.default_rng(7)
    dim, scale, n = 4, 0.7, 20000
    directions = rng.standard_normal((n, dim))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    wrong_norm = directions * rng.gamma(dim - 1, scale, (n, 1))
    assert _gamma_norm_pvalues(wrong_norm, dim, scale)[0] < ALPHA / 2
    cube = rng.uniform(-1, 1, (n, dim))
    cube /= np.linalg.norm(cube, axis=1, keepdims=True)
    wrong_direction = cube * rng.gamma(dim, scale, (n, 1))
    assert _gamma_norm_pvalues(wrong_direction, dim, scale)[1] < ALPHA / 2


# ---------------------------------------------------------------- solver

@pytest.mark.parametrize("density", [None, 0.5])
def test_solver_returns_the_perturbed_minimiser(density):
    X, y = small_problem(n=60, p=5, seed=3, density=density)
    rng = np.random.default_rng(0)
    b, center = rng.normal(0, 5, 5), rng.normal(0, 1, 5)
    w, grad_norm = solve_perturbed_logistic(X, y, quad_weight=2.0, linear_term=b,
                                            center=center, tol=1e-10)
    assert grad_norm <= 1e-10
    # stationarity: b_D(w) = b up to n times the remaining mean-scaled gradient
    recovered = stationarity_noise(X, y, w, quad_weight=2.0, center=center)
    np.testing.assert_allclose(recovered, b, atol=X.shape[0] * grad_norm * 1.01)
    # a generic minimiser agrees
    dense = X.toarray() if sp.issparse(X) else X

    def objective(v):
        z = dense @ v
        return (np.logaddexp(0, z).sum() - y @ z + b @ v + (v - center) @ (v - center)) / 60

    other = scipy.optimize.minimize(objective, np.zeros(5), method="BFGS", options={"gtol": 1e-12})
    np.testing.assert_allclose(w, other.x, atol=1e-6)


def _exact_minimiser(X, y, quad_weight, b, steps=30):
    """Newton's method on the n-scaled objective with its exact Hessian (written here, not the
    library's solver), from 0: quadratic convergence reaches float precision well within
    ``steps`` on the small, well-conditioned problems below."""
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        s = expit(X @ w)
        gradient = X.T @ (s - y) + quad_weight * w + b
        hessian = (X.T * (s * (1.0 - s))) @ X + quad_weight * np.eye(X.shape[1])
        w = w - np.linalg.solve(hessian, gradient)
    return w


@pytest.mark.parametrize("tol", [1e-1, 1e-2, 1e-4, 1e-7])
def test_the_solver_stops_within_the_lemmas_distance_bound(tol):
    """The bound the book states (``lem-objective-perturbation``): the solve stops at a
    mean-scaled gradient sup norm of at most ``tol``, and the n-scaled objective ``G`` is
    Lambda-strongly convex, so its point ``w`` satisfies
    ``||w - w*||_2 <= ||grad G(w)||_2 / Lambda <= n sqrt(d) tol / Lambda``. The gradient is
    computed here from its formula and ``w*`` by the Newton iteration above. The rows are
    scaled to 0.1, so the loss's curvature (at most ``0.01 d / 4`` a row) is small against
    ``Lambda = 5`` and the first inequality is nearly an equality: the test sits at the bound
    (``||w - w*||`` at least 0.9 of ``||grad G(w)|| / Lambda`` whenever the solve stopped with
    a gradient above rounding), so a solve that stopped above ``tol`` would show."""
    rng = np.random.default_rng(11)
    n, d, quad_weight = 40, 3, 5.0
    X = 0.1 * rng.choice([-1.0, 1.0], size=(n, d))
    y = rng.integers(0, 2, n).astype(float)
    b = rng.normal(0.0, 5.0, d)
    exact = _exact_minimiser(X, y, quad_weight, b)
    w, grad_norm = solve_perturbed_logistic(X, y, quad_weight=quad_weight, linear_term=b,
                                            tol=tol)
    gradient = X.T @ (expit(X @ w) - y) + quad_weight * w + b  # n-scaled
    assert np.abs(gradient).max() / n == pytest.approx(grad_norm, rel=1e-6)
    assert grad_norm <= tol
    distance = np.linalg.norm(w - exact)
    bound = n * math.sqrt(d) * tol / quad_weight
    assert distance <= np.linalg.norm(gradient) / quad_weight <= bound
    if np.linalg.norm(gradient) > 1e-9:
        assert distance >= 0.9 * np.linalg.norm(gradient) / quad_weight


def test_a_solve_that_misses_its_tolerance_warns_with_public_values_only():
    """A tolerance below float resolution cannot be met: the solve warns, naming ``tol`` and
    the caps (public), never its gradient, and returns its last point."""
    from sklearn.exceptions import ConvergenceWarning

    X, y = small_problem(n=40, p=3, seed=2)
    with pytest.warns(ConvergenceWarning) as caught:
        w, grad_norm = solve_perturbed_logistic(X, y, quad_weight=1.0,
                                                linear_term=np.ones(3), tol=1e-300)
    (warning,) = caught
    assert str(warning.message) == (
        "objective perturbation's solve stopped above its gradient tolerance tol=1e-300 "
        "(after at most 10000 L-BFGS iterations and 8 Newton steps); the released weights are "
        "its last point, whose distance from the exact minimiser the guarantee's bound "
        "n sqrt(d) tol / Lambda does not cover")
    assert grad_norm > 1e-300 and np.all(np.isfinite(w))


def test_solver_gives_the_same_answer_on_sparse_and_dense_input():
    X, y = small_problem(n=50, p=8, seed=5, density=0.4)
    b = np.linspace(-3, 3, 8)
    w_sparse, _ = solve_perturbed_logistic(X, y, quad_weight=1.0, linear_term=b)
    w_dense, _ = solve_perturbed_logistic(X.toarray(), y, quad_weight=1.0, linear_term=b)
    np.testing.assert_allclose(w_sparse, w_dense, atol=1e-8)


# ---------------------------------------------------------------- sensitivities (replace-one)

class StationarityNoise:
    """``b_D(w)`` at a fixed ``w``: the quantity whose change the noise must hide."""

    label_values = (0.0, 1.0)

    def __init__(self, w, quad_weight, center=None):
        self.w, self.quad_weight, self.center = w, quad_weight, center

    def __call__(self, X, y):
        return stationarity_noise(X, y, self.w, quad_weight=self.quad_weight, center=self.center)

    def search_directions(self, X, y):
        return self.w


class HessianLogDet:
    """``log det(sum_i sigma'(x_i.w) x_i x_i^T + Lambda I)`` at a fixed ``w`` (the Jacobian)."""

    label_values = (0.0, 1.0)

    def __init__(self, w, quad_weight):
        self.w, self.quad_weight = w, quad_weight

    def __call__(self, X, y):
        s = expit(X @ self.w)
        H = (X.T * (s * (1 - s))) @ X + self.quad_weight * np.eye(X.shape[1])
        return np.array([np.linalg.slogdet(H)[1]])

    def search_directions(self, X, y):
        return self.w


@pytest.mark.parametrize("seed", range(3))
def test_stationarity_noise_sensitivity_on_random_pairs(seed):
    """Random data and weights (small and large margins): found change <= declared 2R."""
    X, y = small_problem(n=30, p=5, seed=seed)
    rng = np.random.default_rng(seed)
    R = math.sqrt(5)
    for w in (rng.normal(0, 0.3, 5), rng.normal(0, 30, 5)):
        result = sensitivity_search(StationarityNoise(w, 3.0, center=rng.normal(size=5)), X, y,
                                    2 * R, norm="2", n_rows=10, n_random=16, rng=seed)
        assert not result.exceeded, result.found


def test_stationarity_noise_sensitivity_adversarial_pair_approaches_the_bound():
    """Corners differing in coordinate 0, labels 0 / 1, w = M e_0: the change is
    2 sqrt(d - 1) (the sup 2 sqrt(d) is approached only in a limit), and never above 2R."""
    d, M = 6, 60.0
    X = np.vstack([np.ones(d), np.random.default_rng(0).uniform(-1, 1, (9, d))])
    y = np.array([0.0] + [1.0, 0.0] * 4 + [1.0])
    w = np.zeros(d)
    w[0] = M
    target = np.ones(d)
    target[0] = -1.0
    result = sensitivity_search(StationarityNoise(w, 2.0), X, y, 2 * math.sqrt(d), norm="2",
                                directions=target, n_rows=None, rng=1)
    assert not result.exceeded
    assert result.found >= 0.999 * 2 * math.sqrt(d - 1)


def test_jacobian_log_det_change_is_within_epsilon_jacobian_and_attained():
    """The Jacobian term: |change of log det| <= log(1 + R^2/(4 Lambda)) (declared).

    Attained when the replaced row has a huge margin (curvature ~ 0) and the new row has
    margin 0 and meets no curvature of the other rows: all rows are (1,1,1,-1) with
    w = 5 (1,1,1,-1) (margin 20), and the new row (1,-1,1,1) has margin 0. Random
    problems stay below the declared value.
    """
    d, quad = 4, 0.8
    w = 5.0 * np.array([1.0, 1.0, 1.0, -1.0])
    X = np.tile([1.0, 1.0, 1.0, -1.0], (3, 1))  # margin 20: curvature e^-20
    y = np.array([0.0, 1.0, 1.0])
    declared = jacobian_epsilon(math.sqrt(d), quad)
    result = sensitivity_search(HessianLogDet(w, quad), X, y, declared, norm="inf",
                                directions=np.array([1.0, -1.0, 1.0, 1.0]), n_rows=None, rng=2)
    assert not result.exceeded
    assert result.ratio >= 0.999
    for seed in range(3):
        Xr, yr = small_problem(n=20, p=4, seed=seed)
        wr = np.random.default_rng(seed).normal(0, 2, 4)
        res = sensitivity_search(HessianLogDet(wr, quad), Xr, yr, declared, norm="inf",
                                 n_rows=8, rng=seed)
        assert not res.exceeded


# ---------------------------------------------------------------- privacy loss of the release

def _privacy_loss(w, D, D_prime, mech):
    """log p_D(w) - log p_D'(w) of the released minimiser (module docstring's density)."""
    def log_density(X, y):
        b = stationarity_noise(X, y, w, quad_weight=mech.quad_weight)
        s = expit(X @ w)
        H = (X.T * (s * (1 - s))) @ X + mech.quad_weight * np.eye(X.shape[1])
        return -np.linalg.norm(b) / mech.noise_scale + np.linalg.slogdet(H)[1]
    return log_density(*D) - log_density(*D_prime)


def _largest_privacy_loss(mech, rng):
    d = 3
    X = np.array([[1.0, 1.0, 1.0], [0.3, -0.2, 0.5]])
    y = np.array([0.0, 1.0])
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[0, 0], y_prime[0] = -1.0, 1.0
    best = -np.inf
    for start in range(4):
        w0 = rng.normal(0, 1 + 2 * start, d)
        for D, D_prime in (((X, y), (X_prime, y_prime)), ((X_prime, y_prime), (X, y))):
            res = scipy.optimize.minimize(lambda w: -_privacy_loss(w, D, D_prime, mech), w0,
                                          method="Nelder-Mead",
                                          options={"maxfev": 1500, "xatol": 1e-9,
                                                   "fatol": 1e-12})
            best = max(best, -res.fun)
    return best


def test_gamma_release_privacy_loss_is_at_most_epsilon():
    """Pure DP, checked on the output density: for an adversarial pair (corners differing in
    one coordinate, labels flipped) the largest log density ratio found over outputs w is at
    most epsilon; with the noise scale divided by 4 the same search exceeds epsilon (on this
    instance a halved scale stays within the slack of the worst-case analysis)."""
    mech = calibrate_objective_perturbation(math.sqrt(3), 1.0)
    assert _largest_privacy_loss(mech, np.random.default_rng(0)) <= 1.0 + 1e-9
    broken = dataclasses.replace(mech, noise_scale=mech.noise_scale / 4)
    assert _largest_privacy_loss(broken, np.random.default_rng(0)) > 1.0
