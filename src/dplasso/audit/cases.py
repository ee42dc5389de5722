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
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from dplasso.audit.broken import (
    halved_noise,
    ignored_dimension,
    ignored_composition,
    understated_sensitivity,
    wrong_count_epsilon,
)
from dplasso.audit.empirical import audit_mechanism
from dplasso.audit.sensitivity import sensitivity_search
from dplasso.audit.statistics import (
    FeatureSum,
    FrankWolfeScores,
    LabelCount,
    LassoSupportSize,
    SplitScreening,
)
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators.count import noisy_count
from dplasso.estimators.params import DEFAULT_COUNT_FRACTION
from dplasso.estimators.private_frank_wolfe import private_frank_wolfe_trials
from dplasso.optim.frank_wolfe import frank_wolfe
from dplasso.optim.l1_ball import random_l1_ball_init
from dplasso.optim.losses import LogisticLoss, MultinomialLoss, SquaredLoss
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
from dplasso.screening.private import split_screening_sensitivity
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
    """The sensitivity cases of the proofs table (all but the Sparsifier count).

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
