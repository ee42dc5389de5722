r"""Private Frank-Wolfe with one-coordinate private screening rounds [ours].

The whole algorithm (theorem ``thm-noisy-min-screening``): ``T`` private Frank-Wolfe steps
(report-noisy-min over the ``2p`` vertex scores, :mod:`dplasso.optim.frank_wolfe`), and
before every ``every``-th step one screening round
(:func:`dplasso.screening.noisy_min.release_noisy_min_screen`) that zeroes at most one
coordinate of the iterate; a screened coordinate may return in later steps
(``"zero-and-may-return"``, P2's reading). All ``T + R`` selections are pure-DP
report-noisy-min steps; their advanced composition with slack ``delta`` is the total
``(epsilon, delta)``.

**The budget split** is a public rule, :func:`plan_noisy_min_screening`'s ``share``: the
screening rounds get the share ``share`` of the composition's sum of squares
:math:`T\varepsilon_f^2 + R\varepsilon_s^2`, the steps the rest; ``"equal"`` gives every
selection the same :math:`\varepsilon_0` (share :math:`R/(T+R)`).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from dplasso.optim.frank_wolfe import frank_wolfe
from dplasso.optim.losses import LogisticLoss
from dplasso.optim.validation import check_lam, check_n_iter, check_X_bounded
from dplasso.privacy._validation import check_delta, check_positive
from dplasso.privacy.accounting import (
    PrivacyGuarantee,
    PrivacyLedger,
    advanced_composition,
    advanced_composition_epsilon,
)
from dplasso.privacy.calibration import fw_score_sensitivity
from dplasso.privacy.rng import as_generator
from dplasso.privacy.selection import (
    ReportNoisyMinSelector,
    report_noisy_min_event,
    report_noisy_min_scale,
)
from dplasso.privacy.ulps import MAX_ULP_STEPS
from dplasso.screening.constants import check_screening_loss
from dplasso.screening.noisy_min import (
    NoisyMinScreeningSensitivity,
    noisy_min_screening_sensitivity,
    release_noisy_min_screen,
)
from dplasso.screening.rule import feasible_weights
from dplasso.screening.schedule import ScreeningSchedule

__all__ = [
    "IterativeScreeningResult",
    "NoisyMinScreeningCallback",
    "NoisyMinScreeningPlan",
    "plan_noisy_min_screening",
    "private_frank_wolfe_screening",
]


def _check_share(share):
    if share == "equal":
        return share
    if (isinstance(share, bool) or not isinstance(share, numbers.Real)
            or not (math.isfinite(share) and 0.0 < share < 1.0)):
        raise ValueError(f"share must be 'equal' or a number in (0, 1), got {share!r}")
    return float(share)


def _fw_sensitivity(loss, lam, n_samples):
    if isinstance(loss, LogisticLoss):
        return fw_score_sensitivity("logistic", lam, n_samples)
    return fw_score_sensitivity("squared", lam, n_samples, y_bound=loss.y_bound)


@dataclass(frozen=True)
class NoisyMinScreeningPlan:
    r"""Everything public about one run: schedule, budget split, scales and events.

    Build it with :func:`plan_noisy_min_screening`.

    Attributes
    ----------
    epsilon, delta : float
        The total guarantee (advanced composition of all selections, slack ``delta``).
    schedule : ScreeningSchedule
        The screening rounds (``R = schedule.rounds``).
    share : float
        The screening rounds' share of :math:`T\varepsilon_f^2 + R\varepsilon_s^2`.
    fw_sensitivity : float
        :math:`\Delta_f`, the vertex scores'
        (:func:`dplasso.privacy.calibration.fw_score_sensitivity`).
    fw_epsilon, fw_scale : float
        Per step: :math:`\varepsilon_f` and the Laplace scale :math:`2\Delta_f/\varepsilon_f`.
    screen_sensitivity : NoisyMinScreeningSensitivity
        The candidate scores' (lemma ``lem-noisy-min-screening``).
    screen_epsilon, screen_scale : float
        Per round: :math:`\varepsilon_s` and :math:`2\Delta/\varepsilon_s`.
    """

    epsilon: float
    delta: float
    schedule: ScreeningSchedule
    share: float
    fw_sensitivity: float
    fw_epsilon: float
    fw_scale: float
    screen_sensitivity: NoisyMinScreeningSensitivity
    screen_epsilon: float
    screen_scale: float

    def selector(self):
        """The private Frank-Wolfe selector: report-noisy-min at :attr:`fw_scale`."""
        return ReportNoisyMinSelector(self.fw_scale)

    def fw_event(self):
        """Ledger event of the ``T`` Frank-Wolfe selections."""
        return report_noisy_min_event(
            self.fw_sensitivity, self.fw_scale, self.schedule.n_iter,
            note="private Frank-Wolfe vertex selections (report-noisy-min)")

    def events(self):
        """Every event a run records: the steps, then one per screening round."""
        round_event = report_noisy_min_event(self.screen_sensitivity.score, self.screen_scale)
        return [self.fw_event()] + [round_event] * self.schedule.rounds

    def guarantee(self) -> PrivacyGuarantee:
        """Advanced composition of :meth:`events` with slack ``delta``: at most
        ``(epsilon, delta)``."""
        return advanced_composition(self.events(), self.delta)

    def callback(self, X, y, lam, loss, rng, *, ledger=None, w_true=None):
        """The screening hook of one run (a :class:`NoisyMinScreeningCallback`)."""
        return NoisyMinScreeningCallback(X, y, lam, loss, self.schedule, self.screen_sensitivity,
                                         self.screen_epsilon, rng, ledger=ledger, w_true=w_true)


def _split_epsilons(epsilon, delta, n_iter, rounds, share):
    """Per-selection epsilons with ``R eps_s**2 = share * S`` and ``T eps_f**2 = (1 - share) S``,
    ``S`` the root of the advanced composition at ``epsilon``."""

    def parts(total):
        return math.sqrt((1.0 - share) * total / n_iter), math.sqrt(share * total / rounds)

    def excess(total):
        return advanced_composition_epsilon(parts(total), [n_iter, rounds], delta) - epsilon

    # the square-root term alone reaches epsilon at S = epsilon**2 / (2 ln(1/delta))
    high = epsilon**2 / (2.0 * math.log(1.0 / delta))
    return parts(brentq(excess, 0.0, high, xtol=1e-300, rtol=4 * 2.0**-52))


def plan_noisy_min_screening(n_samples, n_features, lam, loss, n_iter, epsilon, delta, *,
                             every, share="equal"):
    r"""The public plan of private Frank-Wolfe with one-coordinate screening rounds.

    Parameters
    ----------
    n_samples, n_features : int
        ``n`` and ``p`` (public).
    lam : float
        L1-ball radius, ``> 0``.
    loss : LogisticLoss or SquaredLoss
        The loss (squared: with its public ``y_bound``).
    n_iter : int
        Frank-Wolfe steps ``T``.
    epsilon : float
        Total ``> 0``.
    delta : float
        Total, in ``(0, 1)``: the slack of the advanced composition (every selection is pure).
    every : int
        A screening round before every ``every``-th step (:class:`ScreeningSchedule`).
    share : "equal" or float in (0, 1), default="equal"
        The rounds' share of the composition's sum of squares (module docstring).

    Returns
    -------
    NoisyMinScreeningPlan
        Its :meth:`~NoisyMinScreeningPlan.guarantee` is at most ``(epsilon, delta)`` in the
        ledger's own arithmetic.

    Raises
    ------
    ValueError
        On bad arguments.
    RuntimeError
        If lowering the per-selection epsilons by :data:`MAX_ULP_STEPS` ulps does not bring
        the composed total to ``epsilon`` (a calibration bug).

    Notes
    -----
    Everything here is public (``n``, ``p``, ``lam``, the loss and its bounds, ``T``, the
    schedule, the budget); no data are read.
    """
    check_screening_loss(loss)
    lam = check_lam(lam)
    n_iter = check_n_iter(n_iter)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_delta("delta", delta, allow_zero=False)
    share = _check_share(share)
    schedule = ScreeningSchedule(n_iter, every)
    rounds = schedule.rounds
    share = rounds / (n_iter + rounds) if share == "equal" else share
    sensitivity = noisy_min_screening_sensitivity(n_samples, n_features, lam, loss)
    fw_sensitivity = _fw_sensitivity(loss, lam, sensitivity.n_samples)
    fw_epsilon, screen_epsilon = _split_epsilons(epsilon, delta, n_iter, rounds, share)
    # Lowers both epsilons by one ulp a step, so not dplasso.privacy.ulps.nudge (one value).
    for _ in range(MAX_ULP_STEPS + 1):
        plan = NoisyMinScreeningPlan(
            epsilon=epsilon, delta=delta, schedule=schedule, share=share,
            fw_sensitivity=fw_sensitivity, fw_epsilon=fw_epsilon,
            fw_scale=report_noisy_min_scale(fw_sensitivity, fw_epsilon),
            screen_sensitivity=sensitivity, screen_epsilon=screen_epsilon,
            screen_scale=report_noisy_min_scale(sensitivity.score, screen_epsilon))
        composed = plan.guarantee().epsilon
        if composed <= epsilon:
            return plan
        fw_epsilon = math.nextafter(fw_epsilon, 0.0)
        screen_epsilon = math.nextafter(screen_epsilon, 0.0)
    raise RuntimeError(
        f"budget split mismatch: {MAX_ULP_STEPS} ulps below the split, the events still "
        f"compose to epsilon={composed!r} > the total epsilon={epsilon!r}")


class NoisyMinScreeningCallback:
    """Callable ``callback(t, W, G, gap) -> mask or None`` for :func:`dplasso.optim.frank_wolfe`.

    At each round of ``schedule`` it releases one choice per trial
    (:func:`~dplasso.screening.noisy_min.release_noisy_min_screen`, with the engine's gradient)
    and returns the screened coordinates as the mask; run the engine with
    ``mask_semantics="zero-and-may-return"``. Build it with
    :meth:`NoisyMinScreeningPlan.callback`.

    Attributes
    ----------
    records : list of dict
        One entry per round and trial: ``t``, ``trial``, ``screened`` (the coordinate, or
        -1), ``nnz`` (nonzero weights of the iterate the round sees), ``n_screened`` (union
        so far); with ``w_true``: ``n_screened_true_nonzero`` and ``n_screened_true_zero``
        (unions so far). No exact statistic is kept.
    screened : ndarray of bool of shape (p, K) or None
        Union of the masks returned so far.
    ledger : PrivacyLedger
        One event per round.
    """

    def __init__(self, X, y, lam, loss, schedule, sensitivity, epsilon, rng, *, ledger=None,
                 w_true=None):
        if not isinstance(schedule, ScreeningSchedule):
            raise TypeError(
                f"schedule must be a ScreeningSchedule, got {type(schedule).__name__}")
        if not isinstance(sensitivity, NoisyMinScreeningSensitivity):
            raise TypeError("sensitivity must be a NoisyMinScreeningSensitivity, got "
                            f"{type(sensitivity).__name__}")
        self._X = check_X_bounded(X)
        if self._X.shape != (sensitivity.n_samples, sensitivity.n_features):
            raise ValueError(f"X has shape {self._X.shape}, the sensitivity is for "
                             f"{(sensitivity.n_samples, sensitivity.n_features)}")
        self._lam = check_lam(lam)
        check_screening_loss(loss)
        self._loss = loss
        self._y = loss.check_target(y, self._X.shape[0])
        self._schedule = schedule
        self._sensitivity = sensitivity
        self._epsilon = check_positive("epsilon", epsilon)
        self._rng = as_generator(rng)
        self.ledger = PrivacyLedger() if ledger is None else ledger
        self._w_true = None
        if w_true is not None:
            w_true = np.asarray(w_true, dtype=np.float64)
            if w_true.shape != (self._X.shape[1],):
                raise ValueError(f"w_true must have shape ({self._X.shape[1]},), got "
                                 f"{w_true.shape}")
            self._w_true = (w_true != 0)[:, np.newaxis]
        self.records = []
        self.screened = None

    def __call__(self, t, W, G, gap):
        if not self._schedule.is_round(t):
            return None
        feasible = feasible_weights(W, self._lam, self._X.shape[1])
        G = G if feasible is W else None  # rescaled onto the ball: the gradient is recomputed
        W = feasible
        mask, info = release_noisy_min_screen(self._X, self._y, W, self._loss,
                                              self._sensitivity, self._epsilon, self._rng,
                                              gradient=G)
        self.ledger.record(info.event)
        self.screened = mask.copy() if self.screened is None else self.screened | mask
        columns = {"screened": np.where(info.chosen < W.shape[0], info.chosen, -1),
                   "nnz": np.count_nonzero(W, axis=0),
                   "n_screened": self.screened.sum(axis=0)}
        if self._w_true is not None:
            columns["n_screened_true_nonzero"] = (self.screened & self._w_true).sum(axis=0)
            columns["n_screened_true_zero"] = (self.screened & ~self._w_true).sum(axis=0)
        for k in range(W.shape[1]):
            self.records.append({"t": int(t), "trial": k,
                                 **{name: int(values[k]) for name, values in columns.items()}})
        return mask


@dataclass(frozen=True)
class IterativeScreeningResult:
    """Output of :func:`private_frank_wolfe_screening`.

    Attributes
    ----------
    W : ndarray of shape (p, K)
        The released weights, one column per trial.
    plan : NoisyMinScreeningPlan
        Schedule, split, scales.
    ledger : PrivacyLedger
        The steps' event and one event per screening round (per trial).
    guarantee : PrivacyGuarantee
        ``ledger.total("advanced", delta)``.
    screened : ndarray of bool of shape (p, K) or None
        Coordinates screened at least once (None if no round ran).
    records : list of dict
        The rounds (:attr:`NoisyMinScreeningCallback.records`).
    """

    W: np.ndarray
    plan: NoisyMinScreeningPlan
    ledger: PrivacyLedger
    guarantee: PrivacyGuarantee
    screened: np.ndarray | None
    records: list


def private_frank_wolfe_screening(X, y, lam, loss, n_iter, epsilon, delta, *, every,
                                  share="equal", n_trials=1,
                                  random_state=None, w_true=None):
    r"""Private Frank-Wolfe over the ``lam`` L1 ball with one-coordinate private screening.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix, rows ``||x_i||_inf <= 1`` (checked).
    y : array-like of shape (n,)
        Labels ``{0, 1}`` (logistic) or responses ``|y_i| <= loss.y_bound`` (squared).
    lam : float
        L1-ball radius, ``> 0``.
    loss : LogisticLoss or SquaredLoss
        The loss (squared: with its public ``y_bound``).
    n_iter : int
        Frank-Wolfe steps ``T``.
    epsilon, delta : float
        The total guarantee, per trial.
    every : int
        A screening round before every ``every``-th step.
    share : "equal" or float in (0, 1), default="equal"
        The screening rounds' share of the budget (:func:`plan_noisy_min_screening`).
    n_trials : int, default=1
        Independent runs ``K``, batched (one gradient product per step for all).
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the steps' and the rounds' noise (two independent streams).
    w_true : array-like of shape (p,), optional
        A reference support (synthetic truth, or a non-private solution) counted in the
        records; not private, never used by the algorithm.

    Returns
    -------
    IterativeScreeningResult

    Notes
    -----
    - Neighbouring relation: replace-one; data domain as
      :func:`dplasso.screening.private_screen_one`.
    - Guarantee (theorem ``thm-noisy-min-screening``): every step is
      :math:`\varepsilon_f`-DP report-noisy-min on scores of sensitivity :math:`\Delta_f`,
      every round :math:`\varepsilon_s`-DP (lemma ``lem-noisy-min-screening``); each
      conditions on the iterate, a post-processing of the earlier releases, so the
      ``T + R`` selections compose adaptively; advanced composition with slack ``delta``
      gives :attr:`IterativeScreeningResult.guarantee`, at most ``(epsilon, delta)``.
    - Semantics: ``"zero-and-may-return"``.
    - Cost: one ``X^T R`` per step; a round that zeroes a nonzero weight costs one more
      ``X^T R`` on the trials concerned (the gradient at the screened iterate).
    """
    X = check_X_bounded(X)
    plan = plan_noisy_min_screening(X.shape[0], X.shape[1], lam, loss, n_iter, epsilon, delta,
                                    every=every, share=share)
    fw_rng, screen_rng = (np.random.default_rng(s) for s in
                          np.random.SeedSequence(as_generator(random_state).integers(2**63))
                          .spawn(2))
    ledger = PrivacyLedger()
    ledger.record(plan.fw_event())
    callback = plan.callback(X, y, lam, loss, screen_rng, ledger=ledger, w_true=w_true)
    result = frank_wolfe(loss, X, y, lam, plan.schedule.n_iter, plan.selector(),
                         n_trials=n_trials, rng=fw_rng, callback=callback,
                         mask_semantics="zero-and-may-return", check_input=False)
    return IterativeScreeningResult(W=result.W, plan=plan, ledger=ledger,
                                    guarantee=ledger.total("advanced", plan.delta),
                                    screened=callback.screened, records=callback.records)
