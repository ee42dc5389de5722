r"""The sensitivity searches and privacy audits of the proofs chapter, defined once.

The proofs tests (``tests/proofs/test_sensitivity_*.py``, ``test_audit_*.py``) and
:func:`dplasso.audit.report.proofs_tables` run the same cases; only the trial counts differ.

Sensitivity cases (:func:`sensitivity_cases`) pair a privatised quantity with a dataset and
its declared replace-one sensitivity; ``theorem`` says whether the declared value is a proven
bound (the search must then stay below it) and ``tight`` whether the dataset is built so that
the bound is nearly attained (the search must then come close to it).

Audit cases (``*_cases`` factories) pair a mechanism, in its correct form and in each of its
broken variants (:mod:`dplasso.audit.broken`), with the neighbouring pair that makes its
privacy bound (nearly) tight, so that the audit has power. Each factory's docstring says why
its pair is the worst case.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from dplasso.audit.broken import (
    halved_noise,
    ignored_dimension,
    ignored_composition,
    reads_data,
    understated_sensitivity,
    with_argument,
    wrong_count_epsilon,
)
from dplasso.audit.empirical import audit_mechanism
from dplasso.audit.sensitivity import sensitivity_search
from dplasso.audit.statistics import (
    AccuracyCountUtility,
    BlockMedianUtility,
    FeatureSum,
    FrankWolfeScores,
    LabelCount,
    LassoSupportSize,
    ScreeningVector,
    SplitScreening,
    ThresholdUtility,
)
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators.count import noisy_count
from dplasso.estimators.params import DEFAULT_COUNT_FRACTION, DEFAULT_LAM
from dplasso.estimators.private_count import (
    accuracy_count,
    block_median_count,
    block_support_sizes,
    noise_floor_count,
)
from dplasso.estimators.private_frank_wolfe import private_frank_wolfe_trials
from dplasso.estimators.problem import prepare_design
from dplasso.estimators.threshold import release_threshold
from dplasso.optim.frank_wolfe import frank_wolfe
from dplasso.optim.l1_ball import random_l1_ball_init
from dplasso.optim.losses import LogisticLoss, MultinomialLoss, SquaredLoss
from dplasso.optim.reference import solve_reference
from dplasso.privacy.calibration import (
    calibrate_exponential_mechanism,
    calibrate_report_noisy_min,
    fw_score_sensitivity,
)
from dplasso.privacy.discrete_laplace import discrete_laplace_noise, discrete_laplace_scale
from dplasso.privacy.gaussian import gaussian_noise, gaussian_sigma_analytic
from dplasso.privacy.laplace import laplace_noise, laplace_scale
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator
from dplasso.screening.private import (
    release_screening_statistic,
    screening_sensitivity,
    split_screening_sensitivity,
)
from dplasso.screening.rule import column_norms
from dplasso.privacy.selection import (
    ExponentialMechanismSelector,
    ReportNoisyMinSelector,
    exponential_mechanism_min,
    exponential_mechanism_scale,
    report_noisy_min,
    report_noisy_min_scale,
)

__all__ = [
    "SensitivityCase",
    "AuditCase",
    "SELECTORS",
    "sensitivity_cases",
    "count_sensitivity_case",
    "count_worst_case_pair",
    "laplace_cases",
    "discrete_laplace_cases",
    "gaussian_cases",
    "selection_cases",
    "sparsifier_count_cases",
    "frank_wolfe_fit_cases",
    "threshold_sensitivity_cases",
    "block_median_sensitivity_case",
    "accuracy_count_sensitivity_cases",
    "threshold_cases",
    "threshold_multiclass_cases",
    "block_median_cases",
    "accuracy_count_cases",
    "noise_floor_cases",
    "screening_cases",
    "split_screening_sensitivity_case",
    "split_screening_cases",
]


@dataclass(frozen=True, eq=False)
class SensitivityCase:
    """A privatised quantity, a dataset, and its declared replace-one sensitivity.

    Attributes
    ----------
    quantity : str
        What is privatised.
    statistic : callable
        ``statistic(X, y) -> ndarray`` (see :mod:`dplasso.audit.statistics`).
    X, y
        The dataset searched around.
    declared : float
        The declared sensitivity (from the project's calibration where one exists).
    norm : str
        Norm of the change (``"inf"``, ``"1"``, ``"2"``).
    theorem : bool
        Whether ``declared`` is a proven bound.
    tight : bool
        Whether the dataset is built so that the bound is nearly attained.
    search : dict
        Keyword arguments of :func:`~dplasso.audit.sensitivity.sensitivity_search` fixed by
        the case (directions, ascent settings).
    """

    quantity: str
    statistic: object
    X: object
    y: np.ndarray
    declared: float
    norm: str
    theorem: bool
    tight: bool
    search: dict = field(default_factory=dict)

    def run(self, *, n_random, n_rows, rng=None, declared=None):
        """Run the search (``declared`` overrides the case's declared value)."""
        return sensitivity_search(
            self.statistic, self.X, self.y, self.declared if declared is None else declared,
            norm=self.norm, n_random=n_random, n_rows=n_rows, rng=rng, **self.search)


@dataclass(frozen=True, eq=False)
class AuditCase:
    """One mechanism (correct or a broken variant) on its worst-case neighbouring pair.

    Attributes
    ----------
    mechanism_name : str
        The mechanism family (and its setting).
    variant : str
        ``"correct"`` or the name of a broken variant.
    mechanism : callable
        ``mechanism(dataset, size, rng) -> ndarray`` (batched runs).
    D, D_prime
        The neighbouring datasets (replace-one).
    eps_claimed : float
        The epsilon the (possibly broken) code claims.
    delta : float
        The claim's delta.
    event : str
        ``"threshold"`` or ``"set"``.
    projection : callable or None
        Maps a batch of vector outputs to scalars.
    pair : str
        The neighbouring pair, in words.
    """

    mechanism_name: str
    variant: str
    mechanism: object
    D: object
    D_prime: object
    eps_claimed: float
    delta: float
    event: str
    projection: object
    pair: str

    def run(self, n_trials, alpha, rng=None):
        """Audit the case: :func:`~dplasso.audit.empirical.audit_mechanism`."""
        return audit_mechanism(self.mechanism, self.D, self.D_prime, n_trials, alpha,
                               self.delta, rng, eps_claimed=self.eps_claimed,
                               event=self.event, projection=self.projection)


def _rademacher(rng, n, p):
    return rng.choice(np.array([-1.0, 1.0]), size=(n, p))


def _worst_pair(statistic, X, y, declared, rng):
    result = sensitivity_search(statistic, X, y, declared, rng=rng)
    return (X, y), result.witness.apply(X, y), result


def sensitivity_cases(random_state=0):
    """The sensitivity cases of the proofs table (all but the Sparsifier's LASSO count).

    Datasets (``random_state`` seeds them): a Rademacher design (every entry ``+-1``, rows at
    the bound, labels random) makes the bounds of the sums and of the Frank-Wolfe scores
    attainable; the Frank-Wolfe scores are taken at ``W = lam e_1`` (on the boundary of the
    ball, ``lam = 5``), where a row misclassified along ``e_1`` has residual
    ``sigma(5) = 0.9933`` (logistic), so the bound ``2 lam / n`` is attained up to that
    factor on the other coordinates. Non-tight cases (Gaussian design scaled to the domain,
    a sparse design, a random point of the ball) check the bound where nothing is extreme.

    Returns
    -------
    list of SensitivityCase
    """
    rng = as_generator(random_state)
    n, p, lam = 40, 6, 5.0
    X = _rademacher(rng, n, p)
    labels = rng.integers(0, 2, n).astype(np.float64)
    W_edge = np.zeros((p, 1))
    W_edge[0, 0] = lam
    cases = [
        SensitivityCase("feature sum (Laplace / Gaussian query)", FeatureSum(0), X, labels,
                        2.0, "1", theorem=True, tight=True),
        SensitivityCase("label count (double-geometric query)", LabelCount(), X, labels,
                        1.0, "1", theorem=True, tight=True),
        SensitivityCase("FW scores, logistic, rows at the bound", FrankWolfeScores(
            LogisticLoss(), W_edge, lam), X, labels,
            fw_score_sensitivity("logistic", lam, n), "inf", theorem=True, tight=True),
    ]
    y_bound = 1.0
    responses = y_bound * rng.choice(np.array([-1.0, 1.0]), size=n)
    cases.append(SensitivityCase(
        "FW scores, squared loss, rows at the bound",
        FrankWolfeScores(SquaredLoss(y_bound=y_bound), W_edge, lam), X, responses,
        fw_score_sensitivity("squared", lam, n, y_bound=y_bound), "inf", theorem=True,
        tight=True))
    n_classes = 3
    W_multi = np.zeros((p, n_classes, 1))
    W_multi[0, 0, 0] = lam
    classes = rng.integers(0, n_classes, n).astype(np.float64)
    cases.append(SensitivityCase(
        "FW scores, multinomial (3 classes), rows at the bound",
        FrankWolfeScores(MultinomialLoss(n_classes), W_multi, lam), X, classes,
        fw_score_sensitivity("multinomial", lam, n), "inf", theorem=True, tight=True))
    data = sparse_logistic_synthetic(n=n, p=p, k=2, random_state=rng)
    W_random = random_l1_ball_init((p, 3), lam, rng)
    cases.append(SensitivityCase(
        "FW scores, logistic, Gaussian design, random W",
        FrankWolfeScores(LogisticLoss(), W_random, lam), data.X, data.y,
        fw_score_sensitivity("logistic", lam, n), "inf", theorem=True, tight=False))
    X_sparse = sp.random(n, 4 * p, density=0.15, format="csr", random_state=rng,
                         data_rvs=lambda k: rng.uniform(-1.0, 1.0, k))
    W_sparse = random_l1_ball_init((4 * p, 2), lam, rng)
    cases.append(SensitivityCase(
        "FW scores, logistic, sparse design, random W",
        FrankWolfeScores(LogisticLoss(), W_sparse, lam), X_sparse, labels,
        fw_score_sensitivity("logistic", lam, n), "inf", theorem=True, tight=False,
        search={"zero_fraction": 0.85}))
    cases += threshold_sensitivity_cases(rng) + [block_median_sensitivity_case(rng)]
    cases += accuracy_count_sensitivity_cases(rng)
    return cases


def count_sensitivity_case(count_sensitivity=1, lam=5.0, n=60, p=8, random_state=0):
    """The Sparsifier count: nonzeros of the non-private L1-ball logistic fit (no theorem).

    The count is :func:`dplasso.estimators.count.lasso_support_size` (radius ``lam``,
    intercept column not counted) on :func:`dplasso.data.synthetic.sparse_logistic_synthetic`
    data (``k = 3`` true nonzeros). The declared value is ``count_sensitivity``, by default
    P1's 1; the search reports what it finds, possibly more.
    Every evaluation is a certified solve, so the search is kept small (two ascent starts of
    two rounds).

    Returns
    -------
    SensitivityCase
    """
    data = sparse_logistic_synthetic(n=n, p=p, k=3, random_state=random_state)
    return SensitivityCase(
        "Sparsifier count (nnz of the non-private L1-ball fit)", LassoSupportSize(lam),
        data.X, data.y, float(count_sensitivity), "1", theorem=False, tight=False,
        search={"ascent_starts": 2, "ascent_rounds": 2})


def count_worst_case_pair(p, m=20):
    r"""The book's ``prop-count-sensitivity``: replace-one neighbours with counts 1 and ``p``.

    :math:`D`: ``m/2`` rows :math:`(+e_1, 1)` and ``m/2`` rows :math:`(-e_1, 0)`; for each
    :math:`j \ge 2`, ``m/2`` rows :math:`(e_j, 1)` and ``m/2`` rows :math:`(e_j, 0)`; two zero
    rows labelled 1 and 0. :math:`D'` replaces the zero row labelled 0 by
    :math:`((0, 1, \dots, 1), 1)`. Only feature 1 carries signal in :math:`D`; in :math:`D'`
    every feature does, equally.

    Parameters
    ----------
    p : int
        Number of features, ``>= 2``.
    m : int, default=20
        Rows per feature, even and ``>= 2``.

    Returns
    -------
    tuple
        ``((X, y), (X_prime, y_prime))`` with ``n = m p + 2`` rows in
        :math:`\|x\|_\infty \le 1` and labels ``{0, 1}``.
    """
    if p < 2 or m < 2 or m % 2:
        raise ValueError(f"need p >= 2 and an even m >= 2, got p={p}, m={m}")
    half = m // 2
    X = np.zeros((m * p + 2, p))
    y = np.zeros(m * p + 2, dtype=np.int64)
    X[np.arange(m * p), np.repeat(np.arange(p), m)] = 1.0
    y[: m * p] = np.tile(np.r_[np.ones(half), np.zeros(half)], p).astype(np.int64)
    X[half:m, 0] = -1.0  # feature 1: the label-0 rows point the other way
    y[m * p] = 1
    X_prime, y_prime = X.copy(), y.copy()
    X_prime[-1, 1:] = 1.0
    y_prime[-1] = 1
    return (X, y), (X_prime, y_prime)


def laplace_cases(epsilon=1.0, random_state=0):
    r"""Laplace mechanism on a sum query, correct and broken.

    Query: :math:`\sum_i x_{i1}` (:class:`~dplasso.audit.statistics.FeatureSum`), sensitivity
    2. The pair is the search's witness on a Rademacher design: a row with
    :math:`x_{i1} = -1` replaced by one with :math:`+1`, so the query moves by exactly the
    sensitivity and the Laplace privacy loss :math:`|\,|o| - |o - 2|\,|/b` reaches
    :math:`\varepsilon` on every output outside :math:`(0, 2)`: the bound is attained.

    Variants: ``halved-noise`` (``laplace_noise`` with half the scale),
    ``sensitivity-understated`` (``laplace_scale`` with 1/1.2 of the sensitivity).
    """
    rng = as_generator(random_state)
    statistic = FeatureSum(0)
    X = _rademacher(rng, 20, 3)
    y = rng.integers(0, 2, 20).astype(np.float64)
    D, D_prime, found = _worst_pair(statistic, X, y, 2.0, rng)
    cases = []
    for noise, scale_of in [(laplace_noise, laplace_scale),
                            (halved_noise(laplace_noise), laplace_scale),
                            (laplace_noise, understated_sensitivity(laplace_scale))]:
        variant = getattr(noise, "broken_variant", getattr(scale_of, "broken_variant",
                                                           "correct"))
        scale = scale_of(2.0, epsilon)

        def mechanism(data, size, rng, noise=noise, scale=scale):
            return statistic(*data)[0] + noise(scale, size, rng)

        cases.append(AuditCase(
            f"Laplace, sum query (eps={epsilon:g})", variant, mechanism, D, D_prime, epsilon,
            0.0, "threshold", None,
            f"{REPLACE_ONE}: search witness, sum moves by {found.found:g} (sensitivity 2)"))
    return cases


def discrete_laplace_cases(epsilon=1, random_state=0):
    r"""Double-geometric (discrete Laplace) mechanism on a count, correct and broken.

    Query: the number of positive labels (sensitivity 1). The pair is the search's witness
    (a flipped label), so the count moves by exactly 1 and the privacy loss reaches
    :math:`\varepsilon` on every output outside the two counts: the bound is attained.

    Variants: ``halved-noise``, ``sensitivity-understated`` (``discrete_laplace_scale``
    with 5/6 of the sensitivity, an exact rational).
    """
    rng = as_generator(random_state)
    statistic = LabelCount()
    X = _rademacher(rng, 20, 3)
    y = rng.integers(0, 2, 20).astype(np.float64)
    D, D_prime, found = _worst_pair(statistic, X, y, 1.0, rng)
    cases = []
    for noise, scale_of in [(discrete_laplace_noise, discrete_laplace_scale),
                            (halved_noise(discrete_laplace_noise), discrete_laplace_scale),
                            (discrete_laplace_noise,
                             understated_sensitivity(discrete_laplace_scale))]:
        variant = getattr(noise, "broken_variant", getattr(scale_of, "broken_variant",
                                                           "correct"))
        scale = scale_of(1, epsilon)

        def mechanism(data, size, rng, noise=noise, scale=scale):
            return int(statistic(*data)[0]) + noise(scale, size, rng)

        cases.append(AuditCase(
            f"double-geometric, count (eps={float(epsilon):g})", variant, mechanism, D,
            D_prime, float(epsilon), 0.0, "threshold", None,
            f"{REPLACE_ONE}: search witness, count moves by {found.found:g} (sensitivity 1)"))
    return cases


def gaussian_cases(epsilon=1.0, delta=1e-2, random_state=0):
    r"""Gaussian mechanism (analytic calibration) on a sum query, correct and broken.

    Query and pair as :func:`laplace_cases` (L2 sensitivity 2, attained). The analytic
    calibration (Balle & Wang 2018) is tight: the set :math:`\{o > t\}` with the right
    :math:`t` attains :math:`P[M(D') \in S] = e^\varepsilon P[M(D) \in S] + \delta`. That set
    has probability of order :math:`\delta`, so the default ``delta = 1e-2`` keeps it
    within reach of :math:`10^6` runs; at :math:`\delta = 10^{-5}` the audit still bounds
    epsilon but cannot resolve a 20% sensitivity error.

    Variants: ``halved-noise`` (``gaussian_noise`` with half ``sigma``),
    ``sensitivity-understated`` (``gaussian_sigma_analytic`` with 1/1.2 of the sensitivity).
    """
    rng = as_generator(random_state)
    statistic = FeatureSum(0)
    X = _rademacher(rng, 20, 3)
    y = rng.integers(0, 2, 20).astype(np.float64)
    D, D_prime, found = _worst_pair(statistic, X, y, 2.0, rng)
    cases = []
    for noise, sigma_of in [
            (gaussian_noise, gaussian_sigma_analytic),
            (halved_noise(gaussian_noise, "sigma"), gaussian_sigma_analytic),
            (gaussian_noise, understated_sensitivity(gaussian_sigma_analytic, "l2_sensitivity"))]:
        variant = getattr(noise, "broken_variant", getattr(sigma_of, "broken_variant",
                                                           "correct"))
        sigma = sigma_of(2.0, epsilon, delta)

        def mechanism(data, size, rng, noise=noise, sigma=sigma):
            return statistic(*data)[0] + noise(sigma, size, rng)

        cases.append(AuditCase(
            f"Gaussian (analytic), sum query (eps={epsilon:g}, delta={delta:g})", variant,
            mechanism, D, D_prime, epsilon, delta, "threshold", None,
            f"{REPLACE_ONE}: search witness, sum moves by {found.found:g} (L2 sensitivity 2)"))
    return cases


SELECTORS = {
    "report-noisy-min": (report_noisy_min, report_noisy_min_scale, ReportNoisyMinSelector,
                         calibrate_report_noisy_min, "laplace"),
    "exponential-mechanism": (exponential_mechanism_min, exponential_mechanism_scale,
                              ExponentialMechanismSelector, calibrate_exponential_mechanism,
                              "exponential"),
}
"""Selector name -> (selector function, one-step scale, Frank-Wolfe selector class, T-step
calibration, the estimators' ``selection`` name)."""


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
            f"in opposite directions (W = lam e_1, lam={lam:g}, n={n})"))
    return cases


def sparsifier_count_cases(count_case, search, epsilon_count=1, count_sensitivity=1,
                           count_fraction=DEFAULT_COUNT_FRACTION):
    r"""The Sparsifier's noisy count, correct and with the wrong epsilon.

    Mechanism: :func:`dplasso.estimators.count.noisy_count` (P1's
    :math:`\tilde c = \mathrm{clip}(c + Z, 1, p)`, :math:`Z` double-geometric of scale
    ``count_sensitivity / epsilon_count``, exact sampler) applied to the non-private count
    ``count_case.statistic`` of the dataset.

    Pair: the witness of the count search ``search`` (run on ``count_case``), the
    neighbour that moved the count most. When that change exceeds ``count_sensitivity``
    the claim ``epsilon_count`` is false, and the audit of the *correct* variant can show it.

    Variant ``count-wrong-epsilon``: ``noisy_count`` called with the whole budget
    ``epsilon_count / count_fraction`` instead of the count's share.

    Parameters
    ----------
    count_case : SensitivityCase
        From :func:`count_sensitivity_case`.
    search : SearchResult
        ``count_case.run(...)``.
    epsilon_count : int, float or fractions.Fraction, default=1
        The count's share of the budget.
    count_sensitivity : int, default=1
        The declared count sensitivity the noise is calibrated to.
    count_fraction : float, default=DEFAULT_COUNT_FRACTION
        The count's share of the total budget (the Sparsifier's default, 0.25).

    Returns
    -------
    list of AuditCase
    """
    D = (count_case.X, count_case.y)
    D_prime = search.witness.apply(*D)
    count = count_case.statistic
    n_features = count_case.X.shape[1]
    cases = []
    for release in [noisy_count, wrong_count_epsilon(noisy_count, 1.0 / count_fraction)]:

        def mechanism(data, size, rng, release=release):
            return release(int(count(*data)[0]), epsilon_count, count_sensitivity, "geometric",
                           rng, n_max=n_features, size=size)

        cases.append(AuditCase(
            f"Sparsifier count (eps1={float(epsilon_count):g}, declared sensitivity "
            f"{count_sensitivity:g})", getattr(release, "broken_variant", "correct"),
            mechanism, D, D_prime, float(epsilon_count), 0.0, "threshold", None,
            f"{REPLACE_ONE}: count-search witness, count moves by {search.found:g}"))
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
    ``(epsilon, delta)``: advanced composition for report-noisy-min, zCDP for the exponential
    mechanism), runs batched as trials. Broken (``composition-ignored``): the same engine
    call, :func:`dplasso.optim.frank_wolfe.frank_wolfe`, with the selector scale from
    :func:`~dplasso.audit.broken.ignored_composition` of the same calibration, which
    spends the whole ``epsilon`` on every step. Output projected to the sum of the
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
    _, scale_for_step, selector_class, calibrate, selection = SELECTORS[selector]
    loss = LogisticLoss()
    sensitivity = fw_score_sensitivity("logistic", lam, n)
    D, D_prime = _fit_pair(n, p)
    broken_scale = ignored_composition(calibrate, scale_for_step)(epsilon, delta, n_iter,
                                                                   sensitivity)

    def correct(data, size, rng):
        X, y = data
        return private_frank_wolfe_trials(
            X, y, lam=lam, n_iter=n_iter, epsilon=epsilon, delta=delta, n_trials=size,
            selection=selection, fit_intercept=False, random_state=rng).W.T

    def composition_ignored(data, size, rng):
        X, y = data
        return frank_wolfe(loss, X, y, lam, n_iter, selector_class(broken_scale),
                           n_trials=size, rng=rng).W.T

    name = (f"private FW fit, {selector} (eps={epsilon:g}, delta={delta:g}, T={n_iter}, "
            f"p={p})")
    pair = (f"{REPLACE_ONE}: crafted, one label flipped on the row (1,...,1); every step's "
            "scores move by Delta/2")
    return [AuditCase(name, variant, mechanism, D, D_prime, epsilon, delta, "threshold",
                      _sum_of_coefficients, pair)
            for variant, mechanism in (("correct", correct),
                                       ("composition-ignored", composition_ignored))]


class _OntoShift:
    """Projection of vector outputs onto the unit direction from ``q(D)`` to ``q(D')``."""

    def __init__(self, before, after):
        shift = np.asarray(after, dtype=np.float64) - np.asarray(before, dtype=np.float64)
        self.direction = shift / np.linalg.norm(shift)

    def __call__(self, outputs):
        return np.asarray(outputs) @ self.direction


def screening_cases(epsilon=1.0, delta=1e-2, n=24, p=6, lam=4.0, random_state=0):
    r"""One private screening round (P2's release, single round), correct and broken.

    Mechanism: :func:`dplasso.screening.private.release_screening_statistic`, the release the
    screening hook makes each round: the vector :math:`q = (u_1, \dots, u_p, T)` at fixed
    public weights ``w`` plus Gaussian noise calibrated (analytic, Balle & Wang) to the
    lemma's L2 sensitivity :math:`\Delta_2` (``lem-screening-sensitivity``) for one
    ``(epsilon, delta)`` round; runs batched as trials. Output: the noisy vector, projected
    onto the direction of :math:`q(D') - q(D)` (for a Gaussian shift, the most powerful
    one-dimensional statistic).

    Pair: a logistic problem on a Rademacher design (every entry :math:`\pm 1`, so column
    norms sit at their bound :math:`\sqrt n`, the bound's tight regime) with ``w`` the
    non-private optimum (gap near 0), and the neighbour the sensitivity search finds for
    :class:`~dplasso.audit.statistics.ScreeningVector` in L2: the vector moves by about 0.78
    of :math:`\Delta_2` (the lemma is a bound, not attained).

    Variant ``sensitivity-understated``: the noise calibrated to half the lemma's
    :math:`\Delta_2` (a half declaration, the error the sensitivity test of the lemma is
    built to catch); the actual shift is then about 1.56 of the calibrated one. A 1/1.2
    understatement would stay below the calibrated shift on this pair and is not audited.

    ``delta = 1e-2`` keeps the Gaussian's tight set within reach of :math:`10^6` runs, as in
    :func:`gaussian_cases`.
    """
    rng = as_generator(random_state)
    X = _rademacher(rng, n, p)
    w_true = np.zeros(p)
    w_true[:2] = [1.5, -1.0]
    y = (X @ w_true + 0.5 * rng.standard_normal(n) > 0).astype(np.float64)
    loss = LogisticLoss()
    w = solve_reference(loss, X, y, lam, tol=1e-13).w
    statistic = ScreeningVector(loss, w, lam)
    declared = screening_sensitivity(n, p, lam, loss)
    found = sensitivity_search(statistic, X, y, declared.l2, norm="2", n_rows=None, rng=rng)
    D, D_prime = (X, y), found.witness.apply(X, y)
    projection = _OntoShift(statistic(*D), statistic(*D_prime))

    def release(data, size, rng, l2_sensitivity=declared.l2):
        X_data, y_data = data
        weights = np.broadcast_to(w[:, np.newaxis], (p, size))
        _, info = release_screening_statistic(
            X_data, y_data, weights, lam, loss, column_norms(X_data),
            replace(declared, l2=float(l2_sensitivity)), epsilon, delta, rng)
        return np.vstack([info.noisy_statistic, info.noisy_threshold[np.newaxis]]).T

    broken = understated_sensitivity(release, "l2_sensitivity", factor=Fraction(1, 2))
    name = f"private screening release, one round (eps={epsilon:g}, delta={delta:g})"
    pair = (f"{REPLACE_ONE}: search witness, the released vector moves by "
            f"{found.ratio:.3f} x its L2 sensitivity (Rademacher design, w at the optimum)")
    return [AuditCase(name, getattr(mechanism, "broken_variant", "correct"), mechanism, D,
                      D_prime, epsilon, delta, "threshold", projection, pair)
            for mechanism in (release, broken)]

def _released_weights_problem(rng, n, p, lam=5.0):
    """Rademacher rows ``(n, p)``, binary labels, and released weights drawn in the ball of
    radius ``lam`` (intercept entry last): a vector ``(p + 1,)`` and a 3-class matrix."""
    X = _rademacher(rng, n, p)
    labels = rng.integers(0, 2, n).astype(np.float64)
    w = random_l1_ball_init((p + 1, 1), lam, rng)[:, 0]
    W = random_l1_ball_init((p + 1, 3, 1), lam, rng)[..., 0]
    return X, labels, w, W


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
    X, labels, w, W = _released_weights_problem(rng, 40, 6)
    classes = rng.integers(0, 3, X.shape[0]).astype(np.float64)
    return [
        SensitivityCase("threshold utility u(g), binary (256 offsets)", ThresholdUtility(w),
                        X, labels, 1.0, "inf", theorem=True, tight=True),
        SensitivityCase("threshold utility u(c, g), 3 classes (768 pairs)",
                        ThresholdUtility(W), X, classes, 1.0, "inf",
                        theorem=True, tight=True),
    ]


def block_median_sensitivity_case(random_state=0, n=60, p=8, n_blocks=4, lam=DEFAULT_LAM):
    r"""The block-median count's rank utility :math:`u(k)`, ``k = 1..p`` (theorem 1).

    :func:`dplasso.data.synthetic.sparse_logistic_synthetic` data (``k = 3`` true
    nonzeros) in ``n_blocks`` blocks of ``n / n_blocks`` rows, the intercept column inside
    the ball and not counted. Tight: a neighbour that changes one block's support size moves
    :math:`u` by 1 at the candidates next to the median, and small blocks' support sizes
    move easily. Every evaluation solves one block (the others are cached).

    Returns
    -------
    SensitivityCase
    """
    data = sparse_logistic_synthetic(n=n, p=p, k=3, random_state=random_state)
    return SensitivityCase(
        f"block-median rank utility u(k) ({n_blocks} blocks of {n // n_blocks} rows)",
        BlockMedianUtility(lam, n_blocks), data.X, data.y, 1.0, "inf", theorem=True,
        tight=True)


def accuracy_count_sensitivity_cases(random_state=0):
    r"""The accuracy count's utility vectors :math:`u(k)` over the public sizes (theorem 1).

    Rademacher rows (``n = 40``, ``p = 12``, the constant column appended) and released
    weights drawn in the ball of radius ``lam = 5`` (intercept entry included), held fixed
    (a public input of the release, the book's ``lemma-accuracy-count``): binary (sizes 1,
    2, 4, 8, 12), and three classes (sizes 1 to 36). Every entry is a count, or the largest
    of a size's counts over its offsets, so a label flip of a row that one size classifies
    correctly at its best offset moves that entry by exactly 1: the bound is attained.

    Returns
    -------
    list of SensitivityCase
    """
    rng = as_generator(random_state)
    X, labels, w, W = _released_weights_problem(rng, 40, 12)
    classes = rng.integers(0, 3, X.shape[0]).astype(np.float64)
    return [
        SensitivityCase("accuracy-count utility u(k), binary (5 sizes)",
                        AccuracyCountUtility(w), X, labels, 1.0, "inf", theorem=True,
                        tight=True),
        SensitivityCase("accuracy-count utility u(k), 3 classes (7 sizes)",
                        AccuracyCountUtility(W), X, classes, 1.0, "inf", theorem=True,
                        tight=True),
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
            f"0; u moves by +1 on g > 0 and -1 on g <= 0"))
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
            f"{REPLACE_ONE}: crafted, label 0 -> 1 on one of three rows of score 0"))
    return cases


def _interleave(blocks):
    """Rows of equally long block datasets interleaved: block ``b`` = rows ``i % B == b``."""
    n_blocks = len(blocks)
    X = np.empty((n_blocks * blocks[0][0].shape[0], blocks[0][0].shape[1]))
    y = np.empty(X.shape[0], dtype=np.int64)
    for b, (X_b, y_b) in enumerate(blocks):
        X[b::n_blocks], y[b::n_blocks] = X_b, y_b
    return X, y


def block_median_cases(epsilon_count=1.0, p=32, rows_per_feature=20,
                       count_fraction=DEFAULT_COUNT_FRACTION, lam=DEFAULT_LAM):
    r"""The block-median count release, correct and with the whole budget.

    Mechanism: :func:`~dplasso.estimators.private_count.block_support_sizes` (``B = 2``
    blocks, logistic loss, radius ``lam``, intercept inside the ball and not counted) then
    :func:`~dplasso.estimators.private_count.block_median_count` over :math:`k = 1..p`.

    Worst-case pair. Both blocks are the :math:`D` of :func:`count_worst_case_pair` (support
    size 1); in :math:`D'` block 0 is that pair's :math:`D'` (support size :math:`p`), one
    row replaced. Then :math:`u_D = (2, 0, \dots, 0)` and :math:`u_{D'} = (1, \dots, 1)`: the
    utility falls at :math:`k = 1` and rises everywhere else, and
    :math:`P_D(1)/P_{D'}(1) = p e^{\varepsilon_1}/(e^{\varepsilon_1} + p - 1)`, 0.95 of the
    bound :math:`e^{\varepsilon_1}` at ``p = 32``, ``eps1 = 1``, on an event of probability
    :math:`1/p` under :math:`D'`.

    Variant ``count-wrong-epsilon``: ``block_median_count`` called with the whole budget
    ``epsilon_count / count_fraction`` instead of the count's share.
    """
    block, block_prime = count_worst_case_pair(p, rows_per_feature)
    D = _interleave([block, block])
    D_prime = _interleave([block_prime, block])
    loss = LogisticLoss()
    cases = []
    for release in (block_median_count,
                    wrong_count_epsilon(block_median_count, 1.0 / count_fraction)):

        def mechanism(data, size, rng, release=release):
            X, y = data
            design = prepare_design(X, fit_intercept=True, bounds="error")
            sizes = block_support_sizes(loss, design, y, lam, 2, fit_intercept=True)
            return release(sizes, n_countable=p, epsilon=epsilon_count, rng=rng,
                           n_trials=size)

        cases.append(AuditCase(
            f"block-median count (eps1={epsilon_count:g}, B=2, p={p})",
            getattr(release, "broken_variant", "correct"), mechanism, D, D_prime,
            float(epsilon_count), 0.0, "set", None,
            f"{REPLACE_ONE}: crafted, one row of block 0 replaced; block support sizes "
            f"(1, 1) vs ({p}, 1)"))
    return cases


def accuracy_count_cases(epsilon_count=1.0, p=64, n_agreeing=3):
    r"""The accuracy-count release, correct and with twice its budget.

    Mechanism: :func:`~dplasso.estimators.private_count.accuracy_count` on the design with
    its constant column, for public released weights :math:`w = (1, 1, 0.01, \dots, 0.01)`
    (``p`` features, intercept 0), runs batched as ``K`` identical weight columns. Sizes
    :math:`1, 2, 4, \dots, p` (7 at ``p = 64``). Output: the released size (threshold events,
    ``{k <= 1}`` among them).

    Worst-case pair. ``n_agreeing`` zero rows of label 0 and ``n_agreeing`` rows
    :math:`e_1` of label 1 pin every size's best offset to :math:`(-1, 0)` (leaving it loses
    ``n_agreeing >= 2`` rows to gain at most one). Row 0 is :math:`(0, 1, \dots, 1)`: score 0
    under size 1 (predicted 0) and at least 1 under every larger size (predicted 1). Its
    label is 0 in :math:`D` and 1 in :math:`D'`, so :math:`u` moves by :math:`+1` on size 1
    and :math:`-1` on the ``S - 1`` others, and
    :math:`P_D(1)/P_{D'}(1) = e^{\varepsilon/2}(1 + (S-1)e^{\varepsilon/2})/(e^{\varepsilon/2}
    + S - 1)`: 0.85 of the bound in log at :math:`\varepsilon_1 = 1`, ``S = 7``, with
    :math:`P_{D'}(1) = 0.09`.

    Variant ``count-wrong-epsilon``: ``accuracy_count`` called with twice its budget (its
    temperature halved; true :math:`2\varepsilon_1`).
    """
    w = np.full(p, 0.01)
    w[:2] = 1.0
    X = np.zeros((2 * n_agreeing + 1, p))
    X[0, 1:] = 1.0
    X[1 + n_agreeing:, 0] = 1.0
    y = np.r_[0, np.zeros(n_agreeing, dtype=np.int64), np.ones(n_agreeing, dtype=np.int64)]
    y_prime = y.copy()
    y_prime[0] = 1
    cases = []
    for release in (accuracy_count, wrong_count_epsilon(accuracy_count, 2.0)):

        def mechanism(data, size, rng, release=release):
            X_data, labels = data
            design = prepare_design(X_data, fit_intercept=True, bounds="error")
            return release(design, labels, np.repeat(w[:, np.newaxis], size, axis=1),
                           np.zeros(size), n_classes=2, epsilon=epsilon_count,
                           rng=rng).astype(np.float64)

        cases.append(AuditCase(
            f"accuracy count (eps1={epsilon_count:g}, p={p}, 7 sizes)",
            getattr(release, "broken_variant", "correct"), mechanism, (X, y),
            (X.copy(), y_prime), epsilon_count, 0.0, "threshold", None,
            f"{REPLACE_ONE}: crafted, label 0 -> 1 on the one row that size 1 and the larger "
            "sizes classify differently; u moves by +1 on size 1 and -1 on the others"))
    return cases


def noise_floor_cases(epsilon=20.0, n=10, p=5, n_iter=10, lam=5.0):
    r"""The noise-floor count given the released weights: a coupling audit of its claim 0.

    The count (:func:`~dplasso.estimators.private_count.noise_floor_count`) spends nothing:
    it is post-processing of the private Frank-Wolfe weights (the book's
    ``lemma-noise-floor``). The audit holds the weights' release fixed: on both datasets the
    weights are drawn from the same law, private Frank-Wolfe on :math:`D` (zero start,
    intercept column, ``n_iter`` steps, report-noisy-min at ``(epsilon, 1e-5)``), which is
    what the same selection noise would give on both sides; the claim audited is the
    count's extra epsilon, 0. The correct count's output law is then the same on :math:`D`
    and :math:`D'`, whatever the pair.

    Pair: the row :math:`(1, \dots, 1)` with label 0 in :math:`D` and 1 in :math:`D'`,
    every other row zero (as :func:`frank_wolfe_fit_cases`): the flip reverses the sign of
    every coordinate of the non-private gradient. The weights' own budget ``epsilon = 20``
    is large so that they follow :math:`D`'s descent direction (negative entries) and the
    data-reading variant has something to read; the claim audited, 0 extra, does not
    depend on it.

    Variant ``reads-data`` (:func:`~dplasso.audit.broken.reads_data`): the count kept to
    the entries that agree in sign with :math:`-\nabla L(0)` of the dataset at hand.
    """
    D, D_prime = _fit_pair(n, p)
    loss = LogisticLoss()

    def released_weights(size, rng):
        return private_frank_wolfe_trials(
            *D, lam=lam, n_iter=n_iter, epsilon=epsilon, delta=1e-5, n_trials=size,
            selection="laplace", fit_intercept=True, random_state=rng).W

    public = {"n_iter": n_iter, "n_coordinates": p + 1, "lam": lam}

    def correct(data, size, rng):
        return noise_floor_count(released_weights(size, rng), **public)

    def broken(data, size, rng):
        X, y = data
        count = reads_data(noise_floor_count, loss,
                           prepare_design(X, fit_intercept=True, bounds="error"), y)
        return count(released_weights(size, rng), **public)

    pair = (f"{REPLACE_ONE}: crafted, one label flipped on the row (1,...,1); weights "
            "coupled (the same release law on D and D')")
    name = f"noise-floor count given the weights (T={n_iter}, p={p}; claim: 0 extra)"
    return [AuditCase(name, variant, mechanism, D, D_prime, 0.0, 0.0, "threshold", None, pair)
            for variant, mechanism in (("correct", correct), ("reads-data", broken))]


def _split_screening_pair(n, p, lam):
    r"""Logistic data at ``W = lam e_1`` whose replaced row moves ``|g_j|``, ``j >= 2``, by
    ``2 sigma(lam) / n`` each (the row stays misclassified along ``e_1``; two rows
    ``(0, -1, ..., -1)`` with residual 1/2 keep the sign of ``g_j`` fixed, so ``|g_j|`` moves
    as much as ``g_j``)."""
    X = np.zeros((n, p))
    X[0] = -1.0
    X[0, 0] = 1.0
    X[1:3, 1:] = -1.0
    y = np.zeros(n)
    X[3:, 0] = np.where(np.arange(3, n) % 2 == 0, 1.0, -1.0)
    y[3:] = (np.arange(3, n) % 2 == 0).astype(np.float64)
    X_prime = X.copy()
    X_prime[0] = 1.0
    return (X, y), (X_prime, y.copy())


def split_screening_sensitivity_case(n=40, p=6, lam=5.0, random_state=0):
    r"""The split screening release (lemma ``lem-split-screening-sensitivity``), L2 norm.

    Rescaled statistic :class:`~dplasso.audit.statistics.SplitScreening` (declared L2
    sensitivity :math:`\sqrt2`) at ``W = lam e_1`` on a Rademacher design (rows at the
    bound, random labels), where a row misclassified along :math:`e_1` has residual
    :math:`\sigma(\lambda)` and moves every other gradient coordinate by nearly
    :math:`\Delta_g`: the gradient part of the bound is nearly attained (``tight``).

    Returns
    -------
    SensitivityCase
    """
    rng = as_generator(random_state)
    X = _rademacher(rng, n, p)
    labels = rng.integers(0, 2, n).astype(np.float64)
    w = np.zeros(p)
    w[0] = lam
    return SensitivityCase(
        "split screening release (|g|, gap), logistic, rows at the bound",
        SplitScreening(LogisticLoss(), w, lam), X, labels, math.sqrt(2.0), "2",
        theorem=True, tight=True)


def split_screening_cases(epsilon=1.0, delta=1e-2, n=40, p=9, lam=5.0):
    r"""The split screening release (:func:`dplasso.screening.private.private_screen_split`),
    correct and broken.

    Mechanism: the release of :func:`~dplasso.screening.private.private_screen_split`,
    ``(|g|, G_used)`` (:meth:`~dplasso.audit.statistics.SplitScreening.parts`) plus Gaussian
    noise of sds :math:`\sigma\sqrt p\,\Delta_g` and :math:`\sigma\Delta_G`, with
    :math:`\sigma` the analytic scale for L2 sensitivity :math:`\sqrt2` (the library's
    :func:`split_screening_sensitivity` and
    :func:`~dplasso.privacy.gaussian.gaussian_sigma_analytic`); projected, after rescaling
    by the true sensitivities, onto the unit direction of the pair's exact difference (the
    most informative scalar for a Gaussian shift).

    Pair (:func:`_split_screening_pair`): row 0 is :math:`(1, -1, \dots, -1)`, label 0,
    misclassified along :math:`e_1` at ``W = lam e_1`` (residual :math:`\sigma(\lambda)`);
    its neighbour :math:`(1, \dots, 1)` keeps the residual and moves gradient coordinates
    :math:`2..p` by :math:`2\sigma(\lambda)/n` (two rows :math:`(0, -1, \dots, -1)` keep
    their sign): a rescaled gradient change of :math:`\sigma(\lambda)\sqrt{(p-1)/p}`.

    Variants: ``halved-noise``; ``dimension-ignored``
    (:func:`~dplasso.audit.broken.ignored_dimension`: the sensitivity computed for one
    coordinate, so the gradient part gets :math:`\Delta_g` instead of
    :math:`\sqrt p\,\Delta_g`; ``p = 9``: a third of its noise).
    """
    loss = LogisticLoss()
    statistic = SplitScreening(loss, np.r_[lam, np.zeros(p - 1)], lam)
    D, D_prime = _split_screening_pair(n, p, lam)
    true = split_screening_sensitivity(n, p, lam, loss)
    unit = np.r_[np.full(p, true.gradient_l2), true.gap]  # rescales to the lemma's sqrt 2
    exact = {id(D): np.append(*statistic.parts(*D)), id(D_prime): np.append(
        *statistic.parts(*D_prime))}
    difference = (exact[id(D_prime)] - exact[id(D)]) / unit
    direction = difference / np.linalg.norm(difference)
    moved = float(np.linalg.norm(difference))
    cases = []
    for sensitivity_of, noise in [(split_screening_sensitivity, gaussian_noise),
                                  (split_screening_sensitivity,
                                   halved_noise(gaussian_noise, "sigma")),
                                  (ignored_dimension(split_screening_sensitivity),
                                   gaussian_noise)]:
        variant = getattr(noise, "broken_variant", getattr(sensitivity_of, "broken_variant",
                                                           "correct"))
        used = sensitivity_of(n, p, lam, loss)
        sigma = gaussian_sigma_analytic(used.l2, epsilon, delta)
        scale = np.r_[np.full(p, used.gradient_l2), used.gap]  # noise sds / sigma

        def mechanism(data, size, rng, noise=noise, sigma=sigma, scale=scale):
            # the release of private_screen_split: |g| and the gap, each at its own scale
            return exact[id(data)] + scale * noise(sigma, (size, p + 1), rng)

        cases.append(AuditCase(
            f"split screening release (eps={epsilon:g}, delta={delta:g}, p={p})", variant,
            mechanism, D, D_prime, epsilon, delta, "threshold",
            lambda batch: (batch / unit) @ direction,
            f"{REPLACE_ONE}: crafted, rescaled release moves by {moved:.4f} "
            f"(L2 sensitivity sqrt 2 = {math.sqrt(2):.4f})"))
    return cases
