"""Two-stage method (Kifer, Smith, Thakurta 2012): utility, privacy bookkeeping, sensitivity."""
import math
from functools import lru_cache

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import softmax

from baselines_problems import (
    EPSILON_LARGE,
    accuracy,
    small_problem,
    support_recall,
    synthetic_problem,
)
from statistical import ALPHA
from dplasso.audit.sensitivity import sensitivity_search
from dplasso.baselines.nonprivate import fit_nonprivate_lasso
from dplasso.baselines.two_stage import (
    VOTE_COUNT_SENSITIVITY,
    block_vote_counts,
    default_n_blocks,
    fit_blocks,
    fit_two_stage,
    select_top_k_private,
)
from dplasso.privacy import REPLACE_ONE


@lru_cache(maxsize=1)
def reference_accuracy():
    X, y, w_true = synthetic_problem()
    ref = fit_nonprivate_lasso(X, y, lam=float(np.abs(w_true).sum()))
    return accuracy(ref.coef, ref.intercept, X, y)


@pytest.mark.parametrize("seed", range(2))
def test_large_epsilon_recovers_the_support_and_the_nonprivate_accuracy(seed):
    """At epsilon = 1000 the selection is essentially exact (Gumbel scale 2s/500 = 0.02 on
    counts out of 44 blocks): full support recall, and the unpenalised fit on the true
    support is at least as accurate as the non-private L1-constrained reference minus 0.01."""
    X, y, w_true = synthetic_problem()
    fit = fit_two_stage(X, y, epsilon=EPSILON_LARGE, n_nonzero=5, random_state=seed)
    assert support_recall(fit.coef, w_true) == 1.0
    assert np.count_nonzero(fit.coef) == 5
    assert accuracy(fit.coef, fit.intercept, X, y) >= reference_accuracy() - 0.01
    assert fit.info["grad_norm"] <= 1e-9


def test_small_epsilon_spreads_the_output_across_seeds():
    """Fixed seeds: at epsilon = 0.3 the selected supports differ between runs and the
    coefficients spread far more than at epsilon = 300 (where every run selects the same
    support)."""
    X, y, _ = synthetic_problem()

    def runs(epsilon):
        fits = [fit_two_stage(X, y, epsilon=epsilon, n_nonzero=5, n_blocks=20, random_state=s)
                for s in range(5)]
        supports = {tuple(f.info["support"]) for f in fits}
        spread = np.std([f.coef for f in fits], axis=0).sum()
        return len(supports), spread

    n_supports_small, spread_small = runs(0.3)
    n_supports_large, spread_large = runs(300.0)
    assert n_supports_large == 1 and n_supports_small > 1
    assert spread_small > 5 * spread_large


def test_fixed_random_state_is_deterministic():
    X, y, _ = synthetic_problem()
    a = fit_two_stage(X, y, epsilon=1.0, n_nonzero=5, random_state=11)
    b = fit_two_stage(X, y, epsilon=1.0, n_nonzero=5, random_state=np.random.default_rng(11))
    c = fit_two_stage(X, y, epsilon=1.0, n_nonzero=5, random_state=12)
    np.testing.assert_array_equal(a.coef, b.coef)
    assert a.intercept == b.intercept
    assert not np.array_equal(a.coef, c.coef)


def test_sparse_input_gives_the_dense_result():
    X, y, _ = synthetic_problem()
    dense = fit_two_stage(X, y, epsilon=50.0, n_nonzero=5, random_state=3)
    sparse = fit_two_stage(sp.csr_matrix(X), y, epsilon=50.0, n_nonzero=5, random_state=3)
    np.testing.assert_array_equal(dense.info["support"], sparse.info["support"])
    np.testing.assert_allclose(sparse.coef, dense.coef, atol=1e-7)


@pytest.mark.parametrize("noise, delta", [("gamma", 0.0), ("gaussian", 1e-6)])
def test_ledger_records_both_stages_within_the_budget(noise, delta):
    X, y, _ = synthetic_problem()
    fit = fit_two_stage(X, y, epsilon=0.7, delta=delta, n_nonzero=4, noise=noise,
                        selection_share=0.3, random_state=0)
    events = fit.ledger.events
    assert [e.mechanism for e in events] == ["exponential-mechanism",
                                             f"objective-perturbation-{noise}"]
    assert all(e.relation == REPLACE_ONE for e in events)
    selection, estimation = events
    assert selection.count == 4 and selection.sensitivity == VOTE_COUNT_SENSITIVITY
    assert estimation.sensitivity == 2 * math.sqrt(4 + 1)  # 4 features + intercept column
    total = fit.ledger.total("basic")
    assert total.epsilon <= 0.7 and total.epsilon == pytest.approx(0.7, rel=1e-12)
    assert total.delta == delta
    assert selection.count * selection.epsilon == pytest.approx(0.3 * 0.7, rel=1e-12)


def test_without_intercept():
    X, y, _ = synthetic_problem()
    fit = fit_two_stage(X, y, epsilon=10.0, n_nonzero=3, fit_intercept=False, random_state=0)
    assert fit.intercept is None
    assert fit.ledger.events[1].sensitivity == 2 * math.sqrt(3)


def test_shared_block_fits_give_what_the_drawn_partition_gives():
    """Block fits passed in (a partition the caller drew, e.g. shared by several budgets)
    give the output of a call that draws that very partition from its generator."""
    X, y = small_problem(n=200, p=10, seed=2)
    drawn = fit_two_stage(X, y, epsilon=3.0, n_nonzero=3, random_state=np.random.default_rng(8))
    rng = np.random.default_rng(8)
    blocks = np.array_split(rng.permutation(200), default_n_blocks(200))
    given = fit_two_stage(X, y, epsilon=3.0, n_nonzero=3, block_fits=fit_blocks(X, y, blocks),
                          random_state=rng)
    np.testing.assert_array_equal(given.coef, drawn.coef)
    assert given.intercept == drawn.intercept
    assert given.info["block_sizes"] == drawn.info["block_sizes"]
    with pytest.raises(ValueError, match="block_fits"):
        fit_two_stage(X, y, epsilon=3.0, n_nonzero=3, n_blocks=5,
                      block_fits=fit_blocks(X, y, blocks))


def test_default_number_of_blocks():
    assert default_n_blocks(2000) == 44
    assert default_n_blocks(1) == 1


# ---------------------------------------------------------------- stage 1 sensitivity

class VoteCounts:
    """Vote counts for a fixed partition (drawn independently of the data)."""

    label_values = (0.0, 1.0)

    def __init__(self, blocks, n_nonzero):
        self.blocks, self.n_nonzero = blocks, n_nonzero

    def __call__(self, X, y):
        return block_vote_counts(X, y, self.blocks, self.n_nonzero)


@pytest.mark.parametrize("norm, declared", [("inf", VOTE_COUNT_SENSITIVITY), ("1", 2 * 2)])
def test_vote_counts_sensitivity(norm, declared):
    """Each count moves by at most 1 and the vector by at most 2s in L1; the search does
    move a count (so the check is not vacuous)."""
    X, y = small_problem(n=60, p=8, seed=4)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(float)
    blocks = np.array_split(np.random.default_rng(0).permutation(60), 6)
    result = sensitivity_search(VoteCounts(blocks, 2), X, y, declared, norm=norm, n_rows=4,
                                n_random=6, ascent_rounds=1, rng=0)
    assert not result.exceeded
    assert result.found >= 1


@pytest.mark.statistical
def test_selection_follows_the_exponential_mechanism_without_replacement():
    """Law of two rounds over scores (0, 1, 3) with epsilon_0 = 1.

    P(i then j) = p_i q_j with p = softmax(eps0 u / 2) and q the softmax over the rest.
    Chi-square goodness of fit on 4000 fixed-seed draws over the 6 ordered pairs (the
    smallest expected count is about 150, so the chi-square approximation is accurate);
    threshold p >= ALPHA, false-failure probability ALPHA. The companion check uses a
    broken temperature (sensitivity 1/2, i.e. epsilon_0 doubled) and is rejected.
    """
    scores = np.array([0.0, 1.0, 3.0])
    N_DRAWS = 4000

    def pvalue(sensitivity):
        rng = np.random.default_rng(99)
        picks = np.array([select_top_k_private(scores, 2, 1.0, rng, sensitivity=sensitivity)
                          for _ in range(N_DRAWS)])
        pairs = [(i, j) for i in range(3) for j in range(3) if i != j]
        observed = np.array([np.sum((picks[:, 0] == i) & (picks[:, 1] == j)) for i, j in pairs])
        p = softmax(scores / 2)
        expected = []
        for i, j in pairs:
            rest = [k for k in range(3) if k != i]
            q = softmax(scores[rest] / 2)
            expected.append(p[i] * q[rest.index(j)])
        return stats.chisquare(observed, N_DRAWS * np.array(expected)).pvalue

    assert pvalue(1.0) >= ALPHA
    assert pvalue(0.5) < ALPHA


def test_selection_returns_distinct_indices():
    picks = select_top_k_private(np.arange(10.0), 10, 0.1, np.random.default_rng(0))
    assert sorted(picks) == list(range(10))


@pytest.mark.parametrize("kwargs, match", [
    ({"n_nonzero": 51}, "n_nonzero must be <= 50"),
    ({"n_nonzero": 0}, "n_nonzero must be >= 1"),
    ({"n_nonzero": 5, "n_blocks": 2001}, "n_blocks must be <= 2000"),
    ({"n_nonzero": 5, "noise": "gaussian"}, "needs delta > 0"),
    ({"n_nonzero": 5, "noise": "uniform"}, "noise must be one of"),
    ({"n_nonzero": 5, "selection_share": 1.0}, "selection_share must lie in"),
    ({"n_nonzero": 5, "block_C": -1.0}, "block_C must be"),
])
def test_bad_hyperparameters_are_refused(kwargs, match):
    X, y, _ = synthetic_problem()
    with pytest.raises(ValueError, match=match):
        fit_two_stage(X, y, epsilon=1.0, **kwargs)


@pytest.mark.parametrize("epsilon", [1e3, 1e6, 1e12])
def test_huge_epsilon_gives_finite_coefficients_within_the_stated_bound(epsilon):
    """Separable data (the label is the sign of feature 0): without the quadratic-weight floor
    the fit diverged (coefficients of 1e13 and more at epsilon 1e6). With it, the minimiser
    obeys ||w||_2 <= (||b|| + sqrt(||b||^2 + 2 Lambda n log 2)) / Lambda (MIN_MEAN_QUAD_WEIGHT)."""
    from dplasso.baselines.two_stage import MIN_MEAN_QUAD_WEIGHT

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 6))
    y = (X[:, 0] > 0).astype(float)
    fit = fit_two_stage(X, y, epsilon=epsilon, n_nonzero=2, random_state=0)
    w = np.append(fit.coef[fit.info["support"]], fit.intercept)
    lam, b = fit.info["quad_weight"], fit.info["noise_norm"]
    assert np.all(np.isfinite(w))
    assert lam >= MIN_MEAN_QUAD_WEIGHT * 200
    bound = (b + math.sqrt(b * b + 2 * lam * 200 * math.log(2))) / lam
    assert np.linalg.norm(w) <= bound
    assert np.linalg.norm(w) < 2000
    assert fit.ledger.total().epsilon <= epsilon
