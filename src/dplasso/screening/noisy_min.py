r"""One private screening round that screens at most one coordinate: report-noisy-min [ours].

A reconstruction of the weakened rule of the authors' sequel (Khanna, Lu, Raff, CODASPY 2025:
"a per-iteration report-noisy-min selection to privately screen one coefficient at a
time"); the statistic, the candidates and the "screen nothing" option are ours.

At public weights ``W`` (the iterate of private Frank-Wolfe: earlier private releases), one
round releases, per trial, one index among ``p + 1`` candidates:

- candidate ``j < p`` ("screen coordinate ``j``"), only where :math:`w_j \ne 0` (a public
  mask: screening a zero coordinate changes nothing), with score :math:`s_j`;
- candidate ``p`` ("screen nothing"), with score :math:`s_\varnothing`;

chosen by report-noisy-min, :math:`\arg\min_c (s_c + \mathrm{Lap}(b))`. The winner, if it
is a coordinate, is set to zero (and may return in later Frank-Wolfe steps). Two statistics
(:data:`STATISTICS`), both from the safe rule of :mod:`dplasso.screening.rule` (feature
:math:`j` is zero at every optimum when :math:`u_j < T`):

``"gradient"``
    :math:`s_j = |g_j|`, :math:`s_\varnothing = \|g\|_\infty`: the rule with radius zero
    (its first-order part; at an optimum on the sphere every nonzero coordinate has
    :math:`|g_j| = \|g\|_\infty`). Each score moves by at most
    :math:`\Delta_g = 2c/n` between replace-one neighbours (lemma
    ``lem-gradient-sensitivity``).
``"rule"``
    :math:`s_j = u_j = |g_j| + r\|x_{(j)}\|_2`, :math:`s_\varnothing = T`: the safe rule's
    own numbers (dual radius, floor included). Each moves by at most :math:`\Delta_u`
    (lemma ``lem-screening-sensitivity``), about :math:`\sqrt n` times :math:`\Delta_g`.

Report-noisy-min needs the largest change of any *one* score, not the L2 norm of the
vector: the noise does not grow with :math:`\sqrt p`, which is what makes this rule weaker
and cheaper than P2's Algorithm 1 (:mod:`dplasso.screening.private`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dplasso.optim.validation import check_lam, check_X_bounded
from dplasso.privacy.accounting import PrivacyEvent
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator
from dplasso.privacy.selection import report_noisy_min, report_noisy_min_event, report_noisy_min_scale
from dplasso.screening.constants import check_screening_loss
from dplasso.screening.private import screening_sensitivity
from dplasso.screening.rule import column_norms, evaluate_rule, feasible_weights

__all__ = [
    "STATISTICS",
    "NoisyMinScreeningInfo",
    "NoisyMinScreeningSensitivity",
    "candidate_scores",
    "check_statistic",
    "noisy_min_screening_sensitivity",
    "private_screen_one",
    "release_noisy_min_screen",
]

STATISTICS = ("gradient", "rule")
"""The per-coordinate statistics of the one-coordinate rule (module docstring)."""


def check_statistic(statistic):
    """Return ``statistic`` if it is one of :data:`STATISTICS`, else raise ``ValueError``."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    return statistic


@dataclass(frozen=True)
class NoisyMinScreeningSensitivity:
    r"""Replace-one sensitivity of the candidate scores of one round.

    Attributes
    ----------
    n_samples, n_features : int
        ``n`` (public, equal for neighbours) and ``p``.
    lam : float
        L1-ball radius.
    statistic : str
        ``"gradient"`` or ``"rule"``.
    score : float
        :math:`\Delta`: the largest change of any one candidate score (``"gradient"``:
        :math:`\Delta_g`; ``"rule"``: :math:`\Delta_u`), the sensitivity report-noisy-min is
        calibrated to.
    relation : str
        :data:`dplasso.privacy.REPLACE_ONE`.
    """

    n_samples: int
    n_features: int
    lam: float
    statistic: str
    score: float
    relation: str = REPLACE_ONE


def noisy_min_screening_sensitivity(n_samples, n_features, lam, loss, *, statistic="gradient"):
    r"""Declared sensitivity of the candidate scores (lemma ``lem-noisy-min-screening``).

    Parameters
    ----------
    n_samples, n_features : int
        ``n`` and ``p`` (public).
    lam : float
        L1-ball radius, ``> 0``.
    loss : LogisticLoss or SquaredLoss
        The loss; a squared loss needs its public response bound ``y_bound``.
    statistic : {"gradient", "rule"}, default="gradient"

    Returns
    -------
    NoisyMinScreeningSensitivity
        ``score`` is :attr:`ScreeningSensitivity.gradient` (:math:`\Delta_g = 2c/n`) or
        :attr:`ScreeningSensitivity.coordinate` (:math:`\Delta_u`) of
        :func:`dplasso.screening.private.screening_sensitivity` (dual radius): the same
        lemmas bound every :math:`|g_j|`, :math:`\|g\|_\infty`, :math:`u_j` and :math:`T`.
    """
    check_statistic(statistic)
    base = screening_sensitivity(n_samples, n_features, lam, loss, radius_kind="dual")
    return NoisyMinScreeningSensitivity(
        n_samples=base.n_samples, n_features=base.n_features, lam=base.lam,
        statistic=statistic,
        score=base.gradient if statistic == "gradient" else base.coordinate,
    )


def candidate_scores(X, y, W, lam, loss, statistic, *, gradient=None, col_norms=None):
    r"""The ``p + 1`` candidate scores of each trial (exact; never released as such).

    Parameters
    ----------
    X, y, W, lam, loss
        Validated inputs (:func:`private_screen_one`); ``W`` of shape ``(p, K)`` feasible.
    statistic : {"gradient", "rule"}
    gradient : ndarray of shape (p, K), optional
        :math:`\nabla L(W)` when the caller has it (the Frank-Wolfe engine does); computed
        otherwise. Used by ``"gradient"`` only.
    col_norms : ndarray of shape (p,), optional
        Column norms of ``X`` (``"rule"`` only; computed when omitted).

    Returns
    -------
    ndarray of shape (p + 1, K)
        Row ``j < p``: :math:`s_j` where :math:`w_j \ne 0`, ``+inf`` elsewhere (not a
        candidate); row ``p``: :math:`s_\varnothing`, always finite.
    """
    n_features = W.shape[0]
    if statistic == "gradient":
        if gradient is None:
            gradient = loss.gradient(X, y, W)
        per_coordinate = np.abs(gradient)
        nothing = per_coordinate.max(axis=0)
    else:
        exact = evaluate_rule(X, y, W, lam, loss,
                              column_norms(X) if col_norms is None else col_norms)
        per_coordinate, nothing = exact.statistic, exact.threshold
    scores = np.empty((n_features + 1, W.shape[1]))
    np.copyto(scores[:n_features], np.where(W != 0, per_coordinate, np.inf))
    scores[n_features] = nothing
    return scores


@dataclass(frozen=True)
class NoisyMinScreeningInfo:
    r"""What one round released, and how.

    Attributes
    ----------
    chosen : ndarray of int of shape (K,)
        The winning candidate per trial: a coordinate ``j < p`` (screened) or ``p``
        (nothing screened).
    scale : float
        The Laplace scale :math:`b = 2\Delta/\varepsilon`.
    sensitivity : NoisyMinScreeningSensitivity
    epsilon : float
        The per-trial guarantee of this release (pure DP).
    event : PrivacyEvent
    """

    chosen: np.ndarray
    scale: float
    sensitivity: NoisyMinScreeningSensitivity
    epsilon: float
    event: PrivacyEvent


def release_noisy_min_screen(X, y, W, lam, loss, sensitivity, epsilon, rng, *, gradient=None,
                             col_norms=None):
    """One round's release on inputs already validated: the candidate scores and report-noisy-min.

    Used by :func:`private_screen_one`, by the Frank-Wolfe screening hook
    (:class:`dplasso.screening.iterative.NoisyMinScreeningCallback`) and by the audits;
    arguments as in :func:`private_screen_one` and :func:`candidate_scores`, with
    ``sensitivity`` from :func:`noisy_min_screening_sensitivity` (its ``statistic`` picks the
    scores) and ``epsilon`` this round's.

    Returns
    -------
    mask : ndarray of bool of shape (p, K)
        The screened coordinate of each trial (at most one True per column).
    info : NoisyMinScreeningInfo
    """
    scores = candidate_scores(X, y, W, lam, loss, sensitivity.statistic, gradient=gradient,
                              col_norms=col_norms)
    scale = report_noisy_min_scale(sensitivity.score, epsilon)
    chosen = report_noisy_min(scores, scale, rng)
    event = report_noisy_min_event(
        sensitivity.score, scale,
        note=(f"one-coordinate private screening ({sensitivity.statistic} statistic): "
              "report-noisy-min over the iterate's nonzero coordinates and 'screen nothing'; "
              "lem-noisy-min-screening"))
    n_features, n_trials = W.shape
    mask = np.zeros((n_features, n_trials), dtype=bool)
    screened = np.flatnonzero(chosen < n_features)
    mask[chosen[screened], screened] = True
    return mask, NoisyMinScreeningInfo(chosen=chosen, scale=scale, sensitivity=sensitivity,
                                       epsilon=event.epsilon, event=event)


def private_screen_one(X, y, W, lam, loss, epsilon, rng, *, statistic="gradient", ledger=None):
    r"""One private round screening at most one coordinate per trial, at public weights ``W``.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix, rows ``||x_i||_inf <= 1`` (checked); never densified.
    y : array-like of shape (n,)
        Labels ``{0, 1}`` (logistic) or responses with ``|y_i| <= loss.y_bound`` (squared).
    W : array-like of shape (p, K)
        Public weights inside the L1 ball (conditioned on, not protected); their nonzero
        coordinates are the candidates.
    lam : float
        L1-ball radius, ``> 0``.
    loss : LogisticLoss or SquaredLoss
        The loss; a squared loss must carry ``y_bound``.
    epsilon : float
        ``> 0``: this round's epsilon (per trial).
    rng : numpy.random.Generator, int or None
        Source of the noise.
    statistic : {"gradient", "rule"}, default="gradient"
        The candidate scores (module docstring).
    ledger : PrivacyLedger, optional
        If given, the release is recorded in it (one event, per trial).

    Returns
    -------
    mask : ndarray of bool of shape (p, K)
        The coordinate each trial screens (none where "screen nothing" wins).
    info : NoisyMinScreeningInfo
        The released choice, the Laplace scale, the declared sensitivity and the event.

    Notes
    -----
    - Neighbouring relation: replace-one. Data domain: :math:`\|x_k\|_\infty \le 1`, labels
      :math:`\{0,1\}` or :math:`|y_k| \le y_{\max}`; ``W`` public and feasible.
    - Sensitivity: every candidate score moves by at most :math:`\Delta`
      (:func:`noisy_min_screening_sensitivity`, lemma ``lem-noisy-min-screening``); the
      candidate set is fixed by the public ``W``.
    - Guarantee (theorem ``thm-noisy-min-screening``): report-noisy-min with
      :math:`\mathrm{Lap}(2\Delta/\varepsilon)` noise is pure :math:`\varepsilon`-DP per
      trial (non-monotone scores, :mod:`dplasso.privacy.selection`); the mask is
      post-processing. Not safe: noise can screen a coordinate of the optimum's support.
    - Numerics: idealised floats (the Laplace sampler; the scores are evaluated in floating
      point, the lemmas in real arithmetic).
    - Cost: ``"gradient"``: one ``X W`` and one ``X^T R`` (none inside Frank-Wolfe, which
      passes its gradient); ``"rule"``: as :func:`dplasso.screening.rule.screen`; plus
      ``(p + 1) K`` Laplace draws.
    """
    check_statistic(statistic)
    X = check_X_bounded(X)
    lam = check_lam(lam)
    check_screening_loss(loss)
    y = loss.check_target(y, X.shape[0])
    W = feasible_weights(W, lam, X.shape[1])
    sensitivity = noisy_min_screening_sensitivity(X.shape[0], X.shape[1], lam, loss,
                                                  statistic=statistic)
    mask, info = release_noisy_min_screen(X, y, W, lam, loss, sensitivity, epsilon,
                                          as_generator(rng))
    if ledger is not None:
        ledger.record(info.event)
    return mask, info
