r"""The default Sparsifier's last step: its size, its threshold and the constant, in one draw.

After private Frank-Wolfe has released its weights :math:`w` (the intercept :math:`b`
included), one exponential mechanism chooses the released model among public candidates:

- a **constant** classifier for each class :math:`c` (no feature weight; the model predicts
  :math:`c`), and
- for each public **size** :math:`k \in \{1, 2, 4, \dots\} \cup \{m\}`
  (:func:`joint_sizes`) and each **offset** :math:`g` of the threshold's public grid for
  the cut model (:func:`dplasso.estimators.threshold.offset_utilities`: 256 offsets over
  :math:`[-R_k, R_k]`, :math:`R_k = \|w^{(k)}\|_1`, or the :math:`256C` (class, offset)
  pairs), the model :math:`w^{(k)}` (the :math:`k` largest entries kept) with :math:`g`
  added to its intercept.

Every candidate is scored by the number of training rows it classifies correctly, a count
of sensitivity 1 under replace-one: the utilities read each row separately and otherwise
only released outputs and public sizes. The draw is the exponential mechanism with a
**public base measure** :math:`\pi`: candidate :math:`a` is drawn with probability
:math:`\propto \pi(a)\, e^{\varepsilon_j u(a)/2}`. The measure spreads mass
:math:`\rho_0 = e^{\beta + \varepsilon_j M/2}` evenly over the constants and
mass :math:`\rho_k = e^{-\alpha j}` evenly over the offsets of the :math:`j`-th size
(:math:`j = 0` for :math:`k = 1`):

- :math:`\beta + \varepsilon_j M/2` (:data:`CONSTANT_ODDS` :math:`\beta`;
  :func:`constant_log_odds`) is the constants' prior log-odds against the size-1 block, so
  a model is released only when its training accuracy beats the best constant's by about
  :math:`2\beta/\varepsilon_j + M` rows (never worse than a constant, up to that margin).
  The margin :math:`M = \gamma\sqrt{n}\,(\min(n\varepsilon_j, \bar\nu)/\nu)^a` rows
  (:func:`margin_rows`; :data:`CONSTANT_MARGIN` :math:`\gamma`, :data:`MARGIN_GROWTH`
  :math:`a`, :data:`MARGIN_SATURATION` :math:`\bar\nu`) follows the
  lead by which the best of many candidates fitted to labels that carry no signal beats
  the constant on the training rows by chance: about :math:`\sqrt{n}` rows (a gap that a
  margin fixed in rows leaves open as :math:`n` grows), more where Frank-Wolfe fits the
  training rows better (large :math:`n\varepsilon_j`);
- :math:`\alpha` (:data:`SIZE_DECAY`) makes each doubling of the size pay about
  :math:`2\alpha/\varepsilon_j` rows, so that with :math:`\alpha > 0` the smallest of sizes
  of equal accuracy is released. The design chose :math:`\alpha = 0`, every size block of
  equal mass: a decay toward small sizes left more of the synthetic family's cells behind
  the L2 reference (issue 47's yardstick), and without it the release still keeps few
  weights where few of them carry the training accuracy.

A public base measure does not change the privacy of the exponential mechanism (its log is
a public shift of every utility), so the draw is :math:`\varepsilon_j`-DP (the book's
``lemma-joint-release``).

**Its budget.** Of the budget left after the threshold's share, the release spends the
share :func:`joint_share` :math:`f = c/\sqrt{n\varepsilon}` (rounded to a tenth, in
:math:`[0.1, 0.8]`; :math:`c` is :data:`JOINT_SHARE_SCALE`): a public rule of the number of
rows (public under replace-one) and the budget. Where :math:`n\varepsilon` is small,
Frank-Wolfe's weights are mostly noise and the final choice, among them and the constants,
is worth more of the budget; where it is large, the weights are worth more. The five
constants :math:`c, \alpha, \beta, \gamma, a` were set on the synthetic family only, on the
weights the default releases (:mod:`dplasso.estimators.weights`;
``benchmarks/design_defaults.py``, the book's "Beyond P1" chapter): :math:`c, \alpha` by the
joint design, then :math:`\beta, \gamma, a` by the margin design, on the family and on
configurations whose labels carry no signal. Both rules rank candidates first by how few of
the family's cells they leave behind the L2 reference by more than half a point
(:func:`!dplasso.experiments.design.behind_reference`).
"""
from __future__ import annotations

import math

import numpy as np

from dplasso.estimators.private_count import count_scale, entry_ranks
from dplasso.estimators.threshold import (
    THRESHOLD_GRID_SIZE,
    chosen_offsets,
    model_scores,
    offset_utilities,
)
from dplasso.privacy.selection import exponential_mechanism_event, exponential_mechanism_min

__all__ = [
    "JOINT_SHARE_SCALE",
    "JOINT_SHARE_RANGE",
    "SIZE_DECAY",
    "CONSTANT_ODDS",
    "CONSTANT_MARGIN",
    "MARGIN_GROWTH",
    "MARGIN_REFERENCE",
    "MARGIN_SATURATION",
    "margin_rows",
    "constant_log_odds",
    "joint_share",
    "joint_sizes",
    "joint_base_measure",
    "joint_utilities",
    "joint_event",
    "release_size_and_threshold",
]

JOINT_SHARE_SCALE = 4.0
r""":math:`c`: the joint release's share is :math:`f = c/\sqrt{n\varepsilon}`
(:func:`joint_share`)."""

JOINT_SHARE_RANGE = (0.1, 0.8)
"""The smallest and largest share :func:`joint_share` gives (the design's grid ends)."""

SIZE_DECAY = 0.0
r""":math:`\alpha`: the base measure of the :math:`j`-th size block is :math:`e^{-\alpha j}`."""

CONSTANT_ODDS = 4.0
r""":math:`\beta`: the constants' log-odds against the size-1 block at :math:`n = 0`
(:func:`constant_log_odds`)."""

CONSTANT_MARGIN = 0.75
r""":math:`\gamma`: a model must beat the best constant by a margin of
:math:`\gamma\sqrt{n}\,(\min(n\varepsilon_j, \bar\nu)/\nu)^a` training rows
(:func:`margin_rows`)."""

MARGIN_GROWTH = 0.5
r""":math:`a`: how the margin grows with :math:`n\varepsilon_j` (:func:`margin_rows`)."""

MARGIN_REFERENCE = 400.0
r""":math:`\nu`: the :math:`n\varepsilon_j` at which the margin is :math:`\gamma\sqrt{n}` rows
whatever :math:`a` (within the synthetic family's range)."""

MARGIN_SATURATION = 16000.0
r""":math:`\bar\nu`: the margin stops growing with :math:`n\varepsilon_j` here, the first
thousand above the largest :math:`n\varepsilon_j` of the margin design's configurations
(15,200: 16,000 training rows at :math:`\varepsilon = 5`), so that no design cell is scored
past it. Beyond it the chance lead was not measured, and a growth without
bound would ask more rows than a model can win (at :math:`\varepsilon = 10^4` on 300 rows,
more than 300)."""


def joint_share(n_samples, epsilon, *, scale=JOINT_SHARE_SCALE):
    r"""The joint release's share :math:`f` of the budget left after the threshold's.

    :math:`c/\sqrt{n\varepsilon}` rounded to a tenth and kept in :data:`JOINT_SHARE_RANGE`;
    ``n_samples`` (the training rows, public under replace-one), ``epsilon`` (the fit's
    total budget) and ``scale`` :math:`c` are public, so the split is too.
    """
    low, high = JOINT_SHARE_RANGE
    share = round(scale / math.sqrt(n_samples * epsilon), 1)
    return float(min(high, max(low, share)))


def margin_rows(n_samples, epsilon, *, margin=CONSTANT_MARGIN, growth=MARGIN_GROWTH):
    r"""The margin :math:`M = \gamma\sqrt{n}\,(\min(n\varepsilon_j, \bar\nu)/\nu)^a` in
    training rows (:data:`MARGIN_REFERENCE` :math:`\nu`, :data:`MARGIN_SATURATION`
    :math:`\bar\nu`) for ``n_samples`` rows and the release's ``epsilon``
    :math:`\varepsilon_j`. The chance lead of a model fitted to labels without signal over
    the constant grows like :math:`\sqrt{n}` and, the better the weights fit the training
    rows (the larger :math:`n\varepsilon`), beyond it."""
    reach = min(n_samples * epsilon, MARGIN_SATURATION)
    return margin * math.sqrt(n_samples) * (reach / MARGIN_REFERENCE) ** growth


def constant_log_odds(n_samples, epsilon, *, odds=CONSTANT_ODDS, margin=CONSTANT_MARGIN,
                      growth=MARGIN_GROWTH):
    r"""The constants' log-odds :math:`\beta + M/s` against the size-1 block,
    :math:`s = 2/\varepsilon_j` (:func:`dplasso.estimators.private_count.count_scale`),
    :math:`M` the :func:`margin_rows`: a model must beat the best constant by about
    :math:`2\beta/\varepsilon_j + M` training rows. Public: ``n_samples`` (under
    replace-one), ``epsilon`` :math:`\varepsilon_j` and the constants.
    """
    rows = margin_rows(n_samples, epsilon, margin=margin, growth=growth)
    return float(odds + rows / count_scale(epsilon))


def joint_sizes(n_countable):
    """The public sizes of the model candidates: powers of two below ``m``, and ``m``."""
    n_countable = int(n_countable)
    powers = 2 ** np.arange(int(math.log2(n_countable)) + 1)
    return np.unique(np.append(powers[powers < n_countable], n_countable)).astype(np.int64)


def joint_base_measure(n_sizes, block, n_classes, *, size_decay=SIZE_DECAY,
                       constant_odds=CONSTANT_ODDS):
    r"""Log base measure :math:`\ln\pi` of every candidate, shape ``(C + S B,)``.

    The ``C`` constants first, then the ``B`` offsets (or pairs) of each of the ``S`` sizes
    in order; each block's mass (module docstring) is spread evenly over its candidates and
    the whole is normalised. Public: ``S``, ``B``, ``C`` and the two constants.
    """
    log_mass = np.concatenate([[constant_odds], -size_decay * np.arange(n_sizes)])
    counts = np.concatenate([[n_classes], np.full(n_sizes, block)])
    log_pi = np.repeat(log_mass - np.log(counts), counts)
    return log_pi - np.logaddexp.reduce(log_pi)


def joint_utilities(design, y, W, intercept, *, n_classes, grid_size=THRESHOLD_GRID_SIZE):
    r"""Utility of every candidate of ``K`` released models (module docstring).

    Parameters
    ----------
    design : ndarray or scipy.sparse matrix of shape (n, q)
        The fit's design (the constant column last with an intercept coordinate).
    y : ndarray of shape (n,)
        Encoded labels.
    W : ndarray of shape (p, K) or (p, C, K)
        Released weights of the input columns.
    intercept : ndarray of shape (K,) or (C, K)
    n_classes : int
    grid_size : int, default=THRESHOLD_GRID_SIZE

    Returns
    -------
    utilities : ndarray of float64 of shape (C + S B, K)
        Correct training rows of each candidate (counts, sensitivity 1), in the order of
        :func:`joint_base_measure`.
    grids : ndarray of shape (S, G, K)
        The offset grid of each size's cut model.
    """
    W = np.asarray(W, dtype=np.float64)
    intercept = np.asarray(intercept, dtype=np.float64)
    y = np.asarray(y)
    n_trials = W.shape[-1]
    ranks = entry_ranks(W)
    sizes = joint_sizes(ranks.shape[0])
    constants = np.repeat(np.bincount(y, minlength=n_classes)[:, np.newaxis].astype(
        np.float64), n_trials, axis=1)
    blocks, grids = [constants], []
    for k in sizes:
        cut = np.where(ranks < k, W.reshape(ranks.shape), 0.0).reshape(W.shape)
        scores, radius = model_scores(design, cut, intercept)
        utilities, grid = offset_utilities(scores, y, radius=radius, grid_size=grid_size)
        blocks.append(utilities)
        grids.append(grid)
    return np.concatenate(blocks), np.stack(grids)


def joint_event(epsilon, n_candidates):
    """Ledger event of one joint release."""
    return exponential_mechanism_event(
        1.0, count_scale(epsilon),
        note=f"Sparsifier model: size, threshold or a constant, one draw among "
             f"{n_candidates} public candidates by the exponential mechanism with a public "
             "base measure, scored by training accuracy (a count, sensitivity 1)")


def release_size_and_threshold(design, y, W, intercept, *, n_classes, epsilon, rng,
                               size_decay=SIZE_DECAY, constant_odds=CONSTANT_ODDS,
                               constant_margin=CONSTANT_MARGIN, margin_growth=MARGIN_GROWTH):
    r"""Release each trial's model: its size, its intercept, or a constant (one draw).

    Parameters
    ----------
    design, y, W, intercept, n_classes
        As in :func:`joint_utilities`.
    epsilon : float
        :math:`\varepsilon_j` of one release.
    rng : numpy.random.Generator
    size_decay, constant_odds, constant_margin, margin_growth : float
        :math:`\alpha, \beta, \gamma, a` (public; :func:`joint_base_measure`,
        :func:`constant_log_odds` of the ``n`` rows of ``y``).

    Returns
    -------
    W : ndarray, shape of ``W``
        The released weights: the chosen size's cut, or zeros for a constant.
    intercept : ndarray, shape of ``intercept``
        The released intercepts: the cut model's plus its offset; for the constant class
        :math:`c`, :math:`\pm 1` (binary) or the indicator of :math:`c`.
    sizes : ndarray of int64 of shape (K,)
        The released sizes, 0 for a constant.
    event : PrivacyEvent
        :func:`joint_event`.

    Notes
    -----
    - Neighbouring relation: replace-one; the candidates depend on released outputs and
      public sizes only.
    - Sensitivity: every utility is a count, 1 (proven, the book's ``lemma-joint-release``).
    - Guarantee: :math:`\varepsilon_j`-DP per trial (a public base measure is a public shift
      of the utilities).
    - Numerics: idealised floats (Gumbel sampler).
    - Cost: one product of the design with the cut weights and the threshold's sorts per
      candidate size (vectorised over trials).
    """
    W = np.asarray(W, dtype=np.float64)
    intercept = np.asarray(intercept, dtype=np.float64)
    n_trials = W.shape[-1]
    utilities, grids = joint_utilities(design, y, W, intercept, n_classes=n_classes)
    n_sizes, _, _ = grids.shape
    block = (utilities.shape[0] - n_classes) // n_sizes
    odds = constant_log_odds(np.asarray(y).size, epsilon, odds=constant_odds,
                             margin=constant_margin, growth=margin_growth)
    log_pi = joint_base_measure(n_sizes, block, n_classes, size_decay=size_decay,
                                constant_odds=odds)
    scale = count_scale(epsilon)
    chosen = exponential_mechanism_min(-(utilities + scale * log_pi[:, np.newaxis]), scale,
                                       rng)
    sizes = joint_sizes(entry_ranks(W).shape[0])
    constant = chosen < n_classes
    size_index = np.where(constant, 0, (chosen - n_classes) // block)
    within = np.where(constant, 0, (chosen - n_classes) % block)
    released_sizes = np.where(constant, 0, sizes[size_index]).astype(np.int64)
    ranks = entry_ranks(W)
    W_out = np.where(ranks < released_sizes, W.reshape(ranks.shape), 0.0).reshape(W.shape)
    trials = np.arange(n_trials)
    offsets = chosen_offsets(within, grids[size_index, :, trials].T, n_classes)
    intercept_out = intercept + offsets
    if n_classes == 2:
        intercept_out = np.where(constant, 2.0 * chosen - 1.0, intercept_out)
    else:
        intercept_out[:, constant] = 0.0
        intercept_out[chosen[constant], np.flatnonzero(constant)] = 1.0
    return (W_out, intercept_out, released_sizes,
            joint_event(epsilon, utilities.shape[0]))
