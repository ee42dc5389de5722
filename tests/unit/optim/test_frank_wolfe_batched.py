"""Runs batched into one engine call: per-trial step counts and the column selector."""
import numpy as np
import pytest

from dplasso.optim import exact_select, frank_wolfe, random_l1_ball_init
from dplasso.optim.column_selector import ColumnSelector
from dplasso.privacy.selection import ReportNoisyMinSelector

from optim_problems import make_problem

KINDS = ["logistic", "squared", "multinomial"]
LAM = 2.0


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("kind", KINDS)
def test_per_trial_steps_equal_separate_runs(kind, fmt):
    """Each trial of a per-trial ``n_iter`` run ends where its own run of that many steps
    ends: finished trials keep their weights, running ones see the same steps."""
    loss, X, y = make_problem(kind, fmt)
    steps = [7, 30, 1, 30, 12]
    W0 = random_l1_ball_init(loss.weight_shape(X.shape[1], len(steps)), LAM,
                             np.random.default_rng(3))
    W0[..., 1] = 0.0
    batched = frank_wolfe(loss, X, y, LAM, steps, exact_select, W0=W0, n_trials=len(steps))
    np.testing.assert_array_equal(batched.n_iter, steps)
    for k, n_iter in enumerate(steps):
        alone = frank_wolfe(loss, X, y, LAM, n_iter, exact_select, W0=W0[..., [k]])
        np.testing.assert_allclose(batched.W[..., [k]], alone.W, rtol=1e-12, atol=1e-15)


def test_column_selector_draws_what_each_group_draws_alone():
    """Groups with their own generators and step counts select, step by step, what their
    own runs select: the same outputs, bit for bit on this problem."""
    loss, X, y = make_problem("logistic", n=80, p=10)
    groups = [(2, 0.05, 11, 25), (3, 0.2, 12, 9), (1, 0.01, 13, 40)]
    columns, start = [], 0
    for size, scale, seed, n_iter in groups:
        columns.append((np.arange(start, start + size), ReportNoisyMinSelector(scale),
                        np.random.default_rng(seed), n_iter))
        start += size
    steps = np.concatenate([[n_iter] * size for size, _, _, n_iter in groups])
    batched = frank_wolfe(loss, X, y, LAM, steps, ColumnSelector(columns), n_trials=start)
    for (size, scale, seed, n_iter), (cols, *_) in zip(groups, columns):
        alone = frank_wolfe(loss, X, y, LAM, n_iter, ReportNoisyMinSelector(scale),
                            n_trials=size, rng=np.random.default_rng(seed))
        np.testing.assert_array_equal(batched.W[:, cols] != 0, alone.W != 0)
        np.testing.assert_allclose(batched.W[:, cols], alone.W, rtol=1e-12, atol=1e-15)


def test_column_selector_without_own_generators_uses_the_engines():
    loss, X, y = make_problem("logistic")
    select = ColumnSelector([([0, 2], exact_select), ([1], ReportNoisyMinSelector(0.1))])
    mixed = frank_wolfe(loss, X, y, LAM, 20, select, n_trials=3, rng=5)
    exact = frank_wolfe(loss, X, y, LAM, 20, exact_select)
    np.testing.assert_allclose(mixed.W[:, [0]], exact.W, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(mixed.W[:, 0], mixed.W[:, 2])


@pytest.mark.parametrize("bad, match", [
    (dict(n_iter=[3, 4]), "one count per trial"),
    (dict(n_iter=[3, 0, 2]), "each n_iter"),
    (dict(n_iter=[3, 4, 2], history=True), "neither history nor a callback"),
    (dict(n_iter=[3, 4, 2], callback=lambda t, W, G, gap: None), "neither history"),
])
def test_per_trial_steps_refuse_bad_arguments(bad, match):
    loss, X, y = make_problem("logistic")
    with pytest.raises(ValueError, match=match):
        frank_wolfe(loss, X, y, LAM, select=exact_select, n_trials=3, **bad)
