"""Wolfe gap against its definition: the maximum over all 2m vertices of <w - s, g>."""
import numpy as np
import pytest

from dplasso.optim import SquaredLoss, wolfe_gap


def _gap_by_enumeration(W_flat, G_flat, lam):
    m = W_flat.shape[0]
    vertices = np.vstack([lam * np.eye(m), -lam * np.eye(m)])  # (2m, m)
    # <w - s, g> for every vertex s, maximised over s (the ball's maximum is at a vertex).
    return np.max(np.einsum("jk,jk->k", W_flat, G_flat)[None, :] - vertices @ G_flat, axis=0)


@pytest.mark.parametrize("shape", [(7, 4), (5, 3, 2)])
def test_wolfe_gap_equals_vertex_enumeration(shape):
    rng = np.random.default_rng(0)
    lam = 1.7
    W = rng.normal(size=shape)
    W *= lam * rng.uniform(size=shape[-1]) / np.abs(W.reshape(-1, shape[-1])).sum(axis=0)
    G = rng.normal(size=shape)
    gap = wolfe_gap(W, G, lam)
    assert gap.shape == (shape[-1],)
    expected = _gap_by_enumeration(W.reshape(-1, shape[-1]), G.reshape(-1, shape[-1]), lam)
    np.testing.assert_allclose(gap, expected, rtol=1e-14)
    assert np.all(gap > 0)


def test_wolfe_gap_vanishes_at_an_interior_minimiser():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(50, 4))
    w_star = np.array([0.3, -0.2, 0.0, 0.1])
    y = X @ w_star
    loss = SquaredLoss()
    W = w_star[:, None]
    gap = wolfe_gap(W, loss.gradient(X, y, W), lam=1.0)
    assert abs(gap[0]) < 1e-15
    # and is positive elsewhere in the ball
    W_other = np.array([[0.0], [0.0], [0.5], [0.0]])
    assert wolfe_gap(W_other, loss.gradient(X, y, W_other), lam=1.0)[0] > 1e-3
