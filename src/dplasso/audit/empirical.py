r"""Empirical privacy audits: a statistical lower bound on a mechanism's epsilon.

Method (Jagielski, Ullman & Oprea 2020: the Clopper-Pearson estimate of epsilon from a
distinguishing test, after Kairouz, Oh & Viswanath 2015's hypothesis-testing view of DP): run the mechanism ``M`` many times on a dataset
``D`` and on a neighbour ``D'``, fix a *distinguishing event* ``S`` ("guess ``D'``") on one
split of the runs, and on the other split count

- false positives: runs on ``D`` whose output lands in ``S``, rate
  :math:`\mathrm{FPR} = P[M(D) \in S]`;
- false negatives: runs on ``D'`` whose output misses ``S``, rate
  :math:`\mathrm{FNR} = P[M(D') \notin S]`.

If ``M`` is :math:`(\varepsilon, \delta)`-DP, then :math:`P[M(D') \in S] \le e^\varepsilon
P[M(D) \in S] + \delta` and :math:`P[M(D) \notin S] \le e^\varepsilon P[M(D') \notin S] +
\delta`, i.e. :math:`1 - \mathrm{FNR} \le e^\varepsilon \mathrm{FPR} + \delta` and
:math:`1 - \mathrm{FPR} \le e^\varepsilon \mathrm{FNR} + \delta`. Both right-hand sides
increase with the rates, so with one-sided Clopper-Pearson upper bounds
:math:`\overline{\mathrm{FPR}}, \overline{\mathrm{FNR}}`, each at level
:math:`1 - \alpha/2`,

.. math::

    \varepsilon_{\mathrm{lb}} = \max\Bigl(0,\;
        \log\frac{1 - \delta - \overline{\mathrm{FNR}}}{\overline{\mathrm{FPR}}},\;
        \log\frac{1 - \delta - \overline{\mathrm{FPR}}}{\overline{\mathrm{FNR}}}\Bigr)

(a logarithm of a non-positive numerator counts as :math:`-\infty`) is at most the true
:math:`\varepsilon` with probability at least :math:`1 - \alpha` (union bound over the two
intervals), for any event fixed before the estimation split is seen. The event is chosen on
the selection split (independent runs), so the bound stays valid however the choice is made.

Event choosers (closed under complement, so both orientations of the test are tried):

- :func:`choose_threshold_event` for scalar outputs: ``{o > t}`` or ``{o <= t}``, ``t``
  among order statistics of the pooled selection runs (all distinct values when few, else a
  grid geometric in rank from both tails, where the privacy loss concentrates);
- :func:`choose_set_event` for discrete outputs: outcomes sorted by the empirical ratio
  :math:`\hat P_{D'}(o)/\hat P_D(o)` (counts plus 1/2), prefixes of that order and their
  complements;
- vector outputs go through a user-given ``projection`` to a scalar or a discrete code.

The choosers maximise the same bound computed on the selection split. An audit can show a
claim is false (``eps_lower > eps_claimed``); it can never show that a mechanism is private.

References
----------
.. [1] M. Jagielski, J. Ullman and A. Oprea, "Auditing Differentially Private Machine
   Learning: How Private is Private SGD?", NeurIPS 2020.
.. [2] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for Differential
   Privacy", ICML 2015.
.. [3] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
   illustrated in the case of the binomial", Biometrika 1934.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

from dplasso.privacy.rng import as_generator

__all__ = [
    "AuditResult",
    "ThresholdEvent",
    "SetEvent",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "choose_threshold_event",
    "choose_set_event",
    "audit_mechanism",
]


def clopper_pearson_upper(k, n, alpha):
    r"""One-sided Clopper-Pearson upper confidence bound for a binomial proportion.

    Parameters
    ----------
    k : int or array-like of int
        Observed successes, ``0 <= k <= n``.
    n : int
        Trials, ``>= 1``.
    alpha : float
        One-sided error probability in ``(0, 1)``.

    Returns
    -------
    float or ndarray
        :math:`u` with :math:`P(\text{Bin}(n, u) \le k) = \alpha`, i.e. the
        :math:`1-\alpha` quantile of :math:`\mathrm{Beta}(k + 1, n - k)`; 1 when ``k = n``.
        :math:`P(p \le u) \ge 1 - \alpha` for the true proportion :math:`p`.
    """
    k = np.asarray(k, dtype=np.float64)
    full = k >= n
    upper = beta.ppf(1.0 - alpha, k + 1.0, np.where(full, 1.0, n - k))
    return np.where(full, 1.0, upper)


def epsilon_lower_bound(fpr_upper, fnr_upper, delta=0.0):
    r"""Jagielski et al.'s :math:`\varepsilon` lower bound from upper bounds on FPR and FNR.

    .. math::
        \max\Bigl(0, \log\frac{1 - \delta - \overline{\mathrm{FNR}}}{\overline{\mathrm{FPR}}},
        \log\frac{1 - \delta - \overline{\mathrm{FPR}}}{\overline{\mathrm{FNR}}}\Bigr)

    Parameters
    ----------
    fpr_upper, fnr_upper : float or array-like
        Upper bounds in ``(0, 1]``.
    delta : float, default=0.0
        The :math:`\delta` of the claim being audited.

    Returns
    -------
    float or ndarray
    """
    fpr_upper = np.asarray(fpr_upper, dtype=np.float64)
    fnr_upper = np.asarray(fnr_upper, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.log(np.maximum(1.0 - delta - fnr_upper, 0.0) / fpr_upper)
        second = np.log(np.maximum(1.0 - delta - fpr_upper, 0.0) / fnr_upper)
    return np.maximum(0.0, np.maximum(first, second))


def _bound_from_counts(false_pos, n_d, false_neg, n_d_prime, alpha, delta):
    fpr_upper = clopper_pearson_upper(false_pos, n_d, alpha / 2.0)
    fnr_upper = clopper_pearson_upper(false_neg, n_d_prime, alpha / 2.0)
    return epsilon_lower_bound(fpr_upper, fnr_upper, delta), fpr_upper, fnr_upper


@dataclass(frozen=True)
class ThresholdEvent:
    """The event ``{o > threshold}`` (``above=True``) or ``{o <= threshold}`` on scalar outputs."""

    threshold: float
    above: bool

    def __call__(self, outputs):
        outputs = np.asarray(outputs)
        return outputs > self.threshold if self.above else outputs <= self.threshold

    def __str__(self):
        return f"output {'>' if self.above else '<='} {self.threshold:.6g}"


@dataclass(frozen=True)
class SetEvent:
    """The event ``{o in outcomes}``, or its complement (``complement=True``; unseen outcomes
    then belong to the event)."""

    outcomes: tuple
    complement: bool

    def __call__(self, outputs):
        inside = np.isin(np.asarray(outputs), np.asarray(self.outcomes))
        return ~inside if self.complement else inside

    def __str__(self):
        shown = ", ".join(str(o) for o in self.outcomes[:8])
        more = ", ..." if len(self.outcomes) > 8 else ""
        return f"output {'not in' if self.complement else 'in'} {{{shown}{more}}}"


def _threshold_candidates(pooled, max_candidates):
    values = np.unique(pooled)
    if values.size <= max_candidates:
        return values
    ordered = np.sort(pooled)
    half = ordered.size // 2
    ranks = np.unique(np.geomspace(1, half, max_candidates // 2).astype(np.intp)) - 1
    return np.unique(np.concatenate([ordered[ranks], ordered[ordered.size - 1 - ranks]]))


def choose_threshold_event(outputs_d, outputs_d_prime, alpha, delta=0.0, max_candidates=2000):
    """Best threshold event for scalar outputs, by the bound on these (selection) runs.

    Parameters
    ----------
    outputs_d, outputs_d_prime : array-like of shape (N,) and (N',)
        Selection-split outputs on ``D`` and ``D'``.
    alpha : float
        Confidence parameter used in the selection criterion.
    delta : float, default=0.0
    max_candidates : int, default=2000
        At most this many thresholds (see the module docstring).

    Returns
    -------
    event : ThresholdEvent
    criterion : float
        The bound the event reaches on the selection runs.
    """
    a = np.sort(np.asarray(outputs_d, dtype=np.float64).ravel())
    b = np.sort(np.asarray(outputs_d_prime, dtype=np.float64).ravel())
    thresholds = _threshold_candidates(np.concatenate([a, b]), max_candidates)
    d_above = a.size - np.searchsorted(a, thresholds, side="right")
    d_prime_above = b.size - np.searchsorted(b, thresholds, side="right")
    # above: S = {o > t}; below: S = {o <= t}. FP = D in S, FN = D' not in S.
    false_pos = np.concatenate([d_above, a.size - d_above])
    false_neg = np.concatenate([b.size - d_prime_above, d_prime_above])
    bounds, _, _ = _bound_from_counts(false_pos, a.size, false_neg, b.size, alpha, delta)
    best = int(np.argmax(bounds))
    event = ThresholdEvent(float(thresholds[best % thresholds.size]), best < thresholds.size)
    return event, float(bounds[best])


def choose_set_event(outputs_d, outputs_d_prime, alpha, delta=0.0):
    """Best set event for discrete outputs, by the bound on these (selection) runs.

    Outcomes are ordered by the smoothed likelihood ratio
    ``((count_D' + 1/2)/N') / ((count_D + 1/2)/N)``, largest first; the candidates are every
    prefix of that order and every prefix's complement.

    Parameters
    ----------
    outputs_d, outputs_d_prime : array-like of shape (N,) and (N',)
        Selection-split outputs (hashable scalars: ints, codes, strings).
    alpha : float
    delta : float, default=0.0

    Returns
    -------
    event : SetEvent
    criterion : float
    """
    a = np.asarray(outputs_d).ravel()
    b = np.asarray(outputs_d_prime).ravel()
    outcomes, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    count_d = np.bincount(codes[: a.size], minlength=outcomes.size)
    count_d_prime = np.bincount(codes[a.size:], minlength=outcomes.size)
    ratio = ((count_d_prime + 0.5) / b.size) / ((count_d + 0.5) / a.size)
    order = np.argsort(-ratio, kind="stable")
    in_d = np.cumsum(count_d[order])
    in_d_prime = np.cumsum(count_d_prime[order])
    # prefix S_k (k = 1..K) and its complement, as the event "guess D'".
    false_pos = np.concatenate([in_d, a.size - in_d])
    false_neg = np.concatenate([b.size - in_d_prime, in_d_prime])
    bounds, _, _ = _bound_from_counts(false_pos, a.size, false_neg, b.size, alpha, delta)
    best = int(np.argmax(bounds))
    k = best % outcomes.size + 1
    members = tuple(np.sort(outcomes[order[:k]]).tolist())
    return SetEvent(members, best >= outcomes.size), float(bounds[best])


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_mechanism`.

    Attributes
    ----------
    eps_lower : float
        Lower bound on the mechanism's epsilon (at ``delta``), valid with probability at
        least ``1 - alpha``.
    eps_claimed : float or None
        The epsilon the mechanism claims (at ``delta``).
    n_trials : int
        Runs per dataset (selection plus estimation).
    fpr, fnr : float
        Empirical false positive / negative rates of ``event`` on the estimation split.
    fpr_upper, fnr_upper : float
        Their Clopper-Pearson upper bounds (each at level ``1 - alpha/2``).
    event : ThresholdEvent or SetEvent
        The distinguishing event ("guess D'"), chosen on the selection split.
    alpha : float
        Failure probability of the bound.
    delta : float
        The delta of the audited claim.
    n_selection : int
        Runs per dataset used to choose the event.
    """

    eps_lower: float
    eps_claimed: float | None
    n_trials: int
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    event: object
    alpha: float
    delta: float
    n_selection: int

    @property
    def violated(self) -> bool:
        """Whether the audit refutes the claim (``eps_lower > eps_claimed``)."""
        return self.eps_claimed is not None and self.eps_lower > self.eps_claimed

    @property
    def verdict(self) -> str:
        """``"violation"`` when the claim is refuted, else ``"consistent"``."""
        return "violation" if self.violated else "consistent"


def _run(mechanism, dataset, n_runs, batch_size, projection, rng):
    outputs = []
    remaining = n_runs
    while remaining > 0:
        size = min(batch_size, remaining)
        batch = mechanism(dataset, size, rng)
        if projection is not None:
            batch = projection(batch)
        batch = np.asarray(batch)
        if batch.ndim == 0 or batch.shape[0] != size or batch.size != size:
            raise ValueError(
                f"the mechanism (after any projection) must return one scalar per run, "
                f"{size} along axis 0; got shape {batch.shape} (vector outputs need a projection)"
            )
        outputs.append(batch.reshape(size))
        remaining -= size
    return np.concatenate(outputs)


def audit_mechanism(mechanism, D, D_prime, n_trials, alpha, delta=0.0, rng=None, *,
                    eps_claimed=None, event="threshold", projection=None,
                    selection_fraction=0.5, batch_size=100_000):
    r"""Audit ``mechanism`` on the neighbouring pair ``(D, D')``: a lower bound on epsilon.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, size, rng) -> ndarray`` with ``size`` independent outputs along
        axis 0 (batched runs; ``rng`` is a ``numpy.random.Generator``).
    D, D_prime : object
        The neighbouring datasets, passed to ``mechanism`` unchanged.
    n_trials : int
        Runs on each dataset (``>= 4``), split into selection and estimation runs.
    alpha : float
        Failure probability of the bound, in ``(0, 1)``.
    delta : float, default=0.0
        The delta of the claim, in ``[0, 1)``.
    rng : numpy.random.Generator, int or None, default=None
        Source of randomness (:func:`dplasso.privacy.rng.as_generator`).
    eps_claimed : float, optional
        The claimed epsilon at ``delta`` (recorded in the result and its verdict).
    event : {"threshold", "set"}, default="threshold"
        Event family: thresholds on scalar outputs, or sets of discrete outcomes.
    projection : callable, optional
        ``projection(batch) -> ndarray (size,)``, applied to each batch of outputs (vector
        outputs to a scalar or a discrete code).
    selection_fraction : float, default=0.5
        Fraction of the runs used to choose the event.
    batch_size : int, default=100_000
        Runs per call to ``mechanism``.

    Returns
    -------
    AuditResult

    Raises
    ------
    ValueError
        On bad parameters, or outputs that are not one scalar per run.
    """
    n_trials = int(n_trials)
    if n_trials < 4:
        raise ValueError(f"n_trials must be >= 4, got {n_trials}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not (math.isfinite(delta) and 0.0 <= delta < 1.0):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    if not 0.0 < selection_fraction < 1.0:
        raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
    if event not in ("threshold", "set"):
        raise ValueError(f"event must be 'threshold' or 'set', got {event!r}")
    if int(batch_size) < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    n_selection = min(max(1, int(round(selection_fraction * n_trials))), n_trials - 1)
    rng = as_generator(rng)
    outputs_d = _run(mechanism, D, n_trials, int(batch_size), projection, rng)
    outputs_d_prime = _run(mechanism, D_prime, n_trials, int(batch_size), projection, rng)

    choose = choose_threshold_event if event == "threshold" else choose_set_event
    chosen, _ = choose(outputs_d[:n_selection], outputs_d_prime[:n_selection], alpha, delta)
    estimation_d = outputs_d[n_selection:]
    estimation_d_prime = outputs_d_prime[n_selection:]
    false_pos = int(np.count_nonzero(chosen(estimation_d)))
    false_neg = int(np.count_nonzero(~chosen(estimation_d_prime)))
    n_est = estimation_d.size
    bound, fpr_upper, fnr_upper = _bound_from_counts(false_pos, n_est, false_neg, n_est,
                                                     alpha, delta)
    return AuditResult(
        eps_lower=float(bound), eps_claimed=None if eps_claimed is None else float(eps_claimed),
        n_trials=n_trials, fpr=false_pos / n_est, fnr=false_neg / n_est,
        fpr_upper=float(fpr_upper), fnr_upper=float(fnr_upper), event=chosen,
        alpha=float(alpha), delta=float(delta), n_selection=n_selection,
    )
