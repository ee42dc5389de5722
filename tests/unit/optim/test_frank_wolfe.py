"""The Frank-Wolfe engine: batching, randomness, the mask hook, incremental updates, errors."""
import importlib

import numpy as np
import pytest
import scipy.sparse as sp

from dplasso.optim import (
    LogisticLoss,
    exact_select,
    frank_wolfe,
    random_l1_ball_init,
    wolfe_gap,
)
from dplasso.privacy.selection import exponential_mechanism_min, report_noisy_min

from optim_problems import make_problem

KINDS = ["logistic", "squared", "multinomial"]
LAM = 2.0


def noisy_select(scores, rng):
    """A random selector stub (Laplace noise, then argmin), standing in for a private one."""
    return np.argmin(scores + rng.laplace(scale=0.05, size=scores.shape), axis=0)


def _flat(W):
    return W.reshape(-1, W.shape[-1])


@pytest.mark.parametrize("shape", [(3, 2), (40_000, 20), (70_001, 1), (5, 40_000)])
def test_exact_select_is_argmin_with_first_minimiser_on_ties(shape):
    rng = np.random.default_rng(0)
    scores = rng.integers(-50, 50, size=shape).astype(float)  # many ties
    scores[-1] = -100.0  # the last block holds a minimum of every column
    scores[shape[0] // 2] = -100.0  # ... and so does an earlier block: it must win
    np.testing.assert_array_equal(exact_select(scores, None), np.argmin(scores, axis=0))
    np.testing.assert_array_equal(exact_select(scores[:-1], None),
                                  np.argmin(scores[:-1], axis=0))


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("kind", KINDS)
def test_batched_exact_trials_equal_the_single_run(kind, fmt):
    loss, X, y = make_problem(kind, fmt)
    single = frank_wolfe(loss, X, y, LAM, 60, exact_select, history=True)
    batched = frank_wolfe(loss, X, y, LAM, 60, exact_select, n_trials=4, history=True)
    assert single.W.shape == loss.weight_shape(X.shape[1], 1)
    assert batched.W.shape == loss.weight_shape(X.shape[1], 4)
    assert batched.n_iter == 60
    assert np.linalg.norm(single.W) > 1e-3
    for k in range(4):
        np.testing.assert_allclose(batched.W[..., k], single.W[..., 0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(batched.history.objective[:, k],
                                   single.history.objective[:, 0], rtol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_fixed_rng_reproduces_and_seeds_differ(kind):
    loss, X, y = make_problem(kind)
    a = frank_wolfe(loss, X, y, LAM, 40, noisy_select, n_trials=3, rng=7)
    b = frank_wolfe(loss, X, y, LAM, 40, noisy_select, n_trials=3,
                    rng=np.random.default_rng(7))
    c = frank_wolfe(loss, X, y, LAM, 40, noisy_select, n_trials=3, rng=8)
    np.testing.assert_array_equal(a.W, b.W)
    assert not np.array_equal(a.W, c.W)
    # independent noise per trial: the trials of one run differ from each other
    assert not np.array_equal(a.W[..., 0], a.W[..., 1])


@pytest.mark.parametrize("mechanism", [report_noisy_min, exponential_mechanism_min])
def test_runs_with_the_private_selectors(mechanism):
    """The engine and dplasso.privacy.selection agree on the selector contract."""
    loss, X, y = make_problem("multinomial")

    def select(scores, rng):
        return mechanism(scores, 0.05, rng)

    a = frank_wolfe(loss, X, y, LAM, 30, select, n_trials=3, rng=11, history=True)
    b = frank_wolfe(loss, X, y, LAM, 30, select, n_trials=3, rng=11)
    np.testing.assert_array_equal(a.W, b.W)
    assert np.all(a.history.nnz[-1] >= 1)
    assert np.all(np.abs(_flat(a.W)).sum(axis=0) <= LAM * (1 + 1e-12))


def test_selector_receives_scores_in_the_documented_layout():
    loss, X, y = make_problem("multinomial")
    seen = []

    def spy(scores, rng):
        seen.append((scores.copy(), rng))
        return exact_select(scores, rng)

    rng = np.random.default_rng(0)
    W0 = random_l1_ball_init(loss.weight_shape(X.shape[1], 2), LAM, rng)
    frank_wolfe(loss, X, y, LAM, 1, spy, W0=W0, n_trials=2, rng=rng)
    scores, got_rng = seen[0]
    assert got_rng is rng
    G = loss.gradient(X, y, W0)
    m = X.shape[1] * loss.n_classes
    np.testing.assert_allclose(scores[:m], LAM * _flat(G), rtol=1e-14)
    np.testing.assert_allclose(scores[m:], -LAM * _flat(G), rtol=1e-14)


def test_first_steps_and_random_init_persistence():
    """Talwar indexing: mu_1 = 2/3, and W0 keeps weight prod (1 - mu_t) = 2/((T+1)(T+2))."""
    loss, X, y = make_problem("logistic", p=30)
    one = frank_wolfe(loss, X, y, LAM, 1, exact_select)
    g = loss.gradient(X, y, np.zeros((30, 1)))[:, 0]
    j = np.argmax(np.abs(g))
    expected = np.zeros(30)
    expected[j] = -np.sign(g[j]) * LAM * 2.0 / 3.0
    np.testing.assert_allclose(one.W[:, 0], expected, rtol=1e-15)

    T = 10
    W0 = random_l1_ball_init((30, 1), LAM, np.random.default_rng(3))
    chosen = []

    def spy(scores, rng):
        chosen.append(exact_select(scores, rng))
        return chosen[-1]

    result = frank_wolfe(loss, X, y, LAM, T, spy, W0=W0)
    # coordinates never selected are W0 scaled by 2/((T+1)(T+2))
    touched = np.zeros(30, dtype=bool)
    touched[np.concatenate(chosen) % 30] = True
    assert (~touched).sum() >= 30 - T
    np.testing.assert_allclose(result.W[~touched, 0], W0[~touched, 0] * 2 / ((T + 1) * (T + 2)),
                               rtol=1e-13)
    assert np.count_nonzero(result.W) == 30  # the naive variant stays dense


def test_memory_layout_of_W0_does_not_matter():
    loss, X, y = make_problem("multinomial")
    W0 = random_l1_ball_init(loss.weight_shape(X.shape[1], 3), LAM, np.random.default_rng(4))
    c_order = frank_wolfe(loss, X, y, LAM, 20, exact_select, W0=W0, n_trials=3)
    f_order = frank_wolfe(loss, X, y, LAM, 20, exact_select, W0=np.asfortranarray(W0),
                          n_trials=3)
    np.testing.assert_array_equal(c_order.W, f_order.W)
    assert not np.array_equal(c_order.W, W0)


@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
@pytest.mark.parametrize("kind", KINDS)
def test_history_matches_recomputation_from_scratch(kind, fmt):
    """The incrementally maintained ``Z = X W`` gives the same objective as ``X @ W`` anew."""
    loss, X, y = make_problem(kind, fmt)
    snapshots = []

    def keep(t, W, G, gap):
        snapshots.append((W.copy(), G.copy(), gap.copy()))

    result = frank_wolfe(loss, X, y, LAM, 50, noisy_select, n_trials=2, rng=0,
                         history=True, callback=keep)
    hist = result.history
    assert hist.objective.shape == hist.gap.shape == hist.nnz.shape == (51, 2)
    for t, (W, G, gap) in enumerate(snapshots):
        values, G_fresh = loss.value_and_gradient(X, y, W)
        np.testing.assert_allclose(hist.objective[t], values, rtol=1e-12)
        np.testing.assert_allclose(G, G_fresh, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(hist.gap[t], wolfe_gap(W, G_fresh, LAM), rtol=1e-10,
                                   atol=1e-14)
        np.testing.assert_array_equal(gap, hist.gap[t])
        np.testing.assert_array_equal(hist.nnz[t], np.count_nonzero(_flat(W), axis=0))
        assert np.all(np.abs(_flat(W)).sum(axis=0) <= LAM * (1 + 1e-12))
        assert np.all(hist.nnz[t] <= t)
    np.testing.assert_allclose(hist.objective[-1], loss.value(X, y, result.W), rtol=1e-12)
    assert np.all(hist.gap >= 0)


def test_callback_mask_keeps_masked_coordinates_at_zero():
    loss, X, y = make_problem("multinomial", p=10)
    m, K = 10 * loss.n_classes, 3
    plain = frank_wolfe(loss, X, y, LAM, 30, noisy_select, n_trials=K, rng=1)
    mask = np.zeros((m, K), dtype=bool)
    mask[:, 0] = np.abs(_flat(plain.W)[:, 0]) > 0  # includes coordinates that are nonzero
    mask[:4, 1] = True
    mask[:, 2] = True  # a trial with everything masked stays at zero
    chosen = []

    def select(scores, rng):
        idx = noisy_select(scores, rng)
        chosen.append(idx)
        return idx

    def screen(t, W, G, gap):
        with pytest.raises(ValueError):
            W[0, 0, 0] = 1.0  # read-only views
        return mask if t == 10 else None

    result = frank_wolfe(loss, X, y, LAM, 30, select, n_trials=K, rng=1, history=True,
                         callback=screen,
                         mask_semantics="zero-and-exclude")
    W_flat = _flat(result.W)
    assert np.all(W_flat[mask] == 0)
    np.testing.assert_array_equal(result.mask, mask)
    assert np.all(result.W[..., 2] == 0)
    assert np.all(result.history.nnz[10:, 2] == 0)
    assert np.count_nonzero(W_flat[:, 0]) > 0 and np.count_nonzero(W_flat[:, 1]) > 0
    for idx in chosen[9:]:  # steps t >= 10 never pick a masked vertex of an active trial
        coords = idx % m
        assert not np.any(mask[coords[:2], [0, 1]])
    # Z was recomputed after zeroing: the recorded objective is the one of the final W
    np.testing.assert_allclose(result.history.objective[-1], loss.value(X, y, result.W),
                               rtol=1e-12)


def test_zero_and_may_return_zeroes_once_and_lets_later_steps_reselect():
    """Under ``"zero-and-may-return"`` a mask zeroes those weights at its step only: the run
    equals an exclude-free restart from the zeroed iterate, and exact selection picks a
    masked coordinate again. Trials of one call may mix the two semantics."""
    loss, X, y = make_problem("logistic", n=80, p=8)
    p, K = X.shape[1], 2
    plain = frank_wolfe(loss, X, y, LAM, 10, exact_select, n_trials=K)
    mask = np.broadcast_to(plain.W != 0, (p, K)).copy()  # everything the first 10 steps used
    W_at = {}

    def screen(t, W, G, gap):
        if t == 11:
            W_at["before"] = np.array(W)
            return mask
        return None

    mixed = frank_wolfe(loss, X, y, LAM, 40, exact_select, n_trials=K, callback=screen,
                        history=True, mask_semantics=["zero-and-may-return", "zero-and-exclude"])
    np.testing.assert_array_equal(mixed.mask, mask)
    assert mixed.history.nnz[10, 0] == 0 and mixed.history.nnz[10, 1] == 0  # zeroed at t = 11
    returned = mixed.W[:, 0] != 0
    assert np.any(returned & mask[:, 0])  # a screened coordinate is nonzero again
    assert not np.any(mixed.W[:, 1][mask[:, 1]])  # excluded ones stay zero
    # the may-return trial after the round is Frank-Wolfe from zero, steps t = 11..40
    np.testing.assert_array_equal(W_at["before"], plain.W)
    again = frank_wolfe(loss, X, y, LAM, 40, exact_select, n_trials=1,
                        callback=lambda t, W, G, gap: (np.ones((p, 1), dtype=bool)
                                                       if t == 11 else None),
                        mask_semantics="zero-and-may-return")
    np.testing.assert_allclose(mixed.W[:, [0]], again.W, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="mask_semantics must be one of"):
        frank_wolfe(loss, X, y, LAM, 3, exact_select, mask_semantics="zero")
    with pytest.raises(ValueError, match="length n_trials=2"):
        frank_wolfe(loss, X, y, LAM, 3, exact_select, n_trials=2,
                    mask_semantics=["zero-and-exclude"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_masked_weights_leave_the_predictor_and_only_their_trials_are_refreshed(kind, fmt):
    """A mask that zeroes a few weights of some trials: the predictor loses their columns
    incrementally and only those trials' gradients are recomputed; every recorded objective
    and gap, and the gradient and gap each later callback sees, equal a fresh evaluation."""
    loss, X, y = make_problem(kind, fmt, n=50, p=7, seed=3)
    K = 4
    seen, masked_iterates = [], {}

    def screen(t, W, G, gap):
        W_flat = _flat(np.array(W))
        fresh = loss.gradient(X, y, np.array(W))
        seen.append(max(np.max(np.abs(fresh - G)),
                        np.max(np.abs(wolfe_gap(np.array(W), fresh, LAM) - gap))))
        if t % 3:
            return None
        mask = np.zeros(W_flat.shape, dtype=bool)
        for k in (0, 2):  # trial 1 and 3 untouched; trial 2 loses two coordinates
            nonzero = np.flatnonzero(W_flat[:, k])
            mask[nonzero[: 1 + k // 2], k] = True
        masked_iterates[t] = np.where(mask.reshape(W.shape), 0.0, W)
        return mask

    result = frank_wolfe(loss, X, y, LAM, 25, noisy_select, n_trials=K, rng=0,
                         callback=screen, history=True, mask_semantics="zero-and-may-return")
    assert max(seen) < 1e-12
    for t, masked in masked_iterates.items():  # the history records the masked iterate
        fresh = loss.gradient(X, y, masked)
        np.testing.assert_allclose(result.history.gap[t - 1], wolfe_gap(masked, fresh, LAM),
                                   rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(result.history.objective[t - 1], loss.value(X, y, masked),
                                   rtol=1e-12)
    np.testing.assert_allclose(result.history.objective[-1], loss.value(X, y, result.W),
                               rtol=1e-12)
    grad = loss.gradient(X, y, result.W)
    np.testing.assert_allclose(result.history.gap[-1], wolfe_gap(result.W, grad, LAM),
                               rtol=1e-10, atol=1e-14)


def test_engine_never_densifies_sparse_input():
    """200000 x 200000 CSR with 2000 nonzeros: densifying would need 320 GB."""
    n = p = 200_000
    rng = np.random.default_rng(0)
    rows = rng.integers(0, n, 2000)
    cols = rng.integers(0, p, 2000)
    X = sp.csr_matrix((rng.uniform(-1, 1, 2000), (rows, cols)), shape=(n, p))
    y = rng.integers(0, 2, n)
    result = frank_wolfe(LogisticLoss(), X, y, LAM, 5, exact_select, history=True)
    assert result.W.shape == (p, 1) and 0 < np.count_nonzero(result.W) <= 5
    np.testing.assert_allclose(result.history.objective[-1],
                               LogisticLoss().value(X, y, result.W), rtol=1e-12)


@pytest.mark.parametrize("n_trials", [1, 7])
@pytest.mark.parametrize("shape", [(300, 40), (40, 3000)])
def test_both_sparse_gradient_forms_are_equal_bit_for_bit(shape, n_trials):
    """The engine times X_csc.T @ R (scipy's CSR kernel) against X_csr.T @ R (its CSC
    kernel) and keeps the faster: both add each entry's terms in the same order, so the
    choice must not change a single bit of a run."""
    rng = np.random.default_rng(1)
    X = sp.random(*shape, density=0.05, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.uniform(-1.0, 1.0, k))
    R = rng.normal(size=(shape[0], n_trials))
    np.testing.assert_array_equal(X.tocsc().T @ R, X.T @ R)
    y = rng.integers(0, 2, shape[0])
    runs = [frank_wolfe(LogisticLoss(), M, y, LAM, 30, report_noisy_min_stub, n_trials=n_trials,
                        rng=3, history=True) for M in (X, X.tocsc())]
    np.testing.assert_array_equal(runs[0].W, runs[1].W)
    np.testing.assert_array_equal(runs[0].history.gap, runs[1].history.gap)


def report_noisy_min_stub(scores, rng):
    return report_noisy_min(scores, 0.01, rng)


@pytest.mark.parametrize("kind", KINDS)
def test_in_place_column_updates_change_no_bit(kind, monkeypatch):
    """With one class the engine adds the selected columns of a dense X to every column of Z
    in place, with more classes through the fancy index: the same products and sums as the
    update's plain definition, so the same bits, per-trial step counts (some trials
    finished) and masks included."""
    loss, X, y = make_problem(kind)
    rng = np.random.default_rng(5)
    steps = [40, 25, 40]
    W0 = random_l1_ball_init(loss.weight_shape(X.shape[1], 3), LAM, rng)

    def runs():
        per_trial = frank_wolfe(loss, X, y, LAM, steps, noisy_select, W0=W0, n_trials=3, rng=2)
        masked = frank_wolfe(loss, X, y, LAM, 30, noisy_select, n_trials=3, rng=4,
                             callback=_mask_first_coordinate_at(10),
                             mask_semantics="zero-and-may-return", history=True)
        # the weights follow the selections alone; the history reads the predictor itself
        return per_trial.W, masked.W, masked.history.objective, masked.history.gap

    def plain_update(X, Z_flat, features, targets, coef):  # the update's definition
        targets = np.arange(features.size) if targets is None else targets
        Z_flat[:, targets] += X[:, features] * coef

    engine_runs = runs()
    engine = importlib.import_module("dplasso.optim.frank_wolfe")
    monkeypatch.setattr(engine, "_add_scaled_columns", plain_update)
    for a, c in zip(engine_runs, runs()):
        np.testing.assert_array_equal(a, c)
        assert np.count_nonzero(a) > 0 and np.all(np.isfinite(a))


def _mask_first_coordinate_at(step):
    def callback(t, W, G, gap):
        if t != step:
            return None
        mask = np.zeros((W.reshape(-1, W.shape[-1]).shape), dtype=bool)
        mask[0] = True
        return mask
    return callback


def test_input_errors():
    loss, X, y = make_problem("logistic")
    p = X.shape[1]
    run = frank_wolfe
    with pytest.raises(ValueError, match="lam must be a finite number > 0, got 0.0"):
        run(loss, X, y, 0.0, 5, exact_select)
    with pytest.raises(ValueError, match="n_iter must be >= 1"):
        run(loss, X, y, LAM, 0, exact_select)
    with pytest.raises(ValueError, match="n_trials must be >= 1"):
        run(loss, X, y, LAM, 5, exact_select, n_trials=0)
    with pytest.raises(ValueError, match="X contains NaN"):
        run(loss, np.where(X > 0.9, np.nan, X), y, LAM, 5, exact_select)
    with pytest.raises(ValueError, match="row 0 has sup norm 2.0"):
        run(loss, X * 2.0 / np.abs(X[0]).max(), y, LAM, 5, exact_select)
    with pytest.raises(ValueError, match="X is empty"):
        run(loss, np.zeros((0, p)), y[:0], LAM, 5, exact_select)
    with pytest.raises(ValueError, match="y has .* entries but X has"):
        run(loss, X, y[:-1], LAM, 5, exact_select)
    with pytest.raises(ValueError, match=r"\{0, 1\}"):
        run(loss, X, y * 2, LAM, 5, exact_select)
    with pytest.raises(TypeError, match="loss must be"):
        run("logistic", X, y, LAM, 5, exact_select)
    with pytest.raises(TypeError, match="select must be callable"):
        run(loss, X, y, LAM, 5, "argmin")
    with pytest.raises(ValueError, match=r"W0 must have shape \(8, 2\)"):
        run(loss, X, y, LAM, 5, exact_select, W0=np.zeros((p, 1)), n_trials=2)
    with pytest.raises(ValueError, match="W0 must lie in the L1 ball .* trial 0"):
        run(loss, X, y, LAM, 5, exact_select, W0=np.full((p, 1), LAM))
    with pytest.raises(ValueError, match="W0 contains NaN"):
        run(loss, X, y, LAM, 5, exact_select, W0=np.full((p, 1), np.nan))


def test_bad_selector_and_callback_outputs():
    loss, X, y = make_problem("logistic")
    m = X.shape[1]
    cases = [
        (lambda s, r: np.zeros(2, dtype=int), "shape \\(1,\\)"),
        (lambda s, r: np.zeros(1), "integer array"),
        (lambda s, r: np.array([2 * m]), "outside 0..15"),
        (lambda s, r: np.array([-1]), "outside"),
    ]
    for select, message in cases:
        with pytest.raises(ValueError, match=message):
            frank_wolfe(loss, X, y, LAM, 3, select)
    mask = np.zeros((m, 1), dtype=bool)
    mask[0] = True
    with pytest.raises(ValueError, match="masked vertex for trial 0"):
        frank_wolfe(loss, X, y, LAM, 3, lambda s, r: np.array([0]),
                    callback=lambda t, W, G, gap: mask, mask_semantics="zero-and-exclude")
    with pytest.raises(ValueError, match="boolean mask of shape \\(8, 1\\)"):
        frank_wolfe(loss, X, y, LAM, 3, exact_select,
                    callback=lambda t, W, G, gap: np.zeros((m, 1)),
                    mask_semantics="zero-and-exclude")
    # a screening callback without a stated reading of screening is refused, not defaulted
    with pytest.raises(ValueError, match="the callback returned a mask: pass mask_semantics"):
        frank_wolfe(loss, X, y, LAM, 3, exact_select, callback=lambda t, W, G, gap: mask)


@pytest.mark.parametrize("select", [report_noisy_min, exponential_mechanism_min])
def test_private_selectors_with_masks_including_a_fully_masked_trial(select):
    """Masked coordinates are never chosen by a private selector; a trial whose every
    coordinate is masked stays at zero (its selector input is a constant, choice discarded)."""
    loss, X, y = make_problem("logistic", n=60, p=8)

    def callback(t, W, G, gap):
        if t == 3:
            mask = np.zeros((8, 3), dtype=bool)
            mask[:4, 0] = True  # half of trial 0
            mask[:, 1] = True  # all of trial 1
            return mask
        return None

    result = frank_wolfe(loss, X, y, 2.0, 30, lambda s, rng: select(s, 0.5, rng), n_trials=3,
                         rng=0, callback=callback,
                         mask_semantics="zero-and-exclude")
    assert not result.W[:4, 0].any() and result.W[4:, 0].any()
    assert not result.W[:, 1].any()
    assert result.W[:, 2].any()
