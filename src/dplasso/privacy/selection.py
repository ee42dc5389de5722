r"""Private selection of a minimiser: report-noisy-min and the exponential mechanism.

Both selectors follow the Frank-Wolfe selector contract (ARCHITECTURE.md): ``scores`` has
shape ``(m, K)``, one column of ``m`` candidate scores per independent trial, and the result
is an ``int`` array of shape ``(K,)`` with each trial's selected row, drawn independently.

Privacy maps (neighbouring relation replace-one; the score sensitivity :math:`\Delta` is the
largest change of any one score between neighbouring datasets, every score may move, in
either direction):

- report-noisy-min with i.i.d. :math:`\mathrm{Lap}(b)` noise is
  :math:`\varepsilon_0 = 2\Delta/b`-DP (:func:`report_noisy_min_epsilon`). Proof: fix a
  candidate :math:`i` and the other noises :math:`r_{-i}`; :math:`i` wins on :math:`D` iff
  :math:`r_i < M - s_i` with :math:`M = \min_{j \ne i}(s_j + r_j)`. On a neighbour,
  :math:`M' \ge M - \Delta` and :math:`s'_i \le s_i + \Delta`, so the threshold drops by at most
  :math:`2\Delta`, and the Laplace CDF satisfies :math:`F(x - c) \ge e^{-c/b} F(x)`;
  integrating over :math:`r_{-i}` gives :math:`P'(i) \ge e^{-2\Delta/b} P(i)`. (Dwork & Roth
  2014, Claim 3.9, get :math:`\Delta/b` only for *monotone* queries, where all scores move
  the same way; Frank-Wolfe vertex scores :math:`\pm\lambda g_j` are not monotone.) As a pure
  DP event it is :math:`\varepsilon_0^2/2`-zCDP.
- the exponential mechanism :math:`P(i) \propto \exp(-s_i/\text{scale})` is
  :math:`\varepsilon_0 = 2\Delta/\text{scale}`-DP (McSherry & Talwar 2007) and, because the log
  probability ratio :math:`-(s_i - s'_i)/\text{scale} + \log(Z'/Z)` ranges over an interval of
  width :math:`2\Delta/\text{scale}` as :math:`i` varies, :math:`\varepsilon_0`-bounded-range,
  hence :math:`\varepsilon_0^2/8`-zCDP (Cesar & Rogers 2021)
  (:func:`exponential_mechanism_rho`).

Sampling. Noise is drawn in float64 from uniforms on the symmetric open grid
:math:`U = (j + 1/2)\,2^{-52}`, :math:`j` uniform on :math:`\{0, \dots, 2^{52}-1\}`, so no
draw is 0 or 1 and no noise is infinite. Laplace noise is the inverse CDF
:math:`b\,\mathrm{sign}(U - \tfrac12)\,(-\log(1 - 2|U - \tfrac12|))`. The exponential
mechanism uses the Gumbel-max trick: with :math:`G_i = -\log(-\log U_i)` standard Gumbel,
:math:`\arg\max_i(-s_i/\text{scale} + G_i) = \arg\min_i(s_i + \text{scale}\,\log(-\log U_i))`
has law :math:`\propto \exp(-s_i/\text{scale})`. Both are *idealised float* samplers: the
stated laws hold for real arithmetic (the grid has :math:`2^{52}` points; Mironov 2012 shows
how float artefacts of a Laplace sampler can leak). Up to :math:`2^{15}` candidates per
trial every candidate's noise is drawn (this keeps the random stream, hence every result
published before the lazy draw below, of those problems; there the full draw costs little
next to the gradient product): work runs over blocks of rows holding about
:math:`2^{15}` entries, which stay in cache: per block one integer draw, a finiteness
check, seven elementwise passes and a block ``argmin``; nothing of size ``(m, K)`` is
allocated.

Above :math:`2^{15}` candidates the noise is drawn only where it can win (the *lazy draw*,
same law; the book's proofs chapter, "Sampling"). With :math:`q = \min(m^{-1/2}, 1/2)` (the
tail formulas below need :math:`q \le 1/2`) and :math:`c`
such that :math:`P(N < -c) = q`, each candidate is *deep* (noise below :math:`-c`)
independently with probability :math:`q`: the deep set is a Bernoulli process over the rows
(geometric gaps) and the deep noises are drawn from the law of :math:`N` given
:math:`N < -c` (Laplace: :math:`-c - E`, :math:`E` exponential; Gumbel-min: :math:`\log(-\log
U)` with :math:`U` uniform on :math:`(1 - q, 1)`). Every other candidate's noisy score is at
least :math:`s_i - \text{scale}\,c`; those whose bound does not exceed the best deep value
are drawn from the law given :math:`N \ge -c` (by rejection from the full law), the others
cannot win (nor can a ``+inf`` score: it is never drawn, so a mask of all but a few
candidates costs a few draws per trial). The noises together are i.i.d. with the full law and the output is their
argmin, so the law is unchanged; the work is one pass over the scores and about
:math:`\sqrt{m}` draws per trial when the noise is large against the score spread (private
Frank-Wolfe's regime), up to a full draw when it is small. The random stream differs from
the full draw's, so problems above :math:`2^{15}` candidates select differently for a fixed
seed than before the lazy draw existed (in the book: fbis.wc, 17 classes over 2001 columns,
in the paper profile of the multinomial experiments; no ``ci`` run).

References
----------
.. [1] K. Talwar, A. Thakurta and L. Zhang, "Nearly-Optimal Private LASSO", NeurIPS 2015.
.. [2] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014.
.. [3] F. McSherry and K. Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
.. [4] M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating: Unifying Privacy
   Loss Composition for Data Analytics", ALT 2021.
.. [5] I. Mironov, "On Significance of the Least Significant Bits for Differential Privacy",
   CCS 2012.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import quad_vec
from scipy.special import softmax

from dplasso.privacy._validation import check_count, check_nonnegative, check_positive
from dplasso.privacy.accounting import PrivacyEvent

__all__ = [
    "report_noisy_min",
    "exponential_mechanism_min",
    "ReportNoisyMinSelector",
    "ExponentialMechanismSelector",
    "report_noisy_min_epsilon",
    "report_noisy_min_scale",
    "report_noisy_min_event",
    "exponential_mechanism_epsilon",
    "exponential_mechanism_rho",
    "exponential_mechanism_scale",
    "exponential_mechanism_event",
    "exponential_mechanism_probabilities",
    "report_noisy_min_probabilities",
]

_BLOCK_ELEMENTS = 2**15
"""Entries per block of the selectors (two float64 buffers of 256 KiB each)."""
_GRID_BITS = 52
"""Uniforms live on the grid (j + 1/2) 2**-52, j in {0, ..., 2**52 - 1}."""
_LAZY_MIN_CANDIDATES = _BLOCK_ELEMENTS
"""Above this many candidates per trial the selectors draw noise only where it can win."""
_TAIL_SCALES = 60.0
"""The quadrature of :func:`report_noisy_min_probabilities` stops 60 scales beyond the scores."""


def _check_score_matrix(scores):
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(
            f"scores must be two-dimensional (m candidates, K trials), got {scores.ndim} "
            "dimension(s)"
        )
    if scores.shape[0] == 0 or scores.shape[1] == 0:
        raise ValueError(f"scores is empty: shape {scores.shape}")
    return scores


def _laplace_into(out, work, scale, rng):
    """Fill ``out`` with Lap(scale) noise by inversion of an open-grid uniform."""
    j = rng.integers(0, 2**_GRID_BITS, size=out.shape)
    # out = 2**52 (U - 1/2) = j - (2**51 - 1/2): exact, nonzero, carries the sign of U - 1/2.
    np.subtract(j, 2.0 ** (_GRID_BITS - 1) - 0.5, out=out)
    np.abs(out, out=work)
    np.multiply(work, -(2.0 ** -(_GRID_BITS - 1)), out=work)  # -2|U - 1/2|, in (-1, 0)
    np.log1p(work, out=work)
    np.copysign(work, out, out=out)
    np.multiply(out, scale, out=out)


def _gumbel_min_noise_into(out, work, scale, rng):
    """Fill ``out`` with ``scale * log(-log U)`` (= -scale * standard Gumbel); ``work`` unused."""
    j = rng.integers(0, 2**_GRID_BITS, size=out.shape)
    np.add(j, 0.5, out=out)
    np.multiply(out, 2.0**-_GRID_BITS, out=out)  # U in (0, 1)
    np.log(out, out=out)
    np.negative(out, out=out)  # -log U > 0
    np.log(out, out=out)
    np.multiply(out, scale, out=out)


def _laplace_level(q):
    """``c`` with ``P(Z < -c) = q`` for standard Laplace ``Z`` (``0 < q <= 1/2``)."""
    return -math.log(2.0 * q)


def _laplace_tail(size, q, rng):
    """``size`` draws of standard Laplace ``Z`` given ``Z < -c``: ``-c - E`` = ``log(2 q V)``."""
    return np.log(_open_uniform(size, rng)) - _laplace_level(q)


def _gumbel_min_level(q):
    """``c`` with ``P(N < -c) = q`` for ``N = log(-log U)``: ``1 - exp(-e^{-c}) = q``."""
    return -math.log(-math.log1p(-q))


def _gumbel_min_tail(size, q, rng):
    """Draws of ``N = log(-log U)`` given ``N < -c``, i.e. ``U = 1 - q V`` uniform on ``(1-q, 1)``."""
    return np.log(-np.log1p(-q * _open_uniform(size, rng)))


def _open_uniform(size, rng):
    """``size`` uniforms on the open grid ``(j + 1/2) 2**-52`` (never 0 or 1)."""
    return (rng.integers(0, 2**_GRID_BITS, size=size) + 0.5) * 2.0**-_GRID_BITS


@dataclass(frozen=True)
class _Noise:
    """A noise law for :func:`_noisy_argmin`: full fill, and its lower tail for the lazy draw."""

    fill: object  # fill(out, work, scale, rng): i.i.d. draws times scale
    level: object  # level(q) -> c with P(N < -c) = q
    tail: object  # tail(size, q, rng) -> draws of N given N < -c


_LAPLACE = _Noise(_laplace_into, _laplace_level, _laplace_tail)
_GUMBEL_MIN = _Noise(_gumbel_min_noise_into, _gumbel_min_level, _gumbel_min_tail)


def _noisy_argmin(scores, scale, rng, noise):
    """Column-wise argmin of ``scores + scale * noise``: every noise drawn, or the lazy draw.

    Up to :data:`_LAZY_MIN_CANDIDATES` candidates the noise of every candidate is drawn
    (:func:`_full_noisy_argmin`); above, only where it can win (:func:`_lazy_noisy_argmin`).
    Both return the argmin of i.i.d. noisy scores, so the law of the output is the same.
    """
    scores = _check_score_matrix(scores)
    scale = check_positive("scale", scale)
    if scores.shape[0] > _LAZY_MIN_CANDIDATES:
        return _lazy_noisy_argmin(scores, scale, rng, noise)
    return _full_noisy_argmin(scores, scale, rng, noise.fill)


def _full_noisy_argmin(scores, scale, rng, fill_noise):
    """Column-wise argmin of ``scores + noise``, block by block over rows."""
    m, n_trials = scores.shape
    rows = min(m, max(1, _BLOCK_ELEMENTS // n_trials))
    noisy_buffer = np.empty((rows, n_trials))
    work_buffer = np.empty((rows, n_trials))
    columns = np.arange(n_trials)
    best_value = np.full(n_trials, np.inf)
    best_index = np.zeros(n_trials, dtype=np.intp)
    for start in range(0, m, rows):  # about m K / 2**15 blocks, each vectorised
        block = scores[start : start + rows]
        if not (block > -np.inf).all():  # one pass: false for NaN and -inf
            raise ValueError("scores contain NaN or -infinity")
        noisy = noisy_buffer[: block.shape[0]]
        fill_noise(noisy, work_buffer[: block.shape[0]], scale, rng)
        np.add(noisy, block, out=noisy)
        index = noisy.argmin(axis=0)
        value = noisy[index, columns]
        better = value < best_value
        best_value[better] = value[better]
        best_index[better] = index[better] + start
    _check_some_candidate(best_value)
    return best_index


def _check_some_candidate(best_value):
    if np.isinf(best_value).any():
        trial = int(np.flatnonzero(np.isinf(best_value))[0])
        raise ValueError(f"every candidate of trial {trial} is excluded (all scores are +inf)")


def _lazy_noisy_argmin(scores, scale, rng, noise):
    r"""The argmin of ``scores + scale * N`` drawing ``N`` only where it can win.

    With :math:`q = \min(m^{-1/2}, 1/2)` (:func:`_deep_probability`) and
    ``c = noise.level(q)``, a candidate is *deep* when its noise is below :math:`-c`
    (probability :math:`q`, independently). The deep set is drawn
    as a Bernoulli process (:func:`_bernoulli_positions`) and the deep noises from the law of
    :math:`N` given :math:`N < -c` (``noise.tail``). Every other candidate's noisy score is at
    least ``s_i + scale * (-c)`` (rounding is monotone); only those whose bound does not
    exceed the best deep value are drawn, from the law given :math:`N \ge -c`
    (:func:`_fallback`, by rejection; a ``+inf`` score, a public mask, is never drawn: it
    cannot win). The joint law of all noises is that of i.i.d. draws, and
    the result is the argmin (first index on ties) of the noisy scores of all candidates.
    """
    m, n_trials = scores.shape
    low = _column_min(scores)
    if not (low > -np.inf).all():  # false for NaN (min propagates it) and -inf
        raise ValueError("scores contain NaN or -infinity")
    _check_some_candidate(low)
    q = _deep_probability(m)
    c = noise.level(q)
    shift = scale * -c  # the least value of scale * N off the deep set
    positions = _bernoulli_positions(m, n_trials, q, rng)
    past_end = positions >= m
    trials = np.arange(n_trials)
    values = scores[np.minimum(positions, m - 1), trials]
    values += scale * noise.tail(positions.shape, q, rng)
    values[past_end] = np.inf
    first = values.argmin(axis=0)  # positions grow down each column: the first row on ties
    best_index = positions[first, trials]
    best_value = values[first, trials]
    open_trials = np.flatnonzero(low + shift <= best_value)
    if open_trials.size:
        deep = ~past_end
        _fallback(scores, scale, rng, noise, c, shift, open_trials, positions[deep],
                  np.broadcast_to(trials, positions.shape)[deep], best_value, best_index)
    return best_index


def _deep_probability(m):
    r""":math:`q = \min(m^{-1/2}, 1/2)`: about :math:`\sqrt m` deep candidates per trial, and
    a level :math:`c \ge 0` (the tails' formulas, Laplace's :math:`c = -\log 2q` among them,
    hold for :math:`q \le 1/2` only; below :math:`m = 4` candidates :math:`m^{-1/2}` exceeds
    it)."""
    return min(1.0 / math.sqrt(m), 0.5)


def _column_min(scores):
    """``scores.min(axis=0)`` (NaN kept), over blocks of whole row groups.

    For a C-ordered ``(m, K)`` array with ``K`` around 20, ``min(axis=0)`` runs ``m`` inner
    loops of length ``K``. Viewing a block of ``64 r`` rows as ``r`` rows of ``64 K`` entries
    makes each inner loop 64 times longer (one pass, about four times faster); the ``64 K``
    minima are then folded to ``K``. Blocks of about :math:`2^{17}` entries stay in cache.
    """
    m, n_trials = scores.shape
    if n_trials == 1:
        return scores.min(axis=0)
    group = 64
    rows = max(group, (4 * _BLOCK_ELEMENTS // n_trials) // group * group)
    low = np.full(n_trials, np.inf)
    for start in range(0, m, rows):
        block = scores[start : start + rows]
        whole = block.shape[0] // group * group
        if whole:
            wide = block[:whole].reshape(whole // group, group * n_trials).min(axis=0)
            np.minimum(low, wide.reshape(group, n_trials).min(axis=0), out=low)
        if whole < block.shape[0]:
            np.minimum(low, block[whole:].min(axis=0), out=low)
    return low


def _improve(best_value, best_index, rows, cols, values):
    """Lower ``best_*`` per column to the least ``values`` (first row on ties)."""
    if not rows.size:
        return
    order = np.lexsort((rows, values, cols))
    cols_sorted = cols[order]
    first = order[np.r_[True, cols_sorted[1:] != cols_sorted[:-1]]]
    col, value, row = cols[first], values[first], rows[first]
    better = (value < best_value[col]) | ((value == best_value[col]) & (row < best_index[col]))
    best_value[col[better]] = value[better]
    best_index[col[better]] = row[better]


def _fallback(scores, scale, rng, noise, c, shift, trials, deep_rows, deep_cols,
              best_value, best_index):
    """Draw the noise of the non-deep candidates of ``trials`` that can still win."""
    m, n_trials = scores.shape
    limit = best_value[trials]
    rows_per_block = max(1, _BLOCK_ELEMENTS // trials.size)
    found_rows, found_cols = [], []
    for start in range(0, m, rows_per_block):
        block = scores[start : start + rows_per_block, trials]
        # +inf (a public mask) never wins: skipping it keeps the law and the work small
        r, k = np.nonzero((block + shift <= limit) & (block < np.inf))
        found_rows.append(r + start)
        found_cols.append(trials[k])
    rows, cols = np.concatenate(found_rows), np.concatenate(found_cols)
    drawn = np.isin(rows * n_trials + cols, deep_rows * n_trials + deep_cols)
    rows, cols = rows[~drawn], cols[~drawn]  # a deep candidate keeps its deep noise
    draws = np.empty(rows.size)
    pending = np.arange(rows.size)
    while pending.size:  # rejection: keep draws N >= -c (probability 1 - q each)
        out, work = np.empty(pending.size), np.empty(pending.size)
        noise.fill(out, work, 1.0, rng)
        kept = out >= -c
        draws[pending[kept]] = out[kept]
        pending = pending[~kept]
    _improve(best_value, best_index, rows, cols, scores[rows, cols] + scale * draws)


def _bernoulli_positions(m, n_trials, q, rng):
    """Rows of the ones of an ``(m, K)`` array of i.i.d. Bernoulli(q) entries, per column.

    Each column is a Bernoulli process over rows: the gaps between ones are i.i.d.
    geometric(q), drawn in rounds until every column has passed row ``m - 1``. Returns an
    increasing ``(r, K)`` array per column; entries ``>= m`` are past the end.
    """
    mean = m * q
    per_round = int(mean + 6.0 * math.sqrt(mean) + 16.0)
    positions = np.cumsum(rng.geometric(q, size=(per_round, n_trials)), axis=0) - 1
    while (positions[-1] < m).any():  # rare: beyond the mean + 6 sd
        more = positions[-1] + np.cumsum(rng.geometric(q, size=(per_round, n_trials)), axis=0)
        positions = np.vstack([positions, more])
    return positions


def report_noisy_min(scores, scale, rng):
    r"""Report-noisy-min: per column, the index of the smallest ``score + Lap(scale)``.

    Parameters
    ----------
    scores : array-like of shape (m, K)
        Candidate scores, one column per independent trial; finite, or ``+inf`` for a
        candidate excluded by a public mask (it is never selected).
    scale : float
        Laplace noise scale :math:`b > 0`.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of intp, shape (K,)
        The selected row of each column.

    Raises
    ------
    ValueError
        If ``scores`` contains NaN or ``-inf``, a column is entirely ``+inf``, or
        ``scale <= 0``.

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: any; the mechanism sees only the scores.
    - Sensitivity: :math:`\Delta`, the largest change of any single score between
      neighbouring datasets (all scores may move, in either direction). Candidates set to
      ``+inf`` by a mask that does not depend on the data (or is post-processing of earlier
      private releases) only shrink the range; the guarantee is unchanged.
    - Guarantee: per column, pure :math:`2\Delta/b`-DP (:func:`report_noisy_min_epsilon`,
      proof in the module docstring); the ``K`` columns are independent trials, not a
      composition.
    - Numerics: idealised floats (module docstring).
    - Cost: up to :math:`m = 2^{15}`, :math:`mK` uniform integers and about seven passes
      over cache-resident blocks; above, the lazy draw (module docstring): one pass and
      about :math:`\sqrt{m}` draws per trial when the noise is large against the scores.
      This is the private selection of Talwar, Thakurta & Zhang's Frank-Wolfe (2015).

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[0.0, 5.0], [5.0, 0.0]])
    >>> report_noisy_min(scores, 0.01, np.random.default_rng(0))
    array([0, 1])
    """
    return _noisy_argmin(scores, scale, rng, _LAPLACE)


def exponential_mechanism_min(scores, scale, rng):
    r"""Exponential mechanism for a minimiser: per column, :math:`P(i) \propto e^{-s_i/b}`.

    Parameters
    ----------
    scores : array-like of shape (m, K)
        Candidate scores, one column per independent trial; finite, or ``+inf`` for a
        candidate excluded by a public mask (probability 0).
    scale : float
        Temperature :math:`b > 0`.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of intp, shape (K,)
        The selected row of each column.

    Raises
    ------
    ValueError
        If ``scores`` contains NaN or ``-inf``, a column is entirely ``+inf``, or
        ``scale <= 0``.

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: any; the mechanism sees only the scores.
    - Sensitivity: :math:`\Delta`, the largest change of any single score between
      neighbouring datasets. ``+inf`` candidates (a public mask) only shrink the range.
    - Guarantee: per column, :math:`\varepsilon_0 = 2\Delta/\text{scale}`-DP and
      :math:`\varepsilon_0`-bounded-range, hence :math:`\varepsilon_0^2/8`-zCDP.
    - Numerics: idealised floats; sampled by Gumbel-max (module docstring).
    - Cost: up to :math:`m = 2^{15}`, :math:`mK` uniform integers and two logarithms per
      entry; above, the lazy draw (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[0.0, 5.0], [5.0, 0.0]])
    >>> exponential_mechanism_min(scores, 0.01, np.random.default_rng(0))
    array([0, 1])
    """
    return _noisy_argmin(scores, scale, rng, _GUMBEL_MIN)


def report_noisy_min_epsilon(sensitivity, scale) -> float:
    r"""Privacy map of report-noisy-min: :math:`\varepsilon_0 = 2\Delta/b`.

    Parameters
    ----------
    sensitivity : float
        Score sensitivity :math:`\Delta \ge 0` under replace-one.
    scale : float
        Laplace scale :math:`b > 0`.

    Returns
    -------
    float
    """
    return 2.0 * check_nonnegative("sensitivity", sensitivity) / check_positive("scale", scale)


def report_noisy_min_scale(sensitivity, epsilon) -> float:
    r"""Laplace scale for a per-selection :math:`\varepsilon_0`: :math:`2\Delta/\varepsilon_0`."""
    return 2.0 * check_positive("sensitivity", sensitivity) / check_positive("epsilon", epsilon)


def exponential_mechanism_epsilon(sensitivity, scale) -> float:
    r"""Privacy map of the exponential mechanism: :math:`\varepsilon_0 = 2\Delta/\text{scale}`.

    Parameters
    ----------
    sensitivity : float
        Score sensitivity :math:`\Delta \ge 0` under replace-one.
    scale : float
        Temperature ``> 0``.

    Returns
    -------
    float
    """
    return 2.0 * check_nonnegative("sensitivity", sensitivity) / check_positive("scale", scale)


def exponential_mechanism_rho(sensitivity, scale) -> float:
    r"""zCDP map of the exponential mechanism.

    :math:`\rho_0 = \varepsilon_0^2/8 = \Delta^2/(2\,\text{scale}^2)` (bounded range).
    """
    return exponential_mechanism_epsilon(sensitivity, scale) ** 2 / 8.0


def exponential_mechanism_scale(sensitivity, epsilon) -> float:
    r"""Temperature for a per-selection :math:`\varepsilon_0`: :math:`2\Delta/\varepsilon_0`."""
    return 2.0 * check_positive("sensitivity", sensitivity) / check_positive("epsilon", epsilon)


def report_noisy_min_event(sensitivity, scale, count=1, note="") -> PrivacyEvent:
    """Ledger event for ``count`` report-noisy-min selections (pure ``2 Delta / b``-DP each).

    Parameters
    ----------
    sensitivity : float
        Score sensitivity under replace-one.
    scale : float
        Laplace scale.
    count : int, default=1
        Number of selections (e.g. Frank-Wolfe steps).
    note : str, default=""

    Returns
    -------
    PrivacyEvent
    """
    return PrivacyEvent(
        mechanism="report-noisy-min",
        sensitivity=sensitivity,
        epsilon=report_noisy_min_epsilon(sensitivity, scale),
        count=count,
        note=note,
        numerics="idealised-float",
    )


def exponential_mechanism_event(sensitivity, scale, count=1, note="") -> PrivacyEvent:
    """Ledger event for ``count`` exponential-mechanism selections.

    Each is ``epsilon0 = 2 Delta / scale``-DP and ``epsilon0**2 / 8``-zCDP.

    Parameters
    ----------
    sensitivity : float
        Score sensitivity under replace-one.
    scale : float
        Temperature.
    count : int, default=1
    note : str, default=""

    Returns
    -------
    PrivacyEvent
    """
    return PrivacyEvent(
        mechanism="exponential-mechanism",
        sensitivity=sensitivity,
        epsilon=exponential_mechanism_epsilon(sensitivity, scale),
        rho=exponential_mechanism_rho(sensitivity, scale),
        count=count,
        note=note,
        numerics="idealised-float",
    )


@dataclass(frozen=True)
class ReportNoisyMinSelector:
    """A Frank-Wolfe selector ``select(scores, rng)`` running :func:`report_noisy_min`.

    Parameters
    ----------
    scale : float
        Laplace scale ``> 0`` (from :mod:`dplasso.privacy.calibration`).
    """

    scale: float

    def __post_init__(self):
        object.__setattr__(self, "scale", check_positive("scale", self.scale))

    def __call__(self, scores, rng):
        return report_noisy_min(scores, self.scale, rng)

    def event(self, sensitivity, count, note="") -> PrivacyEvent:
        """The ledger event of ``count`` selections on scores of ``sensitivity``."""
        return report_noisy_min_event(sensitivity, self.scale, check_count("count", count), note)


@dataclass(frozen=True)
class ExponentialMechanismSelector:
    """A Frank-Wolfe selector ``select(scores, rng)`` running :func:`exponential_mechanism_min`.

    Parameters
    ----------
    scale : float
        Temperature ``> 0`` (from :mod:`dplasso.privacy.calibration`).
    """

    scale: float

    def __post_init__(self):
        object.__setattr__(self, "scale", check_positive("scale", self.scale))

    def __call__(self, scores, rng):
        return exponential_mechanism_min(scores, self.scale, rng)

    def event(self, sensitivity, count, note="") -> PrivacyEvent:
        """The ledger event of ``count`` selections on scores of ``sensitivity``."""
        return exponential_mechanism_event(
            sensitivity, self.scale, check_count("count", count), note
        )


def _check_finite_scores(scores):
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size == 0:
        raise ValueError("scores is empty")
    if not np.isfinite(scores).all():
        raise ValueError("scores contain NaN or infinity")
    return scores


def exponential_mechanism_probabilities(scores, scale):
    r"""Exact selection law of :func:`exponential_mechanism_min`: a softmax of ``-scores/scale``.

    Parameters
    ----------
    scores : array-like of shape (m,) or (m, K)
        Finite scores; columns are normalised separately.
    scale : float
        Temperature ``> 0``.

    Returns
    -------
    ndarray of float64, same shape as ``scores``
        :math:`P(i) = e^{-s_i/\text{scale}} / \sum_j e^{-s_j/\text{scale}}`.
    """
    scores = _check_finite_scores(scores)
    return softmax(-scores / check_positive("scale", scale), axis=0)


def report_noisy_min_probabilities(scores, scale):
    r"""Selection law of :func:`report_noisy_min`, by one-dimensional quadrature.

    .. math::
        P(i \text{ wins}) = \int f(z - s_i) \prod_{j \ne i} \bar F(z - s_j)\, dz,

    with :math:`f` the :math:`\mathrm{Lap}(b)` density and :math:`\bar F` its survival
    function (ties have probability 0). The integrand is evaluated in log space and integrated
    with adaptive Gauss-Kronrod (``scipy.integrate.quad_vec``, all ``m`` probabilities at
    once, breakpoints at every score, absolute tolerance ``1e-13``) over
    :math:`[\min s - 60b, \max s + 60b]`; the mass left out is below :math:`e^{-60} < 10^{-26}`.

    Parameters
    ----------
    scores : array-like of shape (m,)
        Finite scores of one trial.
    scale : float
        Laplace scale :math:`b > 0`.

    Returns
    -------
    ndarray of float64, shape (m,)
    """
    scores = _check_finite_scores(scores)
    if scores.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got {scores.ndim} dimension(s)")
    scale = check_positive("scale", scale)
    log_density_constant = -math.log(2.0 * scale)

    def integrand(z):
        d = (z - scores) / scale
        log_survival = np.where(
            d >= 0, math.log(0.5) - d, np.log1p(-0.5 * np.exp(np.minimum(d, 0.0)))
        )
        return np.exp(log_density_constant - np.abs(d) + log_survival.sum() - log_survival)

    low = scores.min() - _TAIL_SCALES * scale
    high = scores.max() + _TAIL_SCALES * scale
    probabilities, _ = quad_vec(
        integrand, low, high, epsabs=1e-13, epsrel=1e-12, norm="max",
        points=np.unique(scores), limit=10_000,
    )
    return probabilities
