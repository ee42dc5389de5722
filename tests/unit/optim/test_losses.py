"""Losses: values against direct formulas, gradients against finite differences, constants."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import check_grad
from scipy.special import logsumexp

from dplasso.optim import LogisticLoss, MultinomialLoss, SquaredLoss, squared_spectral_norm

from optim_problems import make_problem

KINDS = ["logistic", "squared", "multinomial"]
FORMATS = ["dense", "csr", "csc"]
K = 3


def _weights(loss, p, rng, scale=0.5):
    return rng.normal(size=loss.weight_shape(p, K)) * scale


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
def test_gradient_matches_finite_differences(kind, fmt):
    """``check_grad`` per trial of a batched call.

    Forward differences with step h = 1.49e-8 have error about ``h/2 * L_smooth * sqrt(m)``
    plus rounding ``2 u |L| / h * sqrt(m)``: both below 1e-6 for these sizes (``L_smooth
    <= p / 2``, ``m <= 24``), so 1e-6 separates a correct gradient from a wrong one.
    """
    loss, X, y = make_problem(kind, fmt)
    rng = np.random.default_rng(1)
    W = _weights(loss, X.shape[1], rng)
    G = loss.gradient(X, y, W)
    assert G.shape == W.shape
    for k in range(K):
        def f(v):
            Wk = W.copy()
            Wk[..., k] = v.reshape(W.shape[:-1])
            return loss.value(X, y, Wk)[k]

        def g(v):
            Wk = W.copy()
            Wk[..., k] = v.reshape(W.shape[:-1])
            return loss.gradient(X, y, Wk)[..., k].ravel()

        assert check_grad(f, g, W[..., k].ravel()) < 1e-6
        assert np.linalg.norm(G[..., k]) > 1e-3  # not a trivially zero gradient


@pytest.mark.parametrize("kind", KINDS)
def test_batched_equals_per_trial_and_sparse_equals_dense(kind):
    loss, X, y = make_problem(kind)
    rng = np.random.default_rng(2)
    W = _weights(loss, X.shape[1], rng)
    values, G = loss.value_and_gradient(X, y, W)
    assert values.shape == (K,)
    np.testing.assert_array_equal(values, loss.value(X, y, W))
    np.testing.assert_array_equal(G, loss.gradient(X, y, W))
    for k in range(K):
        vk, Gk = loss.value_and_gradient(X, y, W[..., k:k + 1])
        np.testing.assert_allclose(vk[0], values[k], rtol=1e-14)
        np.testing.assert_allclose(Gk[..., 0], G[..., k], rtol=1e-12, atol=1e-15)
    R = loss.residual(loss.linear_predictor(X, W), y)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.csr_array):
        vs, Gs = loss.value_and_gradient(fmt(X), y, W)
        assert isinstance(Gs, np.ndarray)
        np.testing.assert_allclose(vs, values, rtol=1e-13)
        np.testing.assert_allclose(Gs, G, rtol=1e-12, atol=1e-15)
        S = fmt(X)
        np.testing.assert_array_equal(loss.gradient_from_residual(S, R, X_T=S.T),
                                      loss.gradient_from_residual(S, R))
        np.testing.assert_array_equal(loss.gradient(S, y, W, X_T=S.T), loss.gradient(S, y, W))
        once = loss.value_and_gradient(S, y, W, X_T=S.T)
        np.testing.assert_array_equal(once[1], loss.value_and_gradient(S, y, W)[1])


def test_values_match_direct_formulas():
    rng = np.random.default_rng(3)
    loss, X, y = make_problem("logistic")
    W = _weights(loss, X.shape[1], rng)
    Z = X @ W
    direct = np.mean(np.log1p(np.exp(Z)) - y[:, None] * Z, axis=0)
    np.testing.assert_allclose(loss.value(X, y, W), direct, rtol=1e-13)

    loss, X, y = make_problem("squared")
    W = _weights(loss, X.shape[1], rng)
    direct = np.sum((X @ W - y[:, None]) ** 2, axis=0) / (2 * X.shape[0])
    np.testing.assert_allclose(loss.value(X, y, W), direct, rtol=1e-13)

    loss, X, y = make_problem("multinomial")
    W = _weights(loss, X.shape[1], rng)
    Z = np.einsum("ij,jck->ick", X, W)
    direct = np.mean(logsumexp(Z, axis=1) - Z[np.arange(len(y)), y, :], axis=0)
    np.testing.assert_allclose(loss.value(X, y, W), direct, rtol=1e-13)


def test_logistic_is_stable_for_huge_margins():
    loss = LogisticLoss()
    X = np.array([[1.0], [1.0], [-1.0], [-1.0]])
    y = np.array([0.0, 1.0, 0.0, 1.0])
    W = np.array([[800.0]])
    values, G = loss.value_and_gradient(X, y, W)
    # Rows: z = 800 with y = 0 costs 800, y = 1 costs ~e^-800; z = -800 mirrors it.
    np.testing.assert_allclose(values, [(800.0 + 800.0) / 4], rtol=1e-15)
    np.testing.assert_allclose(G, [[(1.0 + 0.0 - 0.0 + 1.0) / 4]], rtol=1e-15)
    # Tiny losses keep their relative accuracy (no cancellation in log(1+e^z) - z).
    tiny = loss.value(np.array([[1.0]]), np.array([1.0]), np.array([[40.0]]))
    np.testing.assert_allclose(tiny, np.log1p(np.exp(-40.0)), rtol=1e-14)


def test_multinomial_is_stable_for_huge_scores():
    loss = MultinomialLoss(3)
    X = np.array([[1.0], [-1.0]])
    y = np.array([0, 2])
    W = np.array([[[900.0], [0.0], [-900.0]]])
    values, G = loss.value_and_gradient(X, y, W)
    Z = np.einsum("ij,jck->ick", X, W)
    expected = np.mean(logsumexp(Z, axis=1) - Z[np.arange(2), y, :], axis=0)
    assert np.all(np.isfinite(values)) and np.all(np.isfinite(G))
    np.testing.assert_allclose(values, expected, rtol=1e-15)


@pytest.mark.parametrize("kind", KINDS)
def test_per_example_gradient_sup_bound_holds_and_is_approached(kind):
    """Sup norm of per-example gradients on the data domain and the ball vs the stated bound."""
    rng = np.random.default_rng(4)
    lam, y_bound, n, p = 6.0, 2.0, 500, 5
    X = rng.choice([-1.0, 1.0], size=(n, p)) * rng.uniform(0.5, 1.0, size=(n, p))
    if kind == "logistic":
        loss, y = LogisticLoss(), rng.integers(0, 2, n)
    elif kind == "squared":
        loss, y = SquaredLoss(y_bound=y_bound), rng.choice([-y_bound, y_bound], n)
    else:
        loss, y = MultinomialLoss(3), rng.integers(0, 3, n)
    bound = loss.gradient_sup_bound(lam)
    largest = 0.0
    for _ in range(20):
        W = rng.normal(size=loss.weight_shape(p, 1))
        W *= lam / np.abs(W).sum()  # on the sphere ||w||_1 = lam: the extreme case
        for i in range(n):
            g = loss.gradient(X[i:i + 1], y[i:i + 1], W)
            largest = max(largest, np.abs(g).max())
    assert largest <= bound
    # Not vacuous: the bound is approached on this data (margins reach |z| close to lam).
    assert largest > 0.5 * bound


def test_squared_gradient_bound_is_attained_exactly():
    lam, y_bound = 3.0, 2.0
    loss = SquaredLoss(y_bound=y_bound)
    X = np.array([[1.0, -1.0]])
    W = np.array([[lam], [0.0]])
    g = loss.gradient(X, np.array([-y_bound]), W)
    assert np.abs(g).max() == loss.gradient_sup_bound(lam) == lam + y_bound


def _numerical_hessian_max_eig(loss, X, y, W, h=1e-5):
    w0 = W.ravel()
    m = w0.size
    H = np.empty((m, m))
    for j in range(m):
        e = np.zeros(m)
        e[j] = h
        up = loss.gradient(X, y, (w0 + e).reshape(W.shape)).ravel()
        down = loss.gradient(X, y, (w0 - e).reshape(W.shape)).ravel()
        H[:, j] = (up - down) / (2 * h)
    return np.linalg.eigvalsh(0.5 * (H + H.T)).max()


@pytest.mark.parametrize("kind", KINDS)
def test_smoothness_bounds_the_hessian_and_is_tight_at_zero(kind):
    """Largest Hessian eigenvalue (central differences) <= ``loss.smoothness(X)``.

    Central differences with h = 1e-5 are accurate to ~h^2 * (third derivative) + u/h,
    below 1e-9 relative here; the allowance 1e-7 covers that and nothing more.
    Tightness: at ``W = 0`` the logistic Hessian is exactly ``X^T X / (4n)`` and the
    squared one ``X^T X / n``; the multinomial one is ``X^T X / (C n)`` (uniform softmax).
    """
    loss, X, y = make_problem(kind)
    rng = np.random.default_rng(5)
    L = loss.smoothness(X)
    for scale in (0.0, 0.5, 2.0):
        W = rng.normal(size=loss.weight_shape(X.shape[1], 1)) * scale
        assert _numerical_hessian_max_eig(loss, X, y, W) <= L * (1 + 1e-7)
    at_zero = _numerical_hessian_max_eig(loss, X, y, np.zeros(loss.weight_shape(X.shape[1], 1)))
    expected_ratio = {"logistic": 1.0, "squared": 1.0, "multinomial": 2.0 / 3.0}[kind]
    np.testing.assert_allclose(at_zero / L, expected_ratio, rtol=1e-7)


def test_squared_spectral_norm_dense_sparse_and_vectors():
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(40, 7))
    X[rng.uniform(size=X.shape) < 0.4] = 0.0
    exact = np.linalg.svd(X, compute_uv=False)[0] ** 2
    np.testing.assert_allclose(squared_spectral_norm(X), exact, rtol=1e-13)
    np.testing.assert_allclose(squared_spectral_norm(sp.csr_matrix(X)), exact, rtol=1e-10)
    np.testing.assert_allclose(squared_spectral_norm(sp.csc_matrix(X)), exact, rtol=1e-10)
    for v in (X[:1], X[:, :1]):
        np.testing.assert_allclose(squared_spectral_norm(v), np.sum(v ** 2), rtol=1e-14)
        np.testing.assert_allclose(squared_spectral_norm(sp.csr_matrix(v)), np.sum(v ** 2),
                                   rtol=1e-14)
    # dense with both sides >= 64 goes through ARPACK: same value, and reproducible
    X_large = rng.uniform(-1, 1, size=(300, 90))
    exact_large = np.linalg.svd(X_large, compute_uv=False)[0] ** 2
    np.testing.assert_allclose(squared_spectral_norm(X_large), exact_large, rtol=1e-10)
    assert squared_spectral_norm(X_large) == squared_spectral_norm(X_large.copy())


def test_loss_input_errors():
    loss, X, y = make_problem("logistic")
    with pytest.raises(ValueError, match="W must have shape"):
        loss.value(X, y, np.zeros((X.shape[1] + 1, 1)))
    with pytest.raises(ValueError, match="W must have shape"):
        loss.value(X, y, np.zeros(X.shape[1]))
    with pytest.raises(ValueError, match=r"\{0, 1\}"):
        loss.check_target(np.r_[y[:-1], 2.0], X.shape[0])
    multi = MultinomialLoss(3)
    with pytest.raises(ValueError, match="W must have shape"):
        multi.value(X, y.astype(int), np.zeros((X.shape[1], 2, 1)))
    with pytest.raises(ValueError, match=r"0\.\.2"):
        multi.check_target(np.r_[y[:-1], 3], X.shape[0])
    with pytest.raises(ValueError, match="n_classes must be >= 2"):
        MultinomialLoss(1)
    with pytest.raises(TypeError, match="n_classes must be an integer"):
        MultinomialLoss(2.0)
    with pytest.raises(ValueError, match="y_bound"):
        SquaredLoss(y_bound=-1.0)
    with pytest.raises(ValueError, match="needs y_bound"):
        SquaredLoss().gradient_sup_bound(1.0)
    with pytest.raises(ValueError, match=r"\|y_i\| <= 1\.0: entry 0"):
        SquaredLoss(y_bound=1.0).check_target(np.array([1.5, 0.0]), 2)


def test_logistic_residual_is_the_sigmoid_minus_the_label_everywhere():
    """``sigma(z) - y`` to 2 ulps of 1 against the logistic's two exact forms, including
    where ``e^{-z}`` overflows (``z < -709``: the result is 0, with no warning), and always
    in ``[-1, 1]`` (the per-example gradient bound the calibrations rest on)."""
    z = np.concatenate([np.linspace(-40.0, 40.0, 2001), [-1e300, -800.0, -709.8, 709.8, 1e300]])
    Z = np.stack([z, -z], axis=1)
    loss = LogisticLoss()
    with np.errstate(all="raise", under="ignore"):  # a warning numpy shows would raise here
        for label in (0.0, 1.0):
            y = np.full(z.size, label)
            R = loss.residual(Z, y)
            exact = np.where(Z >= 0, 1.0 / (1.0 + np.exp(-np.abs(Z))),
                             np.exp(-np.abs(Z)) / (1.0 + np.exp(-np.abs(Z)))) - label
            np.testing.assert_allclose(R, exact, rtol=0, atol=4.5e-16)
            assert np.all(np.abs(R) <= 1.0)
    assert loss.residual(np.array([[-800.0]]), np.array([0.0]))[0, 0] == 0.0
