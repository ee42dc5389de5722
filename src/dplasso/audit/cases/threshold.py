r"""Searches and audits of the private decision threshold (lemma ``lemma-threshold``).

The utilities are counts of training rows over the public grid (binary) or the (class,
offset) pairs (more classes), sensitivity 1 as the release's ledger event declares; the
release is :func:`dplasso.estimators.threshold.release_threshold` itself.
"""
from __future__ import annotations

import numpy as np

from dplasso.audit.broken import with_argument
from dplasso.audit.cases._base import AuditCase, SensitivityCase, released_weights_problem
from dplasso.audit.statistics import ThresholdUtility
from dplasso.estimators.problem import prepare_design
from dplasso.estimators.threshold import release_threshold, threshold_event
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator

__all__ = ["threshold_sensitivity_cases", "threshold_cases", "threshold_multiclass_cases"]


def threshold_sensitivity_cases(random_state=0):
    r"""The private threshold's utility vectors :math:`u(g)` over the public grid (theorem 1).

    Rademacher rows (``n = 40``, ``p = 6``, the constant column appended) and released
    weights drawn in the ball of radius ``lam = 5`` (intercept entry included), held fixed:
    they are a public input of the release (the book's ``lemma-threshold``). Binary, and
    three classes (every (class, offset) pair). Every utility is a count, so a label flip of
    a row whose score lies inside the grid moves the entries on one side of its boundary by
    exactly 1: the bound is attained (tight).

    Returns
    -------
    list of SensitivityCase
    """
    rng = as_generator(random_state)
    X, labels, w, W = released_weights_problem(rng, 40, 6)
    classes = rng.integers(0, 3, X.shape[0]).astype(np.float64)
    return [
        SensitivityCase("threshold utility u(g), binary (256 offsets)", ThresholdUtility(w),
                        X, labels, threshold_event(1.0, 2).sensitivity, "inf", theorem=True,
                        tight=True, proven=1.0),
        SensitivityCase("threshold utility u(c, g), 3 classes (768 pairs)",
                        ThresholdUtility(W), X, classes, threshold_event(1.0, 3).sensitivity,
                        "inf", theorem=True, tight=True, proven=1.0),
    ]


def _scores_at_zero_pair(n_agreeing):
    """Rows of zeros (score 0 under ``w = e_1``); row 0 has label 1 in D and 0 in D'."""
    X = np.zeros((n_agreeing + 1, 1))
    y = np.zeros(n_agreeing + 1, dtype=np.int64)
    y[0] = 1
    y_prime = y.copy()
    y_prime[0] = 0
    return (X, y), (X.copy(), y_prime)


def threshold_cases(epsilon=1.0, n_agreeing=4):
    r"""The binary threshold release, correct and with its noise halved.

    Mechanism: :func:`dplasso.estimators.threshold.release_threshold` on the design with its
    constant column, for the public released weights :math:`w = (1, 0)` (feature weight 1,
    intercept 0; :math:`R = 1`), runs batched as ``K`` identical weight columns. Output: the
    released offset (one of the 256 grid points; threshold events, ``{g > 0}`` among them).

    Worst-case pair. Every row is zero, so every score is 0 and the grid splits into
    :math:`A = \{g > 0\}` (predict 1) and :math:`B = \{g \le 0\}` (predict 0), 128 points
    each. Row 0 has label 1 in :math:`D` and 0 in :math:`D'`; ``n_agreeing`` rows have label
    0 in both. The flip moves :math:`u` by :math:`+1` on :math:`A` and :math:`-1` on
    :math:`B`, in opposite directions, and :math:`B` dominates, so
    :math:`P_D(A)/P_{D'}(A) = (1 + e^{\varepsilon(k+1)/2})/(1 + e^{\varepsilon(k-1)/2})`
    (``k = n_agreeing``) tends to :math:`e^{\varepsilon}`: 0.87 of the bound at ``k = 4``,
    with :math:`P_D(A) = 0.18` (power; ``k = 6`` gives 0.96 at :math:`P_D(A) = 0.08`).

    Variant ``halved-noise``: ``release_threshold`` called with twice the budget, so its
    temperature :math:`2/\varepsilon_b` is halved (true :math:`2\varepsilon_b`).
    """
    D, D_prime = _scores_at_zero_pair(n_agreeing)
    w = np.array([1.0, 0.0])
    cases = []
    for release in (release_threshold,
                    with_argument(release_threshold, "epsilon", lambda e: 2.0 * e,
                                  "halved-noise")):

        def mechanism(data, size, rng, release=release):
            X, y = data
            design = prepare_design(X, fit_intercept=True, bounds="error")
            offsets, _ = release(design, y, np.repeat(w[:1, np.newaxis], size, axis=1),
                                 np.zeros(size), n_classes=2, epsilon=epsilon, rng=rng)
            return offsets

        cases.append(AuditCase(
            f"private threshold, binary (eps_b={epsilon:g}, 256 offsets)",
            getattr(release, "broken_variant", "correct"), mechanism, D, D_prime, epsilon,
            0.0, "threshold", None,
            f"{REPLACE_ONE}: crafted, one label flipped among {n_agreeing + 1} rows of score "
            f"0; u moves by +1 on g > 0 and -1 on g <= 0", release=release_threshold))
    return cases


def _class_and_side(offsets):
    """The class whose offset the release moved and the side of 0 it fell on, as a code 0..5
    (``2 c + [g > 0]``); for rows of score 0 the utilities are constant on each side."""
    moved = np.argmax(offsets != 0.0, axis=1)
    chosen = offsets[np.arange(offsets.shape[0]), moved]
    return (2 * moved + (chosen > 0)).astype(np.int64)


def threshold_multiclass_cases(epsilon=3.0):
    r"""The three-class threshold release, correct and with its noise halved.

    Mechanism: :func:`dplasso.estimators.threshold.release_threshold` with ``n_classes=3``
    for public weights whose scores are 0 on every row (:math:`w_1 = e_1`, feature 1 zero;
    :math:`R = 1`); output projected to the moved class and the side of 0 of its offset
    (:func:`_class_and_side`, a set event over 6 codes).

    Pair: three rows, labels :math:`(0, 1, 1)` in :math:`D` and :math:`(1, 1, 1)` in
    :math:`D'`. With every score 0, pair :math:`(c, g)` predicts :math:`c` for :math:`g > 0`
    and :math:`c`'s rival (class 1 for class 0, else class 0) for :math:`g \le 0`. The flip
    lowers :math:`u(0, g > 0)` from 1 to 0 while the pairs that predict class 1 gain a row,
    so the normaliser grows: the loss of the code "class 0, :math:`g > 0`" is
    :math:`\varepsilon_b/2 + \ln(Z'/Z)`, 0.90 of :math:`\varepsilon_b` at
    :math:`\varepsilon_b = 3` in exact arithmetic.

    Variant ``halved-noise``: ``release_threshold`` called with twice the budget, so its
    temperature is halved (true loss up to :math:`2\varepsilon_b`).
    """
    y = np.array([0, 1, 1])
    y_prime = np.array([1, 1, 1])
    X = np.zeros((3, 1))
    W = np.zeros((2, 3))
    W[0, 0] = 1.0
    cases = []
    for release in (release_threshold,
                    with_argument(release_threshold, "epsilon", lambda e: 2.0 * e,
                                  "halved-noise")):

        def mechanism(data, size, rng, release=release):
            X, y = data
            design = prepare_design(X, fit_intercept=True, bounds="error")
            offsets, _ = release(design, y, np.repeat(W[:1, :, np.newaxis], size, axis=2),
                                 np.zeros((3, size)), n_classes=3, epsilon=epsilon, rng=rng)
            return offsets.T

        cases.append(AuditCase(
            f"private threshold, 3 classes (eps_b={epsilon:g}, 768 pairs)",
            getattr(release, "broken_variant", "correct"), mechanism, (X, y),
            (X.copy(), y_prime), epsilon, 0.0, "set", _class_and_side,
            f"{REPLACE_ONE}: crafted, label 0 -> 1 on one of three rows of score 0",
            release=release_threshold))
    return cases
