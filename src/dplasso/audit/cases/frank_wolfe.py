r"""Audits and searches of private Frank-Wolfe: the vertex scores, one step's selection,
a whole fit.

The scores' sensitivity is the library's :func:`~dplasso.privacy.calibration.fw_score_sensitivity`,
checked against lemma ``lem-fw-score-sensitivity`` (:math:`2\lambda G/n`); one step's selection
runs the library's selector at the scale calibrated for it; a whole fit runs the estimators'
batched path :func:`~dplasso.estimators.private_frank_wolfe.private_frank_wolfe_trials`.
"""
from __future__ import annotations

from unittest import mock

import numpy as np
import scipy.sparse as sp

from dplasso.audit.broken import halved_noise, ignored_composition, understated_sensitivity
from dplasso.audit.cases._base import AuditCase, SensitivityCase
from dplasso.audit.statistics import FrankWolfeScores
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators import private_frank_wolfe
from dplasso.estimators.private_frank_wolfe import private_frank_wolfe_trials
from dplasso.optim.l1_ball import random_l1_ball_init
from dplasso.optim.losses import LogisticLoss, MultinomialLoss, SquaredLoss
from dplasso.privacy.calibration import (
    calibrate_exponential_mechanism,
    calibrate_report_noisy_min,
    fw_score_sensitivity,
)
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.selection import (
    ExponentialMechanismSelector,
    ReportNoisyMinSelector,
    exponential_mechanism_min,
    exponential_mechanism_scale,
    report_noisy_min,
    report_noisy_min_scale,
)

__all__ = ["SELECTORS", "fw_score_sensitivity_cases", "selection_cases",
           "frank_wolfe_fit_cases"]


SELECTORS = {
    "report-noisy-min": (report_noisy_min, report_noisy_min_scale, ReportNoisyMinSelector,
                         calibrate_report_noisy_min, "laplace"),
    "exponential-mechanism": (exponential_mechanism_min, exponential_mechanism_scale,
                              ExponentialMechanismSelector, calibrate_exponential_mechanism,
                              "exponential"),
}
"""Selector name -> (selector function, one-step scale, Frank-Wolfe selector class, T-step
calibration, the estimators' ``selection`` name)."""


def fw_score_sensitivity_cases(X, labels, rng, lam=5.0):
    r"""The vertex scores :math:`\pm\lambda g` (lemma ``lem-fw-score-sensitivity``).

    Tight cases on the Rademacher design ``X`` (rows at the bound): the scores at
    ``W = lam e_1`` (on the boundary of the ball), where a row misclassified along ``e_1``
    has residual ``sigma(5) = 0.9933`` (logistic), so the bound :math:`2\lambda/n` is
    attained up to that factor on the other coordinates; the squared loss (:math:`|y| \le
    1`, bound :math:`2\lambda(\lambda + 1)/n`) and three classes likewise. Non-tight cases
    (Gaussian design scaled to the domain, a sparse design, a random point of the ball)
    check the bound where nothing is extreme. ``rng`` continues the caller's stream.
    """
    n, p = X.shape
    W_edge = np.zeros((p, 1))
    W_edge[0, 0] = lam
    logistic = 2.0 * lam / n  # the lemma: G = 1
    cases = [SensitivityCase(
        "FW scores, logistic, rows at the bound", FrankWolfeScores(LogisticLoss(), W_edge, lam),
        X, labels, fw_score_sensitivity("logistic", lam, n), "inf", theorem=True, tight=True,
        proven=logistic)]
    y_bound = 1.0
    responses = y_bound * rng.choice(np.array([-1.0, 1.0]), size=n)
    cases.append(SensitivityCase(
        "FW scores, squared loss, rows at the bound",
        FrankWolfeScores(SquaredLoss(y_bound=y_bound), W_edge, lam), X, responses,
        fw_score_sensitivity("squared", lam, n, y_bound=y_bound), "inf", theorem=True,
        tight=True, proven=2.0 * lam * (lam + y_bound) / n))
    n_classes = 3
    W_multi = np.zeros((p, n_classes, 1))
    W_multi[0, 0, 0] = lam
    classes = rng.integers(0, n_classes, n).astype(np.float64)
    cases.append(SensitivityCase(
        "FW scores, multinomial (3 classes), rows at the bound",
        FrankWolfeScores(MultinomialLoss(n_classes), W_multi, lam), X, classes,
        fw_score_sensitivity("multinomial", lam, n), "inf", theorem=True, tight=True,
        proven=logistic))
    data = sparse_logistic_synthetic(n=n, p=p, k=2, random_state=rng)
    W_random = random_l1_ball_init((p, 3), lam, rng)
    cases.append(SensitivityCase(
        "FW scores, logistic, Gaussian design, random W",
        FrankWolfeScores(LogisticLoss(), W_random, lam), data.X, data.y,
        fw_score_sensitivity("logistic", lam, n), "inf", theorem=True, tight=False,
        proven=logistic))
    X_sparse = sp.random(n, 4 * p, density=0.15, format="csr", random_state=rng,
                         data_rvs=lambda k: rng.uniform(-1.0, 1.0, k))
    W_sparse = random_l1_ball_init((4 * p, 2), lam, rng)
    cases.append(SensitivityCase(
        "FW scores, logistic, sparse design, random W",
        FrankWolfeScores(LogisticLoss(), W_sparse, lam), X_sparse, labels,
        fw_score_sensitivity("logistic", lam, n), "inf", theorem=True, tight=False,
        search={"zero_fraction": 0.85}, proven=logistic))
    return cases


def _selection_pair(n, p, n_pushing):
    """Logistic data at ``W = lam e_1`` whose replaced row moves scores 2..p by ~Delta."""
    X = np.zeros((n, p))
    X[0] = -1.0
    X[0, 0] = 1.0
    X[1:1 + n_pushing, 1:] = -1.0
    y = np.zeros(n)
    X_prime = X.copy()
    X_prime[0] = 1.0
    return (X, y), (X_prime, y.copy())


def selection_cases(selector="exponential-mechanism", step_epsilon=3.0, n=60, p=5,
                    lam=5.0, n_pushing=4):
    r"""One private Frank-Wolfe step's vertex choice, correct and broken.

    The mechanism computes the ``2p`` vertex scores at ``W = lam e_1`` (logistic loss,
    :class:`~dplasso.audit.statistics.FrankWolfeScores`) and selects one vertex with the
    selector at the scale calibrated for the per-step ``step_epsilon`` and the sensitivity
    :math:`\Delta = 2\lambda/n` (``fw_score_sensitivity``); runs are batched as the ``K``
    columns of the score matrix.

    Worst-case pair. Row 0 is :math:`x = (1, -1, \dots, -1)`, label 0: it is misclassified
    along :math:`e_1`, so its residual is :math:`\sigma(\lambda) = 0.9933`; its neighbour is
    :math:`x' = (1, 1, \dots, 1)`, label 0, with the same residual. Every gradient
    coordinate :math:`j \ge 2` moves by :math:`2\sigma(\lambda)/n`, so the scores of
    :math:`+\lambda e_j` rise and those of :math:`-\lambda e_j` fall by
    :math:`0.9933\Delta`, in opposite directions, the configuration in which the
    selection's privacy loss reaches its bound :math:`2\Delta/\text{scale}`: the ratio for
    the set :math:`\{-\lambda e_j\}` tends to :math:`e^{\varepsilon_0}` when the
    :math:`+\lambda e_j` dominate. ``n_pushing`` rows :math:`(0, -1, \dots, -1)` (residual
    1/2) make them dominate; rows of zeros carry no gradient.

    Variants: ``halved-noise`` (the selector with half the scale),
    ``sensitivity-understated`` (the one-step scale with 1/1.2 of the sensitivity).

    The defaults (``step_epsilon = 3``, ``n_pushing = 4``, ``n = 60``) were chosen by a
    scan of the audit's power: the ratio of the :math:`-\lambda e_j` set approaches
    :math:`e^{\varepsilon_0}` only in the tail, so a stronger dominance (more pushing rows,
    larger :math:`\varepsilon_0`) raises the ratio but lowers the probability of the
    event. With these values :math:`2 \cdot 10^5` runs flag ``halved-noise`` and
    :math:`2 \cdot 10^6` runs flag ``sensitivity-understated`` (a 20% error) for both
    selectors.
    """
    select, scale_for_step, _, _, _ = SELECTORS[selector]
    W = np.zeros((p, 1))
    W[0, 0] = lam
    scores = FrankWolfeScores(LogisticLoss(), W, lam)
    sensitivity = fw_score_sensitivity("logistic", lam, n)
    D, D_prime = _selection_pair(n, p, n_pushing)
    moved = float(np.max(np.abs(scores(*D) - scores(*D_prime))))
    cases = []
    for choose, scale_of in [(select, scale_for_step), (halved_noise(select), scale_for_step),
                             (select, understated_sensitivity(scale_for_step))]:
        variant = getattr(choose, "broken_variant", getattr(scale_of, "broken_variant",
                                                            "correct"))
        scale = scale_of(sensitivity, step_epsilon)

        def mechanism(data, size, rng, choose=choose, scale=scale):
            column = scores(*data)
            return choose(np.broadcast_to(column, (column.shape[0], size)), scale, rng)

        cases.append(AuditCase(
            f"{selector}, one FW step (eps0={step_epsilon:g})", variant, mechanism, D,
            D_prime, step_epsilon, 0.0, "set", None,
            f"{REPLACE_ONE}: crafted, scores move by {moved / sensitivity:.4f} x Delta "
            f"in opposite directions (W = lam e_1, lam={lam:g}, n={n})", release=select))
    return cases


def _fit_pair(n, p):
    """One row ``(1, ..., 1)`` whose label flips; every other row is zero."""
    X = np.zeros((n, p))
    X[0] = 1.0
    y = np.zeros(n)
    y_prime = y.copy()
    y_prime[0] = 1.0
    return (X, y), (X.copy(), y_prime)


def _sum_of_coefficients(W_trials):
    return W_trials.sum(axis=1)


def frank_wolfe_fit_cases(selector="report-noisy-min", epsilon=2.0, delta=1e-5, n=10, p=5,
                          n_iter=10, lam=5.0):
    r"""A whole private Frank-Wolfe fit (logistic loss), correct and with composition ignored.

    Correct: the estimators' batched path
    :func:`dplasso.estimators.private_frank_wolfe.private_frank_wolfe_trials` (zero start,
    no intercept column, ``n_iter`` steps, selection calibrated for the total
    ``(epsilon, delta)`` by ``calibrate_selection``: at the defaults basic composition for
    report-noisy-min, zCDP for the exponential mechanism), runs batched as trials. Broken
    (``composition-ignored``): the same engine path with its calibration replaced by
    :func:`~dplasso.audit.broken.ignored_composition` of itself, which spends the whole
    ``epsilon`` on every step. Output projected to the sum of the
    coefficients, a scalar.

    Pair: one row :math:`x = (1, \dots, 1)` with label 0 vs 1, every other row zero (zero
    rows carry no gradient, so the law of the fit is the same for every ``n``: scores and
    :math:`\Delta` both scale as 1/n; ``n = 10`` keeps it cheap). The label flip moves the
    residual by exactly 1 at every iterate, so *every* step's scores move by
    :math:`\Delta/2`, the :math:`+\lambda e_j` one way and the :math:`-\lambda e_j` the
    other, and every step's choice between the two groups leaks; the sum of the
    coefficients adds up those choices. (A full-:math:`\Delta` move needs residuals near
    :math:`\pm 1`, which the fit itself would have to create and keep.)
    """
    _, scale_for_step, _, calibrate, selection = SELECTORS[selector]
    D, D_prime = _fit_pair(n, p)
    rule = private_frank_wolfe._CALIBRATIONS[selection][1]
    broken = {selection: (ignored_composition(calibrate, scale_for_step), rule)}

    def correct(data, size, rng):
        X, y = data
        return private_frank_wolfe_trials(
            X, y, lam=lam, n_iter=n_iter, epsilon=epsilon, delta=delta, n_trials=size,
            selection=selection, fit_intercept=False, random_state=rng).W.T

    def composition_ignored(data, size, rng):
        with mock.patch.dict(private_frank_wolfe._CALIBRATIONS, broken):
            return correct(data, size, rng)

    name = (f"private FW fit, {selector} (eps={epsilon:g}, delta={delta:g}, T={n_iter}, "
            f"p={p})")
    pair = (f"{REPLACE_ONE}: crafted, one label flipped on the row (1,...,1); every step's "
            "scores move by Delta/2")
    return [AuditCase(name, variant, mechanism, D, D_prime, epsilon, delta, "threshold",
                      _sum_of_coefficients, pair, release=private_frank_wolfe_trials)
            for variant, mechanism in (("correct", correct),
                                       ("composition-ignored", composition_ignored))]
