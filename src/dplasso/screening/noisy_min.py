r"""One private screening round that screens at most one coordinate: report-noisy-min [ours].

A reconstruction of the weakened rule of the authors' sequel (Khanna, Lu, Raff, CODASPY 2025:
"a per-iteration report-noisy-min selection to privately screen one coefficient at a
time"); the statistic, the candidates and the "screen nothing" option are ours.

At public weights ``W`` (the iterate of private Frank-Wolfe: earlier private releases), one
round releases, per trial, one index among ``p + 1`` candidates:

- candidate ``j < p`` ("screen coordinate ``j``"), only where :math:`w_j \ne 0` (a public
  mask: screening a zero coordinate changes nothing), with score :math:`|g_j|`;
- candidate ``p`` ("screen nothing"), with score :math:`\|g\|_\infty`;

chosen by report-noisy-min, :math:`\arg\min_c (s_c + \mathrm{Lap}(b))`. The winner, if it
is a coordinate, is set to zero (and may return in later Frank-Wolfe steps).

The statistic is the safe rule of :mod:`dplasso.screening.rule` (feature :math:`j` is zero
at every optimum when :math:`|g_j| + r\|x_{(j)}\|_2 < \max_k(|g_k| - r\|x_{(k)}\|_2)`) with
radius :math:`r = 0`, its first-order part: at an optimum on the sphere every nonzero
coordinate has :math:`|g_j| = \|g\|_\infty`, so a nonzero coordinate whose gradient is
clearly below the largest is the one to drop. Each score moves by at most
:math:`\Delta_g = 2c/n` between replace-one neighbours (lemma ``lem-gradient-sensitivity``).
Keeping the radius would cost the radius term's sensitivity, :math:`\Delta_u \approx
\sqrt n\,\Delta_g` (lemma ``lem-screening-sensitivity``), and at private iterates the safe
radius is too large for the rule to certify anything (P2's experiment A).

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
from dplasso.privacy.selection import (
    report_noisy_min,
    report_noisy_min_event,
    report_noisy_min_scale,
)
from dplasso.screening.constants import check_screening_loss
from dplasso.screening.private import screening_sensitivity
from dplasso.screening.rule import feasible_weights

__all__ = [
    "NoisyMinScreeningInfo",
    "NoisyMinScreeningSensitivity",
    "candidate_scores",
    "noisy_min_screening_sensitivity",
    "private_screen_one",
    "release_noisy_min_screen",
]


@dataclass(frozen=True)
class NoisyMinScreeningSensitivity:
    r"""Replace-one sensitivity of the candidate scores of one round.

    Attributes
    ----------
    n_samples, n_features : int
        ``n`` (public, equal for neighbours) and ``p``.
    lam : float
        L1-ball radius.
    score : float
        :math:`\Delta_g = 2c/n`: the largest change of any one candidate score, the
        sensitivity report-noisy-min is calibrated to.
    relation : str
        :data:`dplasso.privacy.REPLACE_ONE`.
    """

    n_samples: int
    n_features: int
    lam: float
    score: float
    relation: str = REPLACE_ONE


def noisy_min_screening_sensitivity(n_samples, n_features, lam, loss):
    r"""Declared sensitivity of the candidate scores (lemma ``lem-noisy-min-screening``).

    Parameters
    ----------
    n_samples, n_features : int
        ``n`` and ``p`` (public).
    lam : float
        L1-ball radius, ``> 0``.
    loss : LogisticLoss or SquaredLoss
        The loss; a squared loss needs its public response bound ``y_bound``.

    Returns
    -------
    NoisyMinScreeningSensitivity
        ``score`` is :attr:`~dplasso.screening.private.ScreeningSensitivity.gradient` of
        :func:`dplasso.screening.private.screening_sensitivity`: :math:`\Delta_g = 2c/n`
        with :math:`c` the loss's residual bound, which bounds the change of every
        :math:`|g_j|` and of :math:`\|g\|_\infty` (lemma ``lem-gradient-sensitivity``).
    """
    base = screening_sensitivity(n_samples, n_features, lam, loss)
    return NoisyMinScreeningSensitivity(n_samples=base.n_samples, n_features=base.n_features,
                                        lam=base.lam, score=base.gradient)


def candidate_scores(W, gradient):
    r"""The ``p + 1`` candidate scores of each trial (exact; never released as such).

    Parameters
    ----------
    W : ndarray of shape (p, K)
        Public feasible weights.
    gradient : ndarray of shape (p, K)
        :math:`\nabla L(W)`.

    Returns
    -------
    ndarray of shape (p + 1, K)
        Row ``j < p``: :math:`|g_j|` where :math:`w_j \ne 0`, ``+inf`` elsewhere (not a
        candidate); row ``p``: :math:`\|g\|_\infty` ("screen nothing"), always finite.
    """
    magnitude = np.abs(gradient)
    scores = np.empty((W.shape[0] + 1, W.shape[1]))
    np.copyto(scores[:-1], np.where(W != 0, magnitude, np.inf))
    scores[-1] = magnitude.max(axis=0)
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
        The Laplace scale :math:`b = 2\Delta_g/\varepsilon`.
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


def release_noisy_min_screen(X, y, W, loss, sensitivity, epsilon, rng, *, gradient=None):
    """One round's release on inputs already validated: the candidate scores and report-noisy-min.

    Used by :func:`private_screen_one`, by the Frank-Wolfe screening hook
    (:class:`dplasso.screening.iterative.NoisyMinScreeningCallback`, which passes the
    engine's ``gradient`` at ``W``) and by the audits; arguments as in
    :func:`private_screen_one`, with ``sensitivity`` from
    :func:`noisy_min_screening_sensitivity` and ``epsilon`` this round's.

    Returns
    -------
    mask : ndarray of bool of shape (p, K)
        The screened coordinate of each trial (at most one True per column).
    info : NoisyMinScreeningInfo
    """
    if gradient is None:
        gradient = loss.gradient(X, y, W)
    scale = report_noisy_min_scale(sensitivity.score, epsilon)
    chosen = report_noisy_min(candidate_scores(W, gradient), scale, rng)
    event = report_noisy_min_event(
        sensitivity.score, scale,
        note=("one-coordinate private screening: report-noisy-min over |g_j| of the iterate's "
              "nonzero coordinates and ||g||_inf ('screen nothing'); lem-noisy-min-screening"))
    n_features, n_trials = W.shape
    mask = np.zeros((n_features, n_trials), dtype=bool)
    screened = np.flatnonzero(chosen < n_features)
    mask[chosen[screened], screened] = True
    return mask, NoisyMinScreeningInfo(chosen=chosen, scale=scale, sensitivity=sensitivity,
                                       epsilon=event.epsilon, event=event)


def private_screen_one(X, y, W, lam, loss, epsilon, rng, *, ledger=None):
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
    - Sensitivity: every candidate score moves by at most :math:`\Delta_g`
      (:func:`noisy_min_screening_sensitivity`, lemma ``lem-noisy-min-screening``); the
      candidate set is fixed by the public ``W``.
    - Guarantee (theorem ``thm-noisy-min-screening``): report-noisy-min with
      :math:`\mathrm{Lap}(2\Delta_g/\varepsilon)` noise is pure :math:`\varepsilon`-DP per
      trial (scores that may move in either direction, :mod:`dplasso.privacy.selection`);
      the mask is post-processing. Not safe: noise can screen a coordinate of the
      optimum's support.
    - Numerics: idealised floats (the Laplace sampler; the scores are evaluated in floating
      point, the lemma in real arithmetic).
    - Cost: one ``X W`` and one ``X^T R`` (none inside Frank-Wolfe, which passes its
      gradient), plus ``(p + 1) K`` Laplace draws.
    """
    X = check_X_bounded(X)
    lam = check_lam(lam)
    check_screening_loss(loss)
    y = loss.check_target(y, X.shape[0])
    W = feasible_weights(W, lam, X.shape[1])
    sensitivity = noisy_min_screening_sensitivity(X.shape[0], X.shape[1], lam, loss)
    mask, info = release_noisy_min_screen(X, y, W, loss, sensitivity, epsilon,
                                          as_generator(rng))
    if ledger is not None:
        ledger.record(info.event)
    return mask, info
