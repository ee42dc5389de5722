r"""A private decision threshold: the offset of released weights, chosen by the exponential mechanism.

Private Frank-Wolfe rarely selects the intercept coordinate, so a private model often ranks
well and still predicts one class. This release fixes the threshold after the weights are
released, with its own share :math:`\varepsilon_b` of the budget.

**Binary.** Given released weights :math:`w` (the intercept coordinate included) and rows of
the design :math:`x_i` (the constant column included), the scores :math:`s_i = x_i^\top w` lie
in :math:`[-R, R]` with :math:`R = \|w\|_1` (rows obey :math:`\|x_i\|_\infty \le 1`). The
candidates are a public grid of ``G`` offsets :math:`g_1 < \dots < g_G` spread evenly over
:math:`[-R, R]` (:data:`THRESHOLD_GRID_SIZE`; the grid depends on the released :math:`w`
only), and the utility of :math:`g` is the number of training rows it classifies correctly,

.. math:: u(g) = \#\{i : y_i = 1,\ s_i + g > 0\} + \#\{i : y_i = 0,\ s_i + g \le 0\}.

The release draws :math:`g` with probability :math:`\propto \exp(\varepsilon_b u(g)/2)`.

**More classes.** One exponential mechanism at :math:`\varepsilon_b` over the ``C G`` pairs
:math:`(c, g)`: class :math:`c` and an offset :math:`g` of a grid on :math:`[-2R, 2R]`,
:math:`R = \max_c \|w_c\|_1`. The pair adds :math:`g` to class :math:`c`'s intercept and
leaves the others; it is scored by the training rows the model then classifies correctly:
with :math:`d_{ic} = \max_{c' \ne c} s_{ic'} - s_{ic}` and :math:`a_{ic}` that maximiser
(first index on ties), row :math:`i` counts when :math:`y_i = c` and the shifted model predicts
:math:`c` (:math:`g > d_{ic}`, or :math:`g = d_{ic}` when every class of that largest other
score comes after :math:`c`: ``predict``'s ``argmax`` takes the first index on ties,
:func:`class_offset_utilities`), or when :math:`y_i = a_{ic} \ne c` and it does not. The
released offsets are zero but for the chosen class.

*Why one draw over all classes, not one round per class.* The exponential mechanism over
:math:`N` candidates at :math:`\varepsilon_0` returns, with probability :math:`1 - e^{-t}`, a
candidate within :math:`2(\ln N + t)/\varepsilon_0` rows of the best. ``C`` rounds at
:math:`\varepsilon_b/C`, one offset per class, miss by :math:`2C(\ln G + t)/\varepsilon_b`
rows in every round; one draw over the ``C G`` pairs by :math:`2(\ln(CG) + t)/\varepsilon_b`,
about ``C`` times less (public quantities only: ``n``, ``C``, ``G``, :math:`\varepsilon_b`).
Where :math:`n\varepsilon_b` is below :math:`2C\ln G` each round's excess bound exceeds the
``n`` rows, so the rounds guarantee nothing over random offsets, and random offsets on every
class move rows to wrong classes; the one draw moves at most one class, and its training
accuracy is within its excess of the best pair's (among them the pair nearest to no shift
and the pairs that send every row to one class).
The book's multinomial chapter measures the default estimator on the multiclass datasets.

**Privacy (replace-one).** Each row adds 0 or 1 to every utility through its own
:math:`(x_i, y_i)` and released quantities only, so replacing a row moves every utility by
at most 1 (in either direction): the exponential mechanism at scale
:math:`2/\varepsilon_b` is :math:`\varepsilon_b`-DP (McSherry & Talwar 2007). The weights it
reads are a released output, so the whole fit is the composition of the weights' release and
this one. The book's ``lemma-threshold`` states and proves it.
"""
from __future__ import annotations

import numpy as np

from dplasso.estimators.params import (
    check_choice,
    check_epsilon,
    check_fraction,
    check_total_epsilon,
)
from dplasso.privacy.accounting import basic_composition
from dplasso.privacy.selection import exponential_mechanism_event, exponential_mechanism_min
from dplasso.privacy.shares import split_share
from dplasso.privacy.ulps import nudge

__all__ = [
    "THRESHOLDS",
    "THRESHOLD_GRID_SIZE",
    "DEFAULT_THRESHOLD_FRACTION",
    "threshold_scale",
    "threshold_event",
    "offset_utilities",
    "chosen_offsets",
    "private_offsets",
    "class_offset_utilities",
    "model_scores",
    "split_threshold_budget",
    "release_threshold",
]

THRESHOLDS = ("private", "none")
"""``"private"``: release the offset with :func:`private_offsets`; ``"none"``: keep the
intercept coordinate of the private fit as it is (the behaviour before the threshold)."""

THRESHOLD_GRID_SIZE = 256
r"""Number ``G`` of candidate offsets. The exponential mechanism's excess is
:math:`2(\ln G + t)/\varepsilon_0` rows with probability :math:`1 - e^{-t}`, so the grid
size costs only its logarithm; 256 points put neighbouring candidates :math:`2R/255` apart,
finer than the score spread of any model in the book. Fixed in advance, not tuned."""

DEFAULT_THRESHOLD_FRACTION = 0.1
r"""Default share of an estimator's budget spent on the threshold.

Fixed in advance: the threshold is one number scored by a counting query, whose exponential
mechanism misses the best offset by about :math:`2\ln G/\varepsilon_b` rows, a few percent of
the rows once :math:`n\varepsilon` is in the hundreds, while the weights' excess risk grows
as :math:`\varepsilon_{\mathrm{FW}}^{-2/3}` (a tenth costs them a factor :math:`0.9^{-2/3} =
1.07`). The book's "Beyond P1" chapter measures its cost against other shares on P1's
synthetic family (:func:`dplasso.data.sparse_logistic_synthetic`), the only data it was
looked at on; it is never tuned on the datasets it is evaluated on."""


def threshold_scale(epsilon):
    r"""Temperature of the release: :math:`2/\varepsilon_b`, nudged up by ulps.

    The smallest float scale whose event the ledger composes (basic) to at most ``epsilon``
    in its own arithmetic.

    Raises
    ------
    RuntimeError
        If no scale within :data:`~dplasso.privacy.ulps.MAX_ULP_STEPS` ulps composes within
        ``epsilon`` (a mismatch between this formula and the ledger's map; names both).
    """
    epsilon = check_epsilon(epsilon, "epsilon_threshold")

    def composed(scale):
        return basic_composition([exponential_mechanism_event(1.0, scale)]).epsilon

    return nudge(2.0 / epsilon, lambda b: composed(b) <= epsilon, up=True,
                 what=f"scale/privacy-map mismatch: the threshold scale 2/{epsilon!r} =",
                 why=lambda b: (f"still composes to epsilon={composed(b)!r} > the target "
                                f"epsilon={epsilon!r}"))


def threshold_event(epsilon, n_classes):
    """Ledger event of one threshold release: one exponential mechanism, ``G`` offsets
    (binary) or ``C G`` (class, offset) pairs."""
    candidates = (f"{THRESHOLD_GRID_SIZE} public offsets" if n_classes == 2 else
                  f"{int(n_classes) * THRESHOLD_GRID_SIZE} public (class, offset) pairs")
    return exponential_mechanism_event(
        1.0, threshold_scale(epsilon),
        note=f"decision threshold: exponential mechanism over {candidates} scored by "
             "training accuracy (a count, sensitivity 1)")


_COUNT_BLOCK_ELEMENTS = 1 << 20
"""Values searched at once by :func:`_weighted_counts_below` (blocks of trials)."""


def _weighted_counts_below(values, weights, points, *, inclusive):
    r"""``out[j, k]`` = :math:`\sum_i w_{ik} [v_{ik} < p_{jk}]` (:math:`\le` if ``inclusive``).

    ``values`` and ``weights`` (each -1, 0 or 1) of shape ``(n, K)``; ``points`` of shape
    ``(G, K)``, ascending along axis 0. Exact. With more values than points, each trial's
    values of either sign are sorted and its points searched among them (:math:`O(n \log n)`
    per trial, the trials in turn); otherwise a binary search places every value among its
    trial's points and the weights are summed per place (:math:`O(n \log G + G)` per trial,
    vectorised across trials in blocks: the audits' many trials of a few rows).
    """
    n, n_trials = values.shape
    n_points = points.shape[0]
    out = np.empty((n_points, n_trials), dtype=np.int64)
    if n > n_points:
        side = "right" if inclusive else "left"
        for k, (trial, signs) in enumerate(zip(values.T, weights.T)):
            plus, minus = np.sort(trial[signs > 0]), np.sort(trial[signs < 0])
            out[:, k] = (np.searchsorted(plus, points[:, k], side=side)
                         - np.searchsorted(minus, points[:, k], side=side))
        return out
    step = max(1, _COUNT_BLOCK_ELEMENTS // n_points)
    for start in range(0, n_trials, step):
        trials = slice(start, start + step)
        block, block_points = values[:, trials], points[:, trials]
        width = block.shape[1]
        columns = np.broadcast_to(np.arange(width), block.shape)
        low = np.zeros(block.shape, dtype=np.intp)  # the place lies in [low, high]
        high = np.full(block.shape, n_points, dtype=np.intp)
        for _ in range(n_points.bit_length()):
            middle = (low + high) // 2
            point = block_points[np.minimum(middle, n_points - 1), columns]
            above = (point < block) if inclusive else (point <= block)
            above &= low < high
            high = np.where(above, high, middle)
            low = np.where(above, middle + 1, low)
        per_place = np.bincount((low * width + columns).ravel(),
                                weights=weights[:, trials].ravel(),
                                minlength=(n_points + 1) * width)
        out[:, trials] = np.cumsum(per_place.reshape(n_points + 1, width)[:n_points], axis=0)
    return out


def _binary_utilities(scores, y, grids):
    r"""``u`` of each grid offset: scores ``(n, K)``, labels ``{0, 1}``, grids ``(G, K)``
    ascending.

    Row ``i`` is right when :math:`s_i + g > 0` (label 1) or :math:`s_i + g \le 0` (label 0):
    :math:`u(g) = n_1 - \#\{y_i = 1, s_i \le -g\} + \#\{y_i = 0, s_i \le -g\}`.
    """
    positive = y == 1
    weights = np.broadcast_to(np.where(positive, -1, 1)[:, np.newaxis], scores.shape)
    below = _weighted_counts_below(scores, weights, -grids[::-1], inclusive=True)
    return int(positive.sum()) + below[::-1]


def offset_utilities(scores, y, *, radius, grid_size=THRESHOLD_GRID_SIZE):
    r"""The utility of every candidate offset (binary) or (class, offset) pair of ``K`` models.

    Parameters
    ----------
    scores, y, radius, grid_size
        As in :func:`private_offsets`.

    Returns
    -------
    utilities : ndarray of float64 of shape (G, K) or (C G, K)
        Correctly classified training rows at each candidate (pair :math:`(c, g_j)` at row
        ``c G + j``): counts, sensitivity 1 under replace-one.
    grids : ndarray of shape (G, K)
        Each trial's offsets: ``radius`` (binary) or twice it times
        ``linspace(-1, 1, G)``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y)
    radius = np.asarray(radius, dtype=np.float64)
    unit = np.linspace(-1.0, 1.0, grid_size)
    if scores.ndim == 2:
        grids = radius[np.newaxis, :] * unit[:, np.newaxis]  # (G, K)
        return _binary_utilities(scores, y, grids).astype(np.float64), grids
    n_classes, n_trials = scores.shape[1:]
    grids = 2.0 * radius[np.newaxis, :] * unit[:, np.newaxis]
    utilities = class_offset_utilities(scores, y, grids)  # pair (c, g) is row c G + g
    return utilities.reshape(n_classes * grid_size, n_trials).astype(np.float64), grids


def chosen_offsets(chosen, grids, n_classes):
    """The offsets of the chosen candidates (rows of :func:`offset_utilities`), ``(K,)``
    binary or ``(C, K)`` (zero but for the chosen class)."""
    trials = np.arange(grids.shape[1])
    if n_classes == 2:
        return grids[chosen, trials]
    grid_size = grids.shape[0]
    offsets = np.zeros((n_classes, grids.shape[1]))
    offsets[chosen // grid_size, trials] = grids[chosen % grid_size, trials]
    return offsets


def private_offsets(scores, y, *, radius, epsilon, rng, grid_size=THRESHOLD_GRID_SIZE):
    r"""Release the offsets of ``K`` models (module docstring), one draw per trial.

    Parameters
    ----------
    scores : ndarray of shape (n, K) or (n, C, K)
        Training scores :math:`x_i^\top w` of the released weights, the intercept
        coordinate included (binary, or one column per class).
    y : ndarray of int of shape (n,)
        Encoded training labels (``{0, 1}``, or ``0..C-1``).
    radius : ndarray of shape (K,)
        Public score bound of each trial: :math:`\|w\|_1` (binary) or
        :math:`\max_c \|w_c\|_1`, both computed from the released weights.
    epsilon : float
        Budget :math:`\varepsilon_b` of the release.
    rng : numpy.random.Generator
    grid_size : int, default=THRESHOLD_GRID_SIZE

    Returns
    -------
    ndarray of shape (K,) or (C, K)
        Offsets to add to each trial's intercept.

    Notes
    -----
    - Neighbouring relation: replace-one; ``scores`` and ``radius`` are functions of the
      released weights and of each row separately.
    - Sensitivity: every utility is a count, sensitivity 1 (proven, module docstring).
    - Guarantee: :math:`\varepsilon_b`-DP per trial (:func:`threshold_event`).
    - Numerics: idealised floats (the exponential mechanism's Gumbel sampler).
    - Cost: a sort of the ``n`` scores (``C`` sorts of ``n`` gaps) per trial, ``G``
      (``C G``) binary searches.
    """
    scale = threshold_scale(epsilon)
    utilities, grids = offset_utilities(scores, y, radius=radius, grid_size=grid_size)
    chosen = exponential_mechanism_min(-utilities, scale, rng)
    n_classes = 2 if np.ndim(scores) == 2 else np.shape(scores)[1]
    return chosen_offsets(chosen, grids, n_classes)


def class_offset_utilities(scores, y, grids):
    r"""Utility of every (class, offset) pair: the rows ``predict`` classifies correctly.

    The pair :math:`(c, g)` adds :math:`g` to class :math:`c`'s scores, and row :math:`i` is
    predicted as the first class of largest score (``numpy.argmax``, as
    :meth:`~dplasso.estimators.base.FrankWolfeClassifierBase.predict` breaks ties): class
    :math:`c` when :math:`s_{ic} + g > s_{ic'}` for every :math:`c' < c` and
    :math:`s_{ic} + g \ge s_{ic'}` for every :math:`c' > c`, that is when :math:`g` exceeds
    :math:`t_{ic} = \max(\max_{c' < c} s_{ic'} - s_{ic},\ \mathrm{pred}(\max_{c' > c} s_{ic'}
    - s_{ic}))` (``pred`` the next float down, so that :math:`g > \mathrm{pred}(d)` is
    :math:`g \ge d`); otherwise the first class of largest score among the others.

    Parameters
    ----------
    scores : ndarray of shape (n, C, K)
    y : ndarray of int of shape (n,)
    grids : ndarray of shape (G, K)
        Each trial's offsets.

    Returns
    -------
    ndarray of int64 of shape (C, G, K)
    """
    n_classes, n_trials = scores.shape[1:]
    utilities = np.empty((n_classes, grids.shape[0], n_trials), dtype=np.int64)
    by_class, before, before_class, after, after_class = _neighbouring_maxima(scores)
    for c in range(n_classes):
        # the first class of largest score among the others (numpy.argmax's rule)
        rival = np.where(before[c] >= after[c], before_class[c], after_class[c])
        below = before[c] - by_class[c]
        above = after[c] - by_class[c]
        gaps = np.maximum(below, np.nextafter(above, -np.inf))  # predicts c iff g > gap
        # Rows of class c are right once g > gap, rows of the rival's class until then.
        own = np.broadcast_to((y == c)[:, np.newaxis], gaps.shape)
        rivals = ~own & (y[:, np.newaxis] == rival)
        utilities[c] = rivals.sum(axis=0) + _weighted_counts_below(
            gaps, own.astype(np.int64) - rivals, grids, inclusive=False)
    return utilities


def _neighbouring_maxima(scores):
    """``scores`` ``(n, C, K)`` as ``(C, n, K)``, then for each class ``c``: the largest score
    among the classes before ``c`` and its first class, and the same after ``c`` (``-inf`` and
    0 when there are none), by running maxima over the classes, ``(C, n, K)`` each."""
    by_class = np.ascontiguousarray(np.moveaxis(scores, 1, 0))  # (C, n, K)
    before = np.full(by_class.shape, -np.inf)
    after = np.full(by_class.shape, -np.inf)
    before_class = np.zeros(by_class.shape, dtype=np.intp)
    after_class = np.zeros(by_class.shape, dtype=np.intp)
    n_classes = by_class.shape[0]
    for c in range(1, n_classes):
        higher = by_class[c - 1] > before[c - 1]  # strictly: a tie keeps the first class
        np.copyto(before[c], np.where(higher, by_class[c - 1], before[c - 1]))
        np.copyto(before_class[c], np.where(higher, c - 1, before_class[c - 1]))
    for c in range(n_classes - 2, -1, -1):
        at_least = by_class[c + 1] >= after[c + 1]  # a tie moves to the lower class
        np.copyto(after[c], np.where(at_least, by_class[c + 1], after[c + 1]))
        np.copyto(after_class[c], np.where(at_least, c + 1, after_class[c + 1]))
    return by_class, before, before_class, after, after_class


def split_threshold_budget(epsilon, threshold, threshold_fraction):
    r"""``(epsilon_threshold, epsilon_rest)``: :math:`(f_b\varepsilon, (1-f_b)\varepsilon)`,
    adding up to at most ``epsilon`` exactly (:func:`dplasso.privacy.shares.split_share`), or
    ``(0, epsilon)`` when ``threshold`` is ``"none"``; ``epsilon``, a fit's total budget, must
    lie in :data:`~dplasso.estimators.params.EPSILON_RANGE`."""
    epsilon = check_total_epsilon(epsilon)
    if check_choice(threshold, "threshold", THRESHOLDS) == "none":
        return 0.0, epsilon
    return split_share(epsilon, check_fraction(threshold_fraction, "threshold_fraction"))


def release_threshold(design, y, W, intercept, *, n_classes, epsilon, rng):
    """The intercepts of ``K`` released models moved by their released offsets.

    Parameters
    ----------
    design : ndarray or scipy.sparse matrix of shape (n, q)
        The fit's design: the ``p`` input columns, and the constant column last when the fit
        has an intercept coordinate (``q = p + 1``; then ``intercept`` is a released weight
        and enters the scores and the radius).
    y : ndarray of shape (n,)
        Encoded labels.
    W : ndarray of shape (p, K) or (p, C, K)
        Released weights of the input columns.
    intercept : ndarray of shape (K,) or (C, K)
        Released intercepts (zeros without an intercept coordinate).
    n_classes : int
    epsilon : float
        :math:`\\varepsilon_b`.
    rng : numpy.random.Generator

    Returns
    -------
    intercept : ndarray of shape (K,) or (C, K)
        ``intercept`` plus each trial's released offset.
    event : PrivacyEvent
        :func:`threshold_event`.
    """
    intercept = np.asarray(intercept, dtype=np.float64)
    scores, radius = model_scores(design, W, intercept)
    offsets = private_offsets(scores, y, radius=radius, epsilon=epsilon, rng=rng)
    return intercept + offsets, threshold_event(epsilon, n_classes)


def model_scores(design, W, intercept):
    r"""Training scores ``(n, K)`` or ``(n, C, K)`` of ``K`` released models and their public
    score bounds ``(K,)`` (:math:`\|w\|_1`, or :math:`\max_c \|w_c\|_1`); arguments as in
    :func:`release_threshold`."""
    W = np.asarray(W, dtype=np.float64)
    intercept = np.asarray(intercept, dtype=np.float64)
    W_full = np.concatenate([W, intercept[np.newaxis]]) if design.shape[1] > W.shape[0] else W
    if W_full.ndim == 2:
        return np.asarray(design @ W_full), np.abs(W_full).sum(axis=0)
    n_columns, n_cls, n_trials = W_full.shape
    scores = np.asarray(design @ W_full.reshape(n_columns, n_cls * n_trials))
    return scores.reshape(-1, n_cls, n_trials), np.abs(W_full).sum(axis=0).max(axis=0)
