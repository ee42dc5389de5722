r"""Sparsifier counts that are private by proof and still carry signal.

P1's count, the support size of the non-private fit, has no small proven sensitivity (the
book's ``prop-count-sensitivity``: one row moves it from 1 to :math:`p`), so at its proven
sensitivity :math:`m` its noise is as wide as its range. Three designs avoid that:

**Accuracy** (:func:`accuracy_count`; budget :math:`\varepsilon_1`). After the private
Frank-Wolfe weights :math:`w` (and intercept :math:`b`) are released, the candidates are the
public sizes :math:`k \in \{1, 2, 4, \dots\} \cup \{m\}` (:func:`accuracy_count_sizes`), and
the utility of :math:`k` is the training accuracy, in rows, of the released model cut to its
:math:`k` largest entries, at its best threshold: with :math:`w^{(k)}` that cut,

.. math:: u(k) = \max_{t \in \mathbb R} \#\{i : [x_i^\top w^{(k)} + b > t] = y_i\}

(:func:`best_cut_accuracy`); for more classes, the argmax accuracy of :math:`W^{(k)}` (its
:math:`k` largest of the :math:`pC` entries) with the released intercepts. Every candidate
model is a function of released outputs and public sizes, so each count moves by at most 1
when one row is replaced, and so does their maximum over thresholds: :math:`u` has
sensitivity 1, and the exponential mechanism at scale :math:`2/\varepsilon_1` is
:math:`\varepsilon_1`-DP. It is the only
design whose count reads the labels, so the size it keeps is the one that predicts. The
book's ``lemma-accuracy-count`` proves it.

**Noise floor** (:func:`noise_floor_count`; no budget). Private Frank-Wolfe from zero after
``T`` steps of size :math:`\mu_t = 2/(t+2)` puts weight
:math:`a_t = 2\lambda(t+1)/((T+1)(T+2))` on the vertex chosen at step :math:`t`. Were the
scores pure noise, every step would pick one of the :math:`2q` vertices uniformly (``q``
coordinates, the intercept included). The count is the number of leading ranks :math:`r` at
which the released weights' :math:`r`-th largest magnitude exceeds the median :math:`r`-th
largest magnitude of that pure-noise run (:func:`noise_floor_profile`, computed by simulation
from ``T``, ``q`` and :math:`\lambda` alone, with a fixed seed). It reads the released
weights and public sizes only: post-processing, no budget, no sensitivity.

**Block median** (:func:`block_median_count`; budget :math:`\varepsilon_1`). Sample and
aggregate: the rows are split by position into ``B`` public blocks (row :math:`i` in block
:math:`i \bmod B`), each block's support size :math:`c_b` is the non-private count on that
block alone, and the release is the exponential mechanism over :math:`k \in \{1, \dots, m\}`
with utility :math:`u(k) = \min(\#\{b: c_b \le k\}, \#\{b: c_b \ge k\})` (largest at the
median). Replacing one row changes one block, hence one :math:`c_b` (arbitrarily), hence
each of the two counts by at most 1: :math:`u` has sensitivity 1, and the release is
:math:`\varepsilon_1`-DP. ``B`` follows from public ``n``, ``m`` and :math:`\varepsilon_1`
(:func:`block_count`). The book's ``lemma-block-median`` proves it.
"""
from __future__ import annotations

import collections
import functools
import hashlib
import math

import numpy as np
import scipy.sparse as sp

from dplasso.estimators.params import DEFAULT_COUNT_FRACTION, check_epsilon
from dplasso.optim.validation import check_lam, check_X_bounded
from dplasso.optim.working_set import solve_working_set_many
from dplasso.privacy.accounting import basic_composition
from dplasso.privacy.selection import exponential_mechanism_event, exponential_mechanism_min
from dplasso.privacy.ulps import nudge

__all__ = [
    "COUNTS",
    "DEFAULT_COUNT_FRACTIONS",
    "entry_ranks",
    "accuracy_count_sizes",
    "best_cut_accuracy",
    "accuracy_count_utilities",
    "accuracy_count_event",
    "accuracy_count",
    "NOISE_FLOOR_DRAWS",
    "MIN_BLOCK_ROWS",
    "noise_floor_profile",
    "noise_floor_count",
    "block_count",
    "block_support_sizes",
    "fit_support_sizes",
    "count_scale",
    "block_median_event",
    "block_median_count",
]

COUNTS = ("joint", "accuracy", "noise-floor", "block-median", "lasso-support")
"""The Sparsifier's count designs: the size released with the threshold and the constant in
one draw (:mod:`dplasso.estimators.joint_release`, the default), this module's three, and
P1's noisy non-private support size (:func:`dplasso.estimators.count.noisy_count`)."""

DEFAULT_COUNT_FRACTIONS = {"accuracy": 0.1,
                           "block-median": DEFAULT_COUNT_FRACTION,
                           "lasso-support": DEFAULT_COUNT_FRACTION}
r"""Default share :math:`f` of the budget (after the threshold's) of each count that spends,
but the joint release, whose share is a public rule of ``n`` and :math:`\varepsilon`
(:func:`dplasso.estimators.joint_release.joint_share`).

P1's count and the block median keep :data:`dplasso.estimators.params.DEFAULT_COUNT_FRACTION`
(a quarter). The accuracy count's exponential mechanism misses the best size by about
:math:`2\ln S/\varepsilon_1` rows among its ``S`` candidate sizes (a dozen or so), so it
needs less: a tenth, set on P1's synthetic family, where the book's "Beyond P1" chapter
measures it against 0.05 and 0.25 (``beyond-count-share``); never on the evaluated
datasets."""

NOISE_FLOOR_DRAWS = 400
"""Pure-noise runs behind :func:`noise_floor_profile` (its medians move by a few percent at
most between seeds)."""

_NOISE_FLOOR_SEED = 20230424
"""Fixed seed of the pure-noise simulation: the profile is a function of public sizes."""

MIN_BLOCK_ROWS = 10
"""Fewest rows a block of :func:`block_count` may have."""

_BLOCK_CONFIDENCE = 20.0
r"""The block rule's :math:`1/\beta`: with probability :math:`1 - \beta` the released count
lies between the blocks' lower and upper quartile (when ``B`` is not capped)."""

_BLOCK_TOL = 1e-8
_BLOCK_MAX_ITER = 20_000


@functools.lru_cache(maxsize=64)
def noise_floor_profile(n_iter, n_coordinates, lam):
    r"""Median sorted weight magnitudes of ``T`` pure-noise Frank-Wolfe steps.

    Parameters
    ----------
    n_iter : int
        Steps ``T`` (from zero, :math:`\mu_t = 2/(t+2)`, ``t = 1..T``).
    n_coordinates : int
        Coordinates ``q`` the steps choose among (both signs; intercept included).
    lam : float
        L1-ball radius.

    Returns
    -------
    ndarray of shape (T,)
        Entry ``r`` is the median, over :data:`NOISE_FLOOR_DRAWS` runs, of the run's
        ``(r+1)``-th largest :math:`|w_j|` (a run has at most ``T`` nonzeros). Read-only.
    """
    rng = np.random.default_rng(_NOISE_FLOOR_SEED)
    steps = np.arange(1, n_iter + 1)
    weights = 2.0 * lam * (steps + 1) / ((n_iter + 1) * (n_iter + 2))
    picks = rng.integers(0, n_coordinates, size=(NOISE_FLOOR_DRAWS, n_iter))
    signs = rng.integers(0, 2, size=(NOISE_FLOOR_DRAWS, n_iter)) * 2.0 - 1.0
    sorted_picks = np.sort(picks, axis=1)
    order = np.argsort(picks, axis=1, kind="stable")
    signed = np.take_along_axis(signs * weights, order, axis=1)
    magnitudes = np.zeros((NOISE_FLOOR_DRAWS, n_iter))
    for run in range(NOISE_FLOOR_DRAWS):  # sum the picks of each coordinate
        starts = np.flatnonzero(np.r_[True, np.diff(sorted_picks[run]) != 0])
        sums = np.abs(np.add.reduceat(signed[run], starts))
        magnitudes[run, :sums.size] = -np.sort(-sums)
    profile = np.median(magnitudes, axis=0)
    profile.flags.writeable = False
    return profile


def noise_floor_count(W, *, n_iter, n_coordinates, lam):
    r"""Each trial's count: leading ranks whose magnitude tops the pure-noise profile.

    Parameters
    ----------
    W : ndarray of shape (p, K) or (p, C, K)
        Released private Frank-Wolfe weights, intercept excluded (the entries of a weight
        matrix are ranked together).
    n_iter, n_coordinates, lam
        As in :func:`noise_floor_profile` (``n_coordinates`` counts the intercept).

    Returns
    -------
    ndarray of int64 of shape (K,)
        Values in ``[1, m]``, ``m`` the number of entries of one trial.

    Notes
    -----
    Post-processing of released weights and public sizes: no budget, no sensitivity
    (the book's ``lemma-noise-floor``).
    """
    W = np.asarray(W, dtype=np.float64)
    flat = np.abs(W.reshape(-1, W.shape[-1]))
    floor = noise_floor_profile(int(n_iter), int(n_coordinates), float(lam))
    ranked = -np.sort(-flat, axis=0)[:floor.size]
    below = ranked <= floor[:ranked.shape[0], np.newaxis]
    leading = np.where(below.any(axis=0), below.argmax(axis=0), ranked.shape[0])
    return np.clip(leading, 1, flat.shape[0]).astype(np.int64)


def block_count(n_samples, n_countable, epsilon):
    r"""Number ``B`` of blocks: :math:`\lceil 8(\ln m + \ln 20)/\varepsilon_1 \rceil`, capped.

    The exponential mechanism's utility at the released :math:`k` is, with probability
    :math:`1 - \beta`, within :math:`2(\ln m + \ln(1/\beta))/\varepsilon_1` of its largest
    value :math:`\approx B/2`; this ``B`` makes that gap at most :math:`B/4` (the release lies
    between the blocks' quartiles) at :math:`\beta = 1/20`. Capped at ``n //``
    :data:`MIN_BLOCK_ROWS` and at least 1. Public quantities only.
    """
    wanted = math.ceil(8.0 * (math.log(n_countable) + math.log(_BLOCK_CONFIDENCE)) / epsilon)
    return int(max(1, min(wanted, n_samples // MIN_BLOCK_ROWS)))


def _digest(*arrays):
    """A digest of the bytes, shapes and dtypes of dense or CSR/CSC arrays."""
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        parts = ((array.data, array.indices, array.indptr) if sp.issparse(array)
                 else (np.asarray(array),))
        for part in parts:
            digest.update(f"{part.dtype}{part.shape}{array.shape}".encode())
            digest.update(np.ascontiguousarray(part).view(np.uint8))
    return digest.hexdigest()


_BLOCK_SIZES_MEMO = collections.OrderedDict()
_BLOCK_SIZES_MEMO_SIZE = 64


def block_support_sizes(loss, design, y, lam, n_blocks, *, fit_intercept):
    """Non-private support size of each block (rows ``i`` with ``i % B == b``).

    Each block's fit is the Sparsifier's count problem (same loss, radius and design) on the
    block's rows, solved by the working-set solver to a relative gap ``1e-8`` (at most 20000
    iterations); any deterministic solver would do for privacy. Not private.

    A deterministic function of its arguments, so the last 64 results are kept, keyed by a
    digest of ``design`` and ``y`` and the other arguments: the fits of one dataset at other
    budgets or threshold treatments with the same ``B`` (capped at ``n // 10``, so usually
    the same) solve the blocks once. Returns a new array each call.
    """
    key = (type(loss).__name__, loss.n_classes, float(lam), int(n_blocks), bool(fit_intercept),
           _digest(design, y))
    sizes = _BLOCK_SIZES_MEMO.get(key)
    if sizes is None:
        sizes = _solve_block_sizes(loss, design, y, lam, n_blocks, fit_intercept=fit_intercept)
        _BLOCK_SIZES_MEMO[key] = sizes
        while len(_BLOCK_SIZES_MEMO) > _BLOCK_SIZES_MEMO_SIZE:
            _BLOCK_SIZES_MEMO.popitem(last=False)
    else:
        _BLOCK_SIZES_MEMO.move_to_end(key)
    return sizes.copy()


def _solve_block_sizes(loss, design, y, lam, n_blocks, *, fit_intercept):
    design = check_X_bounded(design)
    y = loss.check_target(y, design.shape[0])
    blocks = [np.arange(b, design.shape[0], n_blocks) for b in range(n_blocks)]
    return fit_support_sizes(loss, [(design[rows], y[rows]) for rows in blocks], lam,
                             fit_intercept=fit_intercept)


def fit_support_sizes(loss, problems, lam, *, fit_intercept):
    """Support size of the block fit of :func:`block_support_sizes` on each checked
    ``(design, y)`` of ``problems`` (a list of blocks, possibly of different datasets),
    solved together; ``(len(problems),)`` int64."""
    solutions = solve_working_set_many(loss, problems, check_lam(lam), tol=_BLOCK_TOL,
                                       max_iter=_BLOCK_MAX_ITER)
    return np.array([min(int(np.count_nonzero(s.w[:-1] if fit_intercept else s.w)),
                         (X.shape[1] - int(fit_intercept)) * loss.n_classes)
                     for s, (X, _) in zip(solutions, problems)], dtype=np.int64)


def count_scale(epsilon):
    r"""Temperature :math:`2/\varepsilon_1` of a count released by the exponential mechanism
    over a utility of sensitivity 1 (block median, accuracy), nudged up by ulps."""
    epsilon = check_epsilon(epsilon, "epsilon_count")

    def composed(scale):
        return basic_composition([exponential_mechanism_event(1.0, scale)]).epsilon

    return nudge(2.0 / epsilon, lambda b: composed(b) <= epsilon, up=True,
                 what=f"scale/privacy-map mismatch: the count scale 2/{epsilon!r} =",
                 why=lambda b: (f"still composes to epsilon={composed(b)!r} > the target "
                                f"epsilon={epsilon!r}"))


def block_median_event(epsilon, n_blocks):
    """Ledger event of one block-median release."""
    return exponential_mechanism_event(
        1.0, count_scale(epsilon),
        note=f"Sparsifier count: private median of {n_blocks} disjoint blocks' support sizes "
             "(exponential mechanism, rank utility of sensitivity 1)")


def block_median_count(sizes, *, n_countable, epsilon, rng, n_trials):
    r"""Release ``K`` private medians of the block support sizes.

    Parameters
    ----------
    sizes : ndarray of int of shape (B,)
        :func:`block_support_sizes`.
    n_countable : int
        ``m``: candidates are ``1..m``.
    epsilon : float
        :math:`\varepsilon_1` of one release.
    rng : numpy.random.Generator
    n_trials : int
        Independent releases ``K``.

    Returns
    -------
    ndarray of int64 of shape (K,)

    Notes
    -----
    - Neighbouring relation: replace-one (one row, one block, one size).
    - Sensitivity: the rank utility :math:`u(k)`, 1 (proven, module docstring).
    - Guarantee: :math:`\varepsilon_1`-DP per release (:func:`block_median_event`).
    - Numerics: idealised floats (Gumbel sampler).
    """
    candidates = np.arange(1, n_countable + 1)
    sizes = np.sort(np.asarray(sizes))
    at_most = np.searchsorted(sizes, candidates, side="right")
    at_least = sizes.size - np.searchsorted(sizes, candidates, side="left")
    utility = np.minimum(at_most, at_least).astype(np.float64)
    scores = np.repeat(-utility[:, np.newaxis], n_trials, axis=1)
    chosen = exponential_mechanism_min(scores, count_scale(epsilon), rng)
    return candidates[chosen].astype(np.int64)


def entry_ranks(W):
    """Rank of each entry's magnitude within its trial, shape ``(m, K)``.

    ``W`` is ``(p, K)`` or ``(p, C, K)`` (a weight matrix's entries rank together); rank 0
    is the largest magnitude, ties go to the lower flattened index (a stable sort).
    """
    W = np.asarray(W, dtype=np.float64)
    flat = np.abs(W.reshape(-1, W.shape[-1]))
    order = np.argsort(-flat, axis=0, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(flat.shape[0])[:, np.newaxis], axis=0)
    return ranks


def accuracy_count_sizes(n_countable):
    """The accuracy count's public candidates: the powers of two below ``m``, and ``m``."""
    n_countable = int(n_countable)
    powers = 2 ** np.arange(int(math.log2(n_countable)) + 1)
    return np.unique(np.append(powers[powers < n_countable], n_countable)).astype(np.int64)


def best_cut_accuracy(scores, y):
    r"""Each column's training accuracy at its best threshold, in rows, shape ``(K,)``.

    ``scores`` ``(n, K)`` and labels ``y`` in ``{0, 1}``: the largest, over every
    threshold :math:`t`, of :math:`\#\{i : [s_i > t] = y_i\}` (rows of equal score fall on
    the same side). One sort per column, vectorised over the columns.
    """
    order = np.argsort(scores, axis=0, kind="stable")
    ranked = np.take_along_axis(scores, order, axis=0)
    positive = (np.asarray(y) == 1)[order]
    zeros = np.zeros((1, scores.shape[1]), dtype=np.int64)
    negatives_below = np.concatenate([zeros, np.cumsum(~positive, axis=0)])
    positives_below = np.concatenate([zeros, np.cumsum(positive, axis=0)])
    correct = negatives_below + (positives_below[-1] - positives_below)  # cut before row j
    ones = np.ones_like(zeros, dtype=bool)
    cuts = np.concatenate([ones, ranked[1:] > ranked[:-1], ones])
    return np.where(cuts, correct, 0).max(axis=0)


def accuracy_count_utilities(design, y, W, intercept, *, n_classes):
    r"""Utility :math:`u(k)` of every candidate size of ``K`` released models (module docstring).

    Parameters
    ----------
    design, y, W, intercept, n_classes
        As in :func:`dplasso.estimators.threshold.release_threshold`: the fit's design (the
        constant column last with an intercept coordinate), encoded labels, the released
        weights ``(p, K)`` or ``(p, C, K)`` and intercepts ``(K,)`` or ``(C, K)``.

    Returns
    -------
    ndarray of float64 of shape (S, K)
        Row ``s`` scores size ``accuracy_count_sizes(m)[s]``: correctly classified
        training rows (at the best threshold for two classes, :func:`best_cut_accuracy`; by
        the argmax for more), a count of sensitivity 1 under replace-one.
    """
    W = np.asarray(W, dtype=np.float64)
    intercept = np.asarray(intercept, dtype=np.float64)
    n_trials = W.shape[-1]
    ranks = entry_ranks(W)
    sizes = accuracy_count_sizes(ranks.shape[0])
    has_intercept = design.shape[1] > W.shape[0]
    utilities = np.empty((sizes.size, n_trials))
    for s, k in enumerate(sizes):
        cut = np.where(ranks < k, W.reshape(ranks.shape), 0.0).reshape(W.shape)
        W_full = np.concatenate([cut, intercept[np.newaxis]]) if has_intercept else cut
        scores = np.asarray(design @ W_full.reshape(W_full.shape[0], -1))
        if n_classes == 2:
            utilities[s] = best_cut_accuracy(scores, y)
        else:
            predicted = scores.reshape(-1, n_classes, n_trials).argmax(axis=1)
            utilities[s] = np.sum(predicted == y[:, np.newaxis], axis=0)
    return utilities


def accuracy_count_event(epsilon, n_sizes):
    """Ledger event of one accuracy-count release."""
    return exponential_mechanism_event(
        1.0, count_scale(epsilon),
        note=f"Sparsifier count: size among {n_sizes} public sizes by the exponential "
             "mechanism, scored by the training accuracy of the cut model (a count, "
             "sensitivity 1)")


def accuracy_count(design, y, W, intercept, *, n_classes, epsilon, rng):
    r"""Release each trial's count :math:`\tilde c` by training accuracy (module docstring).

    Parameters
    ----------
    design, y, W, intercept, n_classes
        As in :func:`accuracy_count_utilities`.
    epsilon : float
        :math:`\varepsilon_1` of one release.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64 of shape (K,)
        Values of :func:`accuracy_count_sizes` (ledger event: :func:`accuracy_count_event`).

    Notes
    -----
    - Neighbouring relation: replace-one; the candidates depend on released outputs and
      public sizes only.
    - Sensitivity: :math:`u(k)`, 1 (proven, the book's ``lemma-accuracy-count``).
    - Guarantee: :math:`\varepsilon_1`-DP per trial.
    - Numerics: idealised floats (Gumbel sampler).
    - Cost: one product of the design with the cut weights per candidate size, and a sort
      of the ``n`` scores per trial and size (vectorised over trials).
    """
    utilities = accuracy_count_utilities(design, y, W, intercept, n_classes=n_classes)
    sizes = accuracy_count_sizes(np.asarray(W)[..., 0].size)
    chosen = exponential_mechanism_min(-utilities, count_scale(epsilon), rng)
    return sizes[chosen]
