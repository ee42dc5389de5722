r"""One Frank-Wolfe engine over the ``lam``-scaled L1 ball, batched over trials.

The engine runs exact (non-private) and private Frank-Wolfe alike: it computes vertex
scores and asks a *selector* for each trial's minimising vertex; it never sees epsilon.
Exact selection is :func:`exact_select`; private selection is a mechanism from
``dplasso.privacy.selection`` wrapped with its calibrated scale by the caller.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from dplasso.optim.losses import Loss
from dplasso.optim.validation import (
    check_lam,
    check_n_iter,
    check_n_trials,
    check_X_bounded,
)
from dplasso.optim.wolfe_gap import wolfe_gap
from dplasso.privacy.rng import as_generator

__all__ = [
    "MASK_SEMANTICS",
    "FrankWolfeHistory",
    "FrankWolfeResult",
    "exact_select",
    "frank_wolfe",
]

MASK_SEMANTICS = ("zero-and-exclude", "zero-and-may-return")
"""What a callback mask does to a trial: zero those weights and bar their vertices from every
later step (``"zero-and-exclude"``), or zero them and let later steps select them again
(``"zero-and-may-return"``)."""


@dataclass(frozen=True)
class FrankWolfeHistory:
    """Per-iterate diagnostics; row ``t`` is the iterate after ``t`` steps (row 0: ``W0``).

    Attributes
    ----------
    objective : ndarray of shape (n_iter + 1, K)
        Loss value of each trial.
    gap : ndarray of shape (n_iter + 1, K)
        Wolfe gap of each trial (:func:`dplasso.optim.wolfe_gap.wolfe_gap`), an upper bound
        on the suboptimality of that iterate.
    nnz : ndarray of int of shape (n_iter + 1, K)
        Number of nonzero weights of each trial.
    """

    objective: np.ndarray
    gap: np.ndarray
    nnz: np.ndarray


@dataclass(frozen=True)
class FrankWolfeResult:
    """Output of :func:`frank_wolfe`.

    Attributes
    ----------
    W : ndarray of shape (p, K) or (p, C, K)
        Final weights, one trial per trailing index.
    n_iter : int or ndarray of int of shape (K,)
        Number of Frank-Wolfe steps taken (vertex selections per trial), as passed.
    history : FrankWolfeHistory or None
        Per-iterate objective, gap and nnz when ``history=True``.
    mask : ndarray of bool of shape (m, K) or None
        Union of the masks the callback returned (flattened), if it returned any: the
        coordinates it zeroed at least once (under ``"zero-and-exclude"`` they stay zero).
    """

    W: np.ndarray
    n_iter: int
    history: FrankWolfeHistory | None
    mask: np.ndarray | None


_SELECT_BLOCK_ELEMENTS = 2**15
"""Entries per row block of :func:`exact_select` (256 KiB of float64: stays in cache)."""


def exact_select(scores, rng):
    """Non-private vertex selection: the index of the smallest score of each trial.

    Parameters
    ----------
    scores : ndarray of shape (2m, K)
        Vertex scores (see :func:`frank_wolfe`).
    rng : numpy.random.Generator
        Unused; present for the selector contract ``select(scores, rng)``.

    Returns
    -------
    ndarray of int of shape (K,)
        ``argmin`` over the vertex axis (the first minimiser on ties).

    Notes
    -----
    Runs over row blocks of about :math:`2^{15}` entries: ``np.argmin(axis=0)`` on a large
    C-ordered array first copies it to make the reduced axis contiguous, which costs
    about 2.5 times the blocked pass for ``(40000, 20)`` scores.
    """
    scores = np.asarray(scores)
    n_vertices, n_trials = scores.shape
    rows = max(1, _SELECT_BLOCK_ELEMENTS // n_trials)
    best_index = np.argmin(scores[:rows], axis=0)
    if rows >= n_vertices:
        return best_index
    trials = np.arange(n_trials)
    best_value = scores[best_index, trials]
    for start in range(rows, n_vertices, rows):
        block = scores[start:start + rows]
        index = np.argmin(block, axis=0)
        value = block[index, trials]
        better = value < best_value  # strict: the first minimiser wins ties
        best_value[better] = value[better]
        best_index[better] = index[better] + start
    return best_index


def frank_wolfe(loss, X, y, lam, n_iter, select, *, W0=None, n_trials=1, rng=None,
                history=False, callback=None, mask_semantics=None,
                check_input=True):
    r"""Minimise a smooth loss over the L1 ball of radius ``lam`` by Frank-Wolfe.

    .. math::

        \min_{\|w\|_1 \le \lambda} L(w), \qquad
        w_{t+1} = (1 - \mu_t) w_t + \mu_t s_t, \quad \mu_t = \frac{2}{t + 2},
        \quad t = 1, \dots, T,

    where :math:`s_t` is the vertex :math:`\pm\lambda e_j` chosen by ``select`` from the
    scores :math:`\langle s, \nabla L(w_t) \rangle`. ``K`` trials run at once; each trial
    has its own weights and its own selection.

    Parameters
    ----------
    loss : Loss
        A loss from :mod:`dplasso.optim.losses` (it fixes the weight layout).
    X : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix with rows ``||x_i||_inf <= 1`` (checked). Sparse input is used in
        CSC format (converted once if needed) and never densified.
    y : array-like of shape (n,)
        Targets in the encoding the loss expects (checked by ``loss.check_target``).
    lam : float
        Radius of the L1 ball, ``> 0`` (a constraint radius, not a penalty weight).
    n_iter : int or sequence of int
        Number of steps ``T >= 1`` (one vertex selection per trial per step), or one per
        trial (length ``K``): the engine then runs ``max(n_iter)`` steps, and a trial past its
        own count keeps its weights (its selection is discarded and its gradient is not
        computed). Runs that differ only in their step count (budgets, methods of one
        dataset) then share every product ``X^T R``; per-trial counts take neither
        ``history`` nor ``callback``.
    select : callable
        ``select(scores, rng) -> ndarray of int (K,)``; ``scores`` has shape ``(2m, K)``
        with ``m = p`` (or ``p*C`` for multinomial, flattened entry ``j*C + c``): row ``j``
        is the score ``lam * g_j`` of vertex ``+lam e_j`` and row ``m + j`` the score
        ``-lam * g_j`` of ``-lam e_j``. The selector returns each trial's chosen row.
        The buffer is reused between steps; the selector must not keep a reference.
    W0 : ndarray of shape (p, K) or (p, C, K), optional
        Starting weights inside the ball (e.g. from
        :func:`dplasso.optim.l1_ball.random_l1_ball_init`); zero when omitted.
    n_trials : int, default=1
        Number of trials ``K``; must match ``W0`` when both are given.
    rng : numpy.random.Generator, int or None, default=None
        Passed to ``select`` (converted with :func:`dplasso.privacy.rng.as_generator`).
    history : bool, default=False
        Record objective, Wolfe gap and nnz of every iterate (costs one extra gradient
        for the final iterate, and ``O(nK + mK)`` per step).
    callback : callable, optional
        ``callback(t, W, G, gap)`` is called before step ``t`` with read-only views of the
        current weights and gradient and the per-trial Wolfe gap ``(K,)``. It may return a
        boolean mask of shape ``(m, K)`` of coordinates to set to zero (see
        ``mask_semantics`` and Notes). A callback with a true attribute
        ``wants_objective`` is called as ``callback(t, W, G, gap, objective=f)``, where
        ``f()`` returns the loss values ``(K,)`` of the current weights (computed from the
        engine's ``Z`` on the first call only): a callback that needs the objective and
        the gradient, such as screening, then computes neither again.
    mask_semantics : str or sequence of str, optional
        One of :data:`MASK_SEMANTICS` for all trials, or one per trial (length ``K``);
        required once a ``callback`` returns a mask (the two readings of screening give
        different outputs, so neither is a silent default; P2's experiments read it as
        ``"zero-and-may-return"``).
        ``"zero-and-exclude"``: masked coordinates are set to zero and never selected again
        (masks accumulate by logical or). ``"zero-and-may-return"``: masked coordinates are
        set to zero at that step only; later steps may select them again.
    check_input : bool, default=True
        Check ``X`` with :func:`~dplasso.optim.validation.check_X_bounded`. ``False`` takes
        ``X`` as that function's output already (a float64 array, or canonical CSR/CSC of
        float64, in the data domain): for callers that validated the design once per fit,
        such as the estimators after ``prepare_design``.

    Returns
    -------
    FrankWolfeResult

    Raises
    ------
    ValueError
        On bad input (see :mod:`dplasso.optim.validation`), ``W0`` of the wrong shape or
        outside the ball, a selector returning anything but ``K`` valid vertex indices
        (or an excluded vertex), a callback mask of the wrong shape, or an unknown
        ``mask_semantics``.

    Notes
    -----
    Step indexing follows Talwar, Thakurta and Zhang (2015): the first step is ``t = 1``
    with :math:`\mu_1 = 2/3`, so a nonzero ``W0`` keeps weight
    :math:`\prod_{t\le T}(1-\mu_t) = 2/((T+1)(T+2))` in the output (the "naive" random
    initialisation of P1 stays dense). With exact selection, curvature constant
    :math:`C_f \le (2\lambda)^2 L_{\mathrm{smooth}}` and :math:`h_t = L(w_t) - L^\star`,
    the step gives :math:`h_{t+1} \le \frac{t}{t+2} h_t + \frac{2 C_f}{(t+2)^2}`, hence
    :math:`h_t \le \frac{2 h_1 + 2 C_f (t - 1)}{t (t + 1)}`.

    Cost per step: one product ``X.T @ R`` (the gradient of all trials), the residual
    ``O(nK)``, the scores ``O(mK)``, the scaled rank-one update of ``W`` ``O(mK)``, and
    the incremental update of the linear predictor ``Z = X W``,
    ``Z <- (1 - mu) Z + mu * (+-lam) X[:, j_k]`` with the ``K`` selected columns gathered
    at once (``O(nK)`` dense, ``O(nnz of those columns)`` sparse).

    Mask from ``callback``: masked coordinates are set to zero. Under
    ``"zero-and-exclude"`` their two vertices also get score ``+inf`` from then on (never
    selected; a trial with every coordinate excluded stays at zero); under
    ``"zero-and-may-return"`` the scores are left alone, so step ``t`` itself may select a
    coordinate masked before it. When a new mask zeroes nonzero weights, their columns of
    ``X`` are subtracted from ``Z`` (``O(n)`` per zeroed weight dense, ``O(nnz of its
    column)`` sparse) and the gradient of the trials concerned is recomputed (one extra
    ``X.T @ R`` on those columns); the history then records the masked iterate, the one step
    ``t`` starts from. Under private selection the mask must be
    public: computed from earlier private releases (post-processing), never from the raw
    gradient. A selector used with a callback must treat a ``+inf`` score as an excluded
    candidate; selecting among the remaining candidates, fixed publicly in advance, keeps
    the selection's privacy guarantee unchanged.
    """
    if not isinstance(loss, Loss):
        raise TypeError(f"loss must be a dplasso.optim.losses.Loss, got {type(loss).__name__}")
    if not callable(select):
        raise TypeError("select must be callable: select(scores, rng) -> int array (K,)")
    if check_input:
        X = check_X_bounded(X)
    transposes = None
    if sp.issparse(X):
        # The gradient is X^T R: CSC input gives one form (X_csc.T, a CSR view); CSR input
        # also the other (X_csr.T, a CSC view), and the first gradient keeps the faster.
        transposes = [X.T] if X.format == "csr" else []
        X = X.tocsc()  # the column updates of Z read CSC columns
        transposes.insert(0, X.T)
    n_samples, n_features = X.shape
    y = loss.check_target(y, n_samples)
    lam = check_lam(lam)
    n_trials = check_n_trials(n_trials)
    n_iter, steps = _check_steps(n_iter, n_trials, history or callback is not None)
    exclude = None if mask_semantics is None else _check_mask_semantics(mask_semantics,
                                                                         n_trials)
    rng = as_generator(rng)

    n_classes = loss.n_classes
    m = n_features * n_classes
    W = _initial_weights(W0, loss.weight_shape(n_features, n_trials), lam)
    W_flat = W.reshape(m, n_trials)
    Z = np.ascontiguousarray(loss.linear_predictor(X, W))
    Z_flat = Z.reshape(n_samples, n_classes * n_trials)  # a view, updated in place
    trials = np.arange(n_trials)
    scores = np.empty((2 * m, n_trials))
    mask = None  # union of the callback's masks
    excluded = None  # the coordinates barred from selection (zero-and-exclude trials)
    recorder = _HistoryRecorder(n_iter, n_trials) if history else None

    def evaluate(running=None):
        Z_now = Z if running is None else Z[..., running]
        if history:
            values, R = loss.value_and_residual(Z_now, y)
        else:
            values, R = None, loss.residual(Z_now, y)
        if transposes is not None and len(transposes) > 1:
            transposes[:] = [_faster_transpose(transposes, R.reshape(n_samples, -1))]
        G = loss.gradient_from_residual(X, R, X_T=None if transposes is None else transposes[0])
        if running is not None:  # the finished trials' gradients are never used
            G_all = np.zeros(W.shape)
            G_all[..., running] = G
            G = G_all
        track_gap = history or callback is not None
        gap = wolfe_gap(W_flat, G.reshape(m, n_trials), lam) if track_gap else None
        return values, G, gap

    def refresh(values, G, gap, cols):
        """``evaluate()`` for the trials ``cols`` only (the others' weights did not change)."""
        Z_cols = Z[..., cols]
        if history:
            values = values.copy()
            values[cols], R = loss.value_and_residual(Z_cols, y)
        else:
            R = loss.residual(Z_cols, y)
        G = G.copy()
        G[..., cols] = loss.gradient_from_residual(
            X, R, X_T=None if transposes is None else transposes[0])
        gap = gap.copy()
        gap[cols] = wolfe_gap(W[..., cols], G[..., cols], lam)
        return values, G, gap

    wants_objective = bool(getattr(callback, "wants_objective", False))
    last = n_iter if steps is None else int(steps.max())
    for t in range(1, last + 1):
        running = None if steps is None or t <= steps.min() else steps >= t
        values, G, gap = evaluate(running)
        if callback is not None:
            extra = {"objective": _Objective(loss, Z, y, values)} if wants_objective else {}
            new_mask = callback(t, _read_only(W), _read_only(G), gap, **extra)
            if new_mask is not None:
                if exclude is None:
                    raise ValueError(
                        f"the callback returned a mask: pass mask_semantics, one of "
                        f"{MASK_SEMANTICS} ('zero-and-may-return' is P2's reading of screening)")
                new_mask = _check_mask(new_mask, (m, n_trials))
                mask = new_mask.copy() if mask is None else mask | new_mask
                if exclude.any():
                    barred = new_mask & exclude
                    excluded = barred if excluded is None else excluded | barred
                zeroed = new_mask & (W_flat != 0)
                if zeroed.any():
                    removed = np.where(zeroed, W_flat, 0.0)
                    W_flat[new_mask] = 0.0
                    _subtract_predictor(X, Z_flat, removed.reshape(n_features, -1))
                    values, G, gap = refresh(values, G, gap,
                                             np.flatnonzero(zeroed.any(axis=0)))
        if recorder is not None:
            recorder.record(t - 1, values, gap, W_flat)

        G_flat = G.reshape(m, n_trials)
        np.multiply(G_flat, lam, out=scores[:m])
        np.negative(scores[:m], out=scores[m:])
        if excluded is not None:
            np.copyto(scores[:m], np.inf, where=excluded)
            np.copyto(scores[m:], np.inf, where=excluded)
            # A trial with every coordinate excluded has no candidate; its choice is
            # discarded below, so give the selector finite (public, constant) scores for it.
            scores[:, excluded.all(axis=0)] = 0.0
        chosen = _check_selection(select(scores, rng), 2 * m, n_trials)
        coords = chosen % m
        mu = 2.0 / (t + 2.0)
        coef = np.where(chosen < m, mu * lam, -mu * lam)
        if excluded is not None:
            coef[_excluded_choice(excluded, coords, trials)] = 0.0

        if running is None:
            W_flat *= 1.0 - mu
            Z_flat *= 1.0 - mu
        else:  # finished trials keep their weights
            coef[~running] = 0.0
            shrink = np.where(running, 1.0 - mu, 1.0)
            W_flat *= shrink
            Z_flat *= np.tile(shrink, n_classes)
        W_flat[coords, trials] += coef
        _add_scaled_columns(X, Z_flat, coords // n_classes,
                            None if n_classes == 1 else (coords % n_classes) * n_trials + trials,
                            coef)

    if recorder is not None:
        values, _, gap = evaluate()
        recorder.record(n_iter, values, gap, W_flat)
    return FrankWolfeResult(
        W=W, n_iter=n_iter, history=recorder.finish() if recorder else None, mask=mask
    )


def _check_steps(n_iter, n_trials, per_step_hooks):
    """``(n_iter, steps)``: an int and None, or the per-trial counts as given and an array."""
    if np.ndim(n_iter) == 0:
        return check_n_iter(n_iter), None
    steps = [check_n_iter(value, name="each n_iter") for value in n_iter]
    if len(steps) != n_trials:
        raise ValueError(f"n_iter must be an int or hold one count per trial "
                         f"(n_trials={n_trials}), got {len(steps)}")
    if per_step_hooks:
        raise ValueError("per-trial n_iter takes neither history nor a callback")
    steps = np.array(steps, dtype=np.intp)
    return steps.copy(), steps


class _Objective:
    """``objective()``: the loss values ``(K,)`` of the engine's current iterate, computed
    from its linear predictor on the first call (or taken from the history's values)."""

    def __init__(self, loss, Z, y, values):
        self._loss, self._Z, self._y, self._values = loss, Z, y, values

    def __call__(self):
        if self._values is None:
            self._values = self._loss.value_from_predictor(self._Z, self._y)
        return self._values


class _HistoryRecorder:
    def __init__(self, n_iter, n_trials):
        self.objective = np.empty((n_iter + 1, n_trials))
        self.gap = np.empty((n_iter + 1, n_trials))
        self.nnz = np.empty((n_iter + 1, n_trials), dtype=np.intp)

    def record(self, row, values, gap, W_flat):
        self.objective[row] = values
        self.gap[row] = gap
        self.nnz[row] = np.count_nonzero(W_flat, axis=0)

    def finish(self):
        return FrankWolfeHistory(objective=self.objective, gap=self.gap, nnz=self.nnz)


def _initial_weights(W0, shape, lam):
    if W0 is None:
        return np.zeros(shape)
    W = np.array(W0, dtype=np.float64, copy=True, order="C")  # W_flat must be a view
    if W.shape != shape:
        raise ValueError(f"W0 must have shape {shape} (n_trials={shape[-1]}), got {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("W0 contains NaN or infinity")
    l1_norms = np.abs(W.reshape(-1, shape[-1])).sum(axis=0)
    # Allowance for rounding in the computed sum of m terms: m * machine epsilon (relative).
    limit = lam * (1.0 + W.size / shape[-1] * np.finfo(np.float64).eps)
    outside = np.flatnonzero(l1_norms > limit)
    if outside.size:
        k = int(outside[0])
        raise ValueError(
            f"W0 must lie in the L1 ball of radius lam={lam!r}: trial {k} has "
            f"||w||_1 = {float(l1_norms[k])!r}"
        )
    return W


def _read_only(array):
    view = array.view()
    view.flags.writeable = False
    return view


def _check_mask_semantics(mask_semantics, n_trials):
    """Per-trial bool: True where masked coordinates are excluded from later steps."""
    if isinstance(mask_semantics, str):
        mask_semantics = [mask_semantics] * n_trials
    mask_semantics = list(mask_semantics)
    unknown = sorted({s for s in mask_semantics if s not in MASK_SEMANTICS}, key=str)
    if unknown or len(mask_semantics) != n_trials:
        raise ValueError(
            f"mask_semantics must be one of {MASK_SEMANTICS} or a sequence of them of length "
            f"n_trials={n_trials}, got {unknown or len(mask_semantics)}"
        )
    return np.array([s == "zero-and-exclude" for s in mask_semantics])


def _check_mask(new_mask, shape):
    new_mask = np.asarray(new_mask)
    if new_mask.shape != shape or new_mask.dtype != np.bool_:
        raise ValueError(
            f"callback must return None or a boolean mask of shape {shape}, got "
            f"dtype {new_mask.dtype} shape {new_mask.shape}"
        )
    return new_mask


def _check_selection(chosen, n_vertices, n_trials):
    chosen = np.asarray(chosen)
    if chosen.shape != (n_trials,) or chosen.dtype.kind not in "iu":
        raise ValueError(
            f"select must return an integer array of shape ({n_trials},), got dtype "
            f"{chosen.dtype} shape {chosen.shape}"
        )
    if chosen.min() < 0 or chosen.max() >= n_vertices:
        raise ValueError(
            f"select returned a vertex index outside 0..{n_vertices - 1}: "
            f"{int(chosen.min())}..{int(chosen.max())}"
        )
    return chosen


def _excluded_choice(excluded, coords, trials):
    """Trials whose chosen coordinate is excluded; only allowed when the trial is all excluded."""
    chose_excluded = excluded[coords, trials]
    if np.any(chose_excluded & ~excluded.all(axis=0)):
        k = int(np.flatnonzero(chose_excluded & ~excluded.all(axis=0))[0])
        raise ValueError(
            f"select returned a masked vertex for trial {k} (masked vertices score +inf)"
        )
    return chose_excluded


def _faster_transpose(transposes, R2):
    """The transposed sparse matrix whose product ``X^T R2`` took the least time (one each).

    Both are the same matrix; scipy's CSR and CSC kernels add the terms of each entry of
    ``X^T R2`` in the same order (rows of ``X`` ascending, canonical format), so the products
    are equal bit for bit (``tests/unit/optim/test_frank_wolfe_sparse.py``) and the choice
    changes the running time only: on Dorothea (800 x 88119) the CSC kernel takes half
    the time of the CSR one for ``K = 1`` and twice as long for ``K = 20``.
    """
    seconds = []
    for X_T in transposes:
        X_T @ R2  # warm-up: brings this format's arrays into cache
        start = time.perf_counter()
        X_T @ R2
        seconds.append(time.perf_counter() - start)
    return transposes[int(np.argmin(seconds))]


def _subtract_predictor(X, Z_flat, removed):
    """``Z_flat -= X @ removed`` for a mostly-zero ``removed`` (``(p, C*K)``): the weights a
    mask set to zero leave the linear predictor, through the columns of ``X`` they sit on
    (``O(n r C K)`` for ``r`` such columns)."""
    rows = np.flatnonzero(removed.any(axis=1))
    Z_flat -= np.asarray(X[:, rows] @ removed[rows])


def _add_scaled_columns(X, Z_flat, features, targets, coef):
    """``Z_flat[:, targets[k]] += coef[k] * X[:, features[k]]`` for all trials ``k`` at once
    (``targets`` None: column ``k`` of ``Z_flat`` for trial ``k``, every column in order).

    ``targets`` are distinct, so the fancy-indexed ``+=`` never adds twice to one entry
    (and CSC columns hold each row at most once, canonical format). With ``targets`` None a
    dense update adds in place, without the fancy-indexed read and write of ``Z_flat``: the
    same sums, 2.2 times faster for 20 trials on 20000 x 101.
    """
    if not sp.issparse(X):
        gathered = X[:, features]
        gathered *= coef
        if targets is None:
            Z_flat += gathered
        else:
            Z_flat[:, targets] += gathered
        return
    if targets is None:
        targets = np.arange(features.size)
    if features.size == 1:  # one trial: a slice of the CSC arrays
        start, end = X.indptr[features[0]], X.indptr[features[0] + 1]
        Z_flat[X.indices[start:end], targets[0]] += X.data[start:end] * coef[0]
        return
    starts = X.indptr[features]
    counts = X.indptr[features + 1] - starts
    owner = np.repeat(np.arange(features.size), counts)
    offsets = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    positions = np.arange(owner.size) + offsets
    Z_flat[X.indices[positions], targets[owner]] += X.data[positions] * coef[owner]
