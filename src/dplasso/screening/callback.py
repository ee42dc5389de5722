"""Screening inside the Frank-Wolfe engine: a callback for ``frank_wolfe(callback=...)``.

One engine, four switches (P2's experiments): the optimiser is private or not (its
selector), screening is private or not (this callback's ``private`` flag). Each round's
mask is returned to the engine, which sets those coordinates to zero; whether later steps
may select them again is the engine's ``mask_semantics`` (``"zero-and-may-return"``, P2's
reading, or ``"zero-and-exclude"``), not the callback's: the callback computes the same
masks under both, from whatever iterate the engine hands it.
"""
from __future__ import annotations

import numpy as np

from dplasso.optim.validation import check_lam, check_X_bounded
from dplasso.privacy.accounting import PrivacyLedger
from dplasso.privacy.rng import as_generator
from dplasso.screening.constants import check_screening_loss
from dplasso.screening.private import release_screening_statistic, screening_sensitivity
from dplasso.screening.rule import (
    RADIUS_KINDS,
    column_norms,
    evaluate_rule,
    feasible_weights,
)
from dplasso.screening.schedule import ScreeningSchedule

__all__ = ["ScreeningCallback", "make_screening_callback"]


class ScreeningCallback:
    """Callable ``callback(t, W, G, gap) -> mask or None`` for :func:`dplasso.optim.frank_wolfe`.

    Build it with :func:`make_screening_callback` (parameters documented there).

    Attributes
    ----------
    records : list of dict
        One entry per round and trial: ``t``, ``trial``, ``n_screened_round`` (this round's
        mask), ``n_screened`` (union so far: screened at least once), ``nnz`` (nonzero
        weights of the iterate the round sees) and ``nnz_kept`` (those the mask leaves
        nonzero), ``gap`` (the engine's exact Wolfe gap) when ``record_gap``, and, when
        ``w_true`` was given, ``n_screened_true_zero`` / ``n_screened_true_nonzero`` (union
        so far) and ``nnz_kept_true_nonzero``; non-private rounds add ``radius``, private
        rounds ``sigma``. Private screening records no gap by default: the exact gap is
        computed from the data and no ledger accounts for it.
    screened : ndarray of bool of shape (p, K) or None
        Union of the masks returned so far (under ``"zero-and-may-return"`` a screened
        coordinate may be nonzero again later).
    ledger : PrivacyLedger or None
        Private screening only: one event per round.
    """

    def __init__(self, X, y, lam, loss, schedule, *, private, epsilon, delta, rng, ledger,
                 w_true, radius_kind, record_gap=None):
        if not isinstance(schedule, ScreeningSchedule):
            raise TypeError(
                f"schedule must be a ScreeningSchedule, got {type(schedule).__name__}")
        if radius_kind not in RADIUS_KINDS:
            raise ValueError(f"radius_kind must be one of {RADIUS_KINDS}, got {radius_kind!r}")
        self._X = check_X_bounded(X)
        self._lam = check_lam(lam)
        check_screening_loss(loss)
        self._loss = loss
        self._y = loss.check_target(y, self._X.shape[0])
        self._col_norms = column_norms(self._X)
        self._schedule = schedule
        self._radius_kind = radius_kind
        self._private = bool(private)
        self._record_gap = not self._private if record_gap is None else bool(record_gap)
        if self._private:
            if epsilon is None or delta is None:
                raise ValueError("private screening needs epsilon and delta (the total budget)")
            self._round_epsilon, self._round_delta = schedule.round_budget(epsilon, delta)
            self._sensitivity = screening_sensitivity(
                *self._X.shape, self._lam, loss, radius_kind=radius_kind)
            self._rng = as_generator(rng)
            self.ledger = PrivacyLedger() if ledger is None else ledger
        else:
            if epsilon is not None or delta is not None or ledger is not None:
                raise ValueError("epsilon, delta and ledger apply to private=True only")
            self.ledger = None
        self._w_true = None if w_true is None else self._check_w_true(w_true)
        self.records = []
        self.screened = None

    def _check_w_true(self, w_true):
        w_true = np.asarray(w_true, dtype=np.float64)
        p = self._X.shape[1]
        if w_true.ndim == 1:
            w_true = w_true[:, np.newaxis]
        if w_true.ndim != 2 or w_true.shape[0] != p:
            raise ValueError(f"w_true must have shape ({p},) or ({p}, K), got {w_true.shape}")
        return w_true != 0

    wants_objective = True
    """The engine passes its loss values (``objective=``), so a round recomputes nothing."""

    def __call__(self, t, W, G, gap, objective=None):
        if not self._schedule.is_round(t):
            return None
        feasible = feasible_weights(W, self._lam, self._X.shape[1])
        # the engine's gradient and loss values are those of W; a W rescaled onto the ball
        # (rounding) gets its own
        given = {}
        if feasible is W:
            given = {"gradient": G}
            if objective is not None:
                given["objective"] = objective()
        W = feasible
        if self._private:
            mask, info = release_screening_statistic(
                self._X, self._y, W, self._lam, self._loss, self._col_norms,
                self._sensitivity, self._round_epsilon, self._round_delta, self._rng, **given)
            self.ledger.record(info.event)
            extra = {"sigma": np.full(W.shape[1], info.sigma)}
        else:
            result = evaluate_rule(self._X, self._y, W, self._lam, self._loss,
                                   self._col_norms, radius_kind=self._radius_kind, **given)
            mask = result.mask
            extra = {"radius": result.radius}
        self.screened = mask.copy() if self.screened is None else self.screened | mask
        self._record(t, gap, mask, W != 0, extra)
        return mask

    def _record(self, t, gap, mask, nonzero_weight, extra):
        kept = nonzero_weight & ~mask
        columns = {"gap": np.asarray(gap, dtype=np.float64)} if self._record_gap else {}
        columns.update({
            "n_screened_round": mask.sum(axis=0),
            "n_screened": self.screened.sum(axis=0),
            "nnz": nonzero_weight.sum(axis=0),
            "nnz_kept": kept.sum(axis=0),
            **extra,
        })
        if self._w_true is not None:
            nonzero = np.broadcast_to(self._w_true, self.screened.shape)
            columns["n_screened_true_zero"] = (self.screened & ~nonzero).sum(axis=0)
            columns["n_screened_true_nonzero"] = (self.screened & nonzero).sum(axis=0)
            columns["nnz_kept_true_nonzero"] = (kept & nonzero).sum(axis=0)
        for k in range(mask.shape[1]):
            self.records.append(
                {"t": int(t), "trial": k, **{name: values[k].item()
                                             for name, values in columns.items()}})


def make_screening_callback(X, y, lam, loss, schedule, private=False, epsilon=None,
                            delta=None, rng=None, ledger=None, *, w_true=None,
                            radius_kind="dual", record_gap=None):
    r"""Build the screening hook for ``frank_wolfe(..., callback=...)``.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        The design matrix the engine runs on (rows ``||x_i||_inf <= 1``).
    y : array-like of shape (n,)
        Its targets.
    lam : float
        L1-ball radius.
    loss : LogisticLoss or SquaredLoss
        The loss (squared: with ``y_bound`` for private screening).
    schedule : ScreeningSchedule
        When to screen; its ``n_iter`` should equal the engine's.
    private : bool, default=False
        Release the screening statistic through the Gaussian mechanism
        (:func:`dplasso.screening.private.private_screen`) instead of the exact rule.
    epsilon, delta : float, optional
        Total screening budget ``(epsilon_2, delta_2)`` (private only), split evenly over
        ``schedule.rounds`` rounds (basic composition: ``R`` rounds at
        ``(epsilon/R, delta/R)``).
    rng : numpy.random.Generator, int or None, default=None
        Noise source (private only).
    ledger : PrivacyLedger, optional
        Where each round's event is recorded (private only; a new ledger when omitted).
    w_true : array-like of shape (p,) or (p, K), optional
        True coefficients (synthetic experiments): the records then count screened true
        zeros and true nonzeros.
    radius_kind : {"dual", "primal"}, default="dual"
        Radius of the rule (and of the released statistic).
    record_gap : bool or None, default=None
        Keep the engine's exact Wolfe gap in ``records``. None: only for non-private
        screening. ``True`` with ``private=True`` is for diagnostics (P2's experiments):
        the gap is not private, so such records must not be released.

    Returns
    -------
    ScreeningCallback

    Notes
    -----
    Privacy of the whole pipeline: a private round conditions on the current iterate. In
    P2's Algorithm 1 the iterate comes from private Frank-Wolfe, so it is public given the
    earlier releases, and the screening rounds add ``(epsilon_2, delta_2)`` to the
    optimiser's ``(epsilon_1, delta_1)`` (basic composition). With a non-private optimiser
    (experiment B) the iterate itself is not private: that run is a diagnostic of the
    screening noise, not a private algorithm. Non-private screening (experiment A) releases
    exact data-dependent masks and is never private.
    """
    return ScreeningCallback(X, y, lam, loss, schedule, private=private, epsilon=epsilon,
                             delta=delta, rng=rng, ledger=ledger, w_true=w_true,
                             radius_kind=radius_kind, record_gap=record_gap)
