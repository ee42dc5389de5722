r"""The noise each private estimator draws follows the law its own ledger states.

Checked through the public ``fit`` only, on one tiny problem, many times (one seed per fit):
the law under test is read from the fitted ``privacy_ledger_`` (never from the calibration
code), the observed outputs are decoded from ``coef_``, ``intercept_`` and
``n_nonzero_target_``, and a chi-square (or Kolmogorov-Smirnov) test at the project's
``ALPHA`` compares them.

- **Selection** (private Frank-Wolfe, and the Sparsifier's Frank-Wolfe part): ``T = 2`` steps
  from zero without intercept give :math:`w_2 = \tfrac13 s_1 + \tfrac12 s_2` (step
  :math:`\mu_t = 2/(t+2)`), from which the first vertex :math:`s_1` is read exactly. Its law
  is the selection's at the scores :math:`(\lambda\nabla L(0), -\lambda\nabla L(0))` and the
  per-step scale :math:`b = 2\Delta/\varepsilon_0` of the ledger's selection event
  (report-noisy-min: quadrature; exponential mechanism: softmax).
- **Gaussian step** (DP-IGHT): one step from zero that keeps every coordinate reads the
  gradient noise exactly; Kolmogorov-Smirnov against the ledger's ``sigma``.
- **Threshold** (the released decision offset, the estimators' default): one step from
  zero reads the offset from ``intercept_``; each fit's offset goes through the randomised
  probability-integral transform of the exponential-mechanism law its ledger states, and a
  chi-square over equal bins tests those against the uniform law; with three classes the
  transform runs over the (class, offset) pairs (one class moved).
- **Block-median count** (the Sparsifier's sample-and-aggregate count): ``n_nonzero_target_``
  against the exponential mechanism over the blocks' rank utility at the ledger's scale.
- **Joint release** (the Sparsifier's default): the released model (a constant, or a size with
  its offset) through the randomised probability-integral transform of the exponential
  mechanism with the public base measure its lemma states, at the ledger's temperature, over
  the utility of the released weights the release read (captured by a pass-through spy).
- **Accuracy count**: ``n_nonzero_target_`` through the randomised
  probability-integral transform of the exponential-mechanism law its ledger states, over the
  utility of the released weights the count read (captured by a pass-through spy).
- **Count** (the Sparsifier, and the two baselines that release their sparsity the same way):
  ``n_nonzero_target_`` is :math:`\mathrm{clip}(c + Z, 1, m)` with :math:`Z`
  double-geometric of scale :math:`\Delta_c/\varepsilon_1` from the ledger's count event and
  :math:`c` the non-private count.

Each check is shown to reject the estimator-wiring mutants it targets, built here by
monkeypatching: the engine's noise calibrated for ``T/2`` steps, or for the sensitivity
``Δ/2``, while the ledger records the honest ``T``-step event; the count noised at
``2·eps1`` while the ledger says ``eps1`` (P1's count, the block median, the accuracy
count and the joint release); DP-IGHT's
Gaussian noise and the threshold's offset drawn at half the scale their ledgers record.
With ``delta = 0`` (basic composition) both engine mutants halve the per-step scale.

False-failure rate: each correct-law assertion fails with probability at most ``ALPHA`` =
1e-6 (chi-square: threshold ``scipy.stats.chi2.isf(ALPHA, k - 1)`` for ``k`` categories,
asymptotic, every expected count >= 20; Kolmogorov-Smirnov: p-value below ``ALPHA``). The
rejections are fixed-seed outcomes; the noncentralities stated at each check put them far
beyond the threshold.
"""
import dataclasses
import itertools

import numpy as np
import pytest
from scipy import stats

import dplasso.baselines.dp_ight as dp_ight
import dplasso.baselines.estimators.accounting as baseline_accounting
import dplasso.estimators.private_count as private_count
import dplasso.estimators.private_frank_wolfe as private_frank_wolfe
import dplasso.estimators.sparsifier as sparsifier
import dplasso.estimators.threshold as threshold_module
from experiment_sparsifier import ExperimentSparsifier
from statistical import ALPHA
from dplasso.audit.broken import halved_noise, wrong_count_epsilon
from dplasso.audit.joint_release_cases import JointUtility
from dplasso.audit.statistics import AccuracyCountUtility, BlockMedianUtility, ThresholdUtility
from dplasso.baselines.estimators import DPIGHTClassifier, TwoStageClassifier
from dplasso.estimators import (
    PrivateFrankWolfeLassoClassifier,
    SparsifierClassifier,
    lasso_support_size,
    noisy_count,
    sparsify_trials,
)
from dplasso.estimators.joint_release import constant_log_odds, joint_base_measure
from dplasso.estimators.private_count import block_count, block_median_count
from dplasso.estimators.threshold import THRESHOLD_GRID_SIZE, release_threshold
from dplasso.optim.losses import LogisticLoss, MultinomialLoss
from dplasso.privacy.gaussian import gaussian_noise
from dplasso.privacy.selection import (
    exponential_mechanism_min,
    exponential_mechanism_probabilities,
    report_noisy_min_probabilities,
)

LAM = 1.0
N_ITER = 2
N_FITS = 1200
"""Fits per selection check: noncentrality about 0.26 per fit against a halved scale."""
N_COUNT_FITS = 400
"""Fits per baseline count check: noncentrality about 0.36 per fit against ``2·eps1``."""
MIN_EXPECTED = 20
LAWS = {"report-noisy-min": report_noisy_min_probabilities,
        "exponential-mechanism": exponential_mechanism_probabilities}


class Problem:
    """A tiny dataset, its scores at zero and every coefficient vector of a ``T = 2`` path."""

    def __init__(self, X, y, loss, n_classes):
        self.X, self.y = X, y
        p = X.shape[1]
        shape = (p, 1) if n_classes == 2 else (p, n_classes, 1)
        gradient = loss.gradient(X, y, np.zeros(shape)).reshape(-1)  # the engine's flattening
        self.scores = LAM * np.concatenate([gradient, -gradient])
        self.m = gradient.size
        self.paths = list(itertools.product(range(2 * self.m), repeat=N_ITER))
        weights = _step_weights(N_ITER)
        self.path_coefs = np.array([sum(a * self._vertex(k) for a, k in zip(weights, path))
                                    for path in self.paths])

    def _vertex(self, k):
        v = np.zeros(self.m)
        v[k % self.m] = LAM if k < self.m else -LAM
        return v

    def first_vertex(self, model):
        """The first selected vertex of a ``T = 2`` zero-start fit, read from ``coef_``."""
        flat = model.coef_.T.reshape(-1)  # coef_ is W.T: (1, p) or (C, p)
        distance = np.linalg.norm(self.path_coefs - flat, axis=1)
        nearest = np.argsort(distance)[:2]
        assert distance[nearest[0]] < 1e-9 * LAM < 1e-3 * LAM < distance[nearest[1]]
        return self.paths[nearest[0]][0]


def _step_weights(n_iter):
    """Weight of the step-``t`` vertex in ``w_T``: ``mu_t prod_{u>t} (1 - mu_u)``."""
    mu = 2.0 / (np.arange(1, n_iter + 1) + 2.0)
    return np.array([mu[t] * np.prod(1.0 - mu[t + 1:]) for t in range(n_iter)])


def binary_problem():
    """20 rows, 3 features in ``{±1/2, ±1}``; the non-private count at ``lam = 1`` is 2."""
    rng = np.random.default_rng(9)
    X = rng.choice([-1.0, -0.5, 0.5, 1.0], size=(20, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0.0, 0.8, 20) > 0).astype(int)
    return Problem(X, y, LogisticLoss(), 2)


def three_class_problem():
    """30 rows, 2 features, labels 0/1/2 (6, 13 and 11 rows): 12 vertices."""
    rng = np.random.default_rng(2)
    X = rng.choice([-1.0, -0.5, 0.5, 1.0], size=(30, 2))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(0.0, 0.5, 30), [-0.5, 0.5])
    return Problem(X, y, MultinomialLoss(3), 3)


BINARY = binary_problem()
X, Y, M = BINARY.X, BINARY.y, BINARY.m
COUNT = lasso_support_size(X, Y, lam=LAM, fit_intercept=False)


def chi_square(observed, probabilities):
    """Statistic and threshold ``chi2.isf(ALPHA, k - 1)`` of counts against a law."""
    observed = np.asarray(observed, dtype=float)
    expected = observed.sum() * np.asarray(probabilities)
    assert expected.min() >= MIN_EXPECTED, expected
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, float(stats.chi2.isf(ALPHA, observed.size - 1))


def selection_law(ledger, problem=BINARY):
    """The first step's vertex law that ``ledger`` states (its selection event's scale)."""
    event = ledger.events[-1]
    assert event.count == N_ITER and event.mechanism in LAWS
    return LAWS[event.mechanism](problem.scores, 2.0 * event.sensitivity / event.epsilon)


def count_law(ledger):
    """Law of ``clip(c + Z, 1, m)`` for the ledger's count event (discrete Laplace)."""
    event = ledger.events[0]
    assert event.mechanism == "discrete-laplace"
    alpha = np.exp(-event.epsilon / event.sensitivity)
    k = np.arange(-200, 201)
    mass = (1.0 - alpha) / (1.0 + alpha) * alpha ** np.abs(k)
    return np.bincount(np.clip(COUNT + k, 1, M) - 1, weights=mass, minlength=M)


def fits(estimator, n_fits, first_seed, problem=BINARY):
    for seed in range(first_seed, first_seed + n_fits):
        yield estimator.set_params(random_state=seed).fit(problem.X, problem.y)


class Miswired:
    """A selector whose noise comes from ``noisy`` while the ledger event is ``claimed``'s."""

    def __init__(self, claimed, noisy):
        self.claimed, self.noisy = claimed, noisy
        self.scale = claimed.scale

    def __call__(self, scores, rng):
        return self.noisy(scores, rng)

    def event(self, *args, **kwargs):
        return self.claimed.event(*args, **kwargs)


def miswire(monkeypatch, mutant):
    """Patch the estimators' calibration: ``"T/2"`` steps or ``"sensitivity/2"``."""
    honest = private_frank_wolfe.calibrate_selection

    def calibrate(selection, epsilon, delta, n_iter, sensitivity):
        claimed, method = honest(selection, epsilon, delta, n_iter, sensitivity)
        if mutant == "T/2":
            noisy, _ = honest(selection, epsilon, delta, max(1, n_iter // 2), sensitivity)
        else:
            noisy, _ = honest(selection, epsilon, delta, n_iter, sensitivity / 2.0)
        return Miswired(claimed, noisy), method

    monkeypatch.setattr(private_frank_wolfe, "calibrate_selection", calibrate)


LARGE_DELTA = pytest.mark.filterwarnings(
    "ignore::dplasso.estimators.params.LargeDeltaWarning")
"""A delta above 1/n, taken only to reach the delta rule at two steps, is warned about."""


def private_fw(selection, delta, epsilon=2.0, classes=(0, 1)):
    return PrivateFrankWolfeLassoClassifier(lam=LAM, n_iter=N_ITER, epsilon=epsilon,
                                            delta=delta, selection=selection, threshold="none",
                                            fit_intercept=False, classes=list(classes))


def selection_statistic(estimator, first_seed, problem=BINARY):
    observed, law = np.zeros(2 * problem.m), None
    for model in fits(estimator, N_FITS, first_seed, problem):
        law = selection_law(model.privacy_ledger_, problem) if law is None else law
        observed[problem.first_vertex(model)] += 1
    return chi_square(observed, law)


def test_the_problem_has_the_stated_shape():
    assert COUNT == 2 and M == 3
    law = report_noisy_min_probabilities(BINARY.scores, 0.2 * LAM)
    halved = report_noisy_min_probabilities(BINARY.scores, 0.1 * LAM)
    assert N_FITS * np.sum((halved - law) ** 2 / law) > 250  # noncentrality vs ~31 threshold


@pytest.mark.statistical
@pytest.mark.release.with_args(PrivateFrankWolfeLassoClassifier.fit)
def test_multinomial_private_frank_wolfe_selects_by_its_ledgers_law():
    """Three classes: 12 vertices ``+-lam E_jc`` over the flattened weight matrix."""
    problem = three_class_problem()
    estimator = private_fw("laplace", 0.0, epsilon=1.0, classes=(0, 1, 2))
    statistic, threshold = selection_statistic(estimator, 4000, problem)
    assert statistic < threshold


@pytest.mark.statistical
@pytest.mark.release.with_args(PrivateFrankWolfeLassoClassifier.fit)
@pytest.mark.parametrize(("selection", "delta", "epsilon", "method"), [
    ("laplace", 0.0, 2.0, "basic"), ("laplace", 1e-3, 2.0, "basic"),
    pytest.param("laplace", 0.45, 0.1, "advanced", marks=LARGE_DELTA),
    ("exponential", 0.0, 2.0, "basic"), ("exponential", 1e-3, 2.0, "basic"),
    pytest.param("exponential", 0.3, 2.0, "zcdp", marks=LARGE_DELTA)])
def test_private_frank_wolfe_selects_by_its_ledgers_law(selection, delta, epsilon, method):
    """Every calibration path of the T = 2 steps: basic composition at delta = 0, basic
    composition where it beats the delta rule, and the delta rule where it wins (advanced
    composition at delta = 0.45 and eps = 0.1, zCDP at delta = 0.3: settings chosen only to
    reach that path at two steps)."""
    estimator = private_fw(selection, delta, epsilon=epsilon)
    assert estimator.fit(X, Y).privacy_guarantee_.method == method
    statistic, threshold = selection_statistic(estimator, 1000)
    assert statistic < threshold


@pytest.mark.statistical
@pytest.mark.release.with_args(PrivateFrankWolfeLassoClassifier.fit)
@pytest.mark.parametrize("selection", ["laplace", "exponential"])
@pytest.mark.parametrize("mutant", ["T/2", "sensitivity/2"])
def test_selection_check_rejects_a_miswired_engine(monkeypatch, selection, mutant):
    miswire(monkeypatch, mutant)
    model = private_fw(selection, 0.0).fit(X, Y)
    assert model.privacy_guarantee_.epsilon <= 2.0  # the ledger still claims the budget
    statistic, threshold = selection_statistic(private_fw(selection, 0.0), 2000)
    assert statistic > threshold


def sparsifier_statistics(first_seed):
    """Count law over all fits; first-vertex law over fits that kept at least 2 entries
    (``T = 2`` steps touch at most 2, so those fits are not sparsified; the count noise is
    independent of the selection noise, so the conditioning leaves the selection law as is)."""
    estimator = SparsifierClassifier(lam=LAM, n_iter=N_ITER, epsilon=5.0, delta=0.0,
                                     count_fraction=0.6, fit_intercept=False, classes=[0, 1])
    counts, vertices, laws = np.zeros(M), np.zeros(2 * M), None
    for model in fits(estimator, N_FITS, first_seed):
        if laws is None:
            laws = count_law(model.privacy_ledger_), selection_law(model.privacy_ledger_)
        counts[model.n_nonzero_target_ - 1] += 1
        if model.n_nonzero_target_ >= N_ITER:
            vertices[BINARY.first_vertex(model)] += 1
    return chi_square(counts, laws[0]), chi_square(vertices, laws[1])


@pytest.mark.statistical
@pytest.mark.release.with_args(SparsifierClassifier.fit)
@pytest.mark.parametrize("mutant", [None, "T/2", "sensitivity/2", "count 2*eps1"])
def test_sparsifier_count_and_selection_follow_its_ledger(monkeypatch, mutant):
    """Correct: both laws hold. Each mutant is rejected by the check it targets."""
    if mutant == "count 2*eps1":
        monkeypatch.setattr(sparsifier, "noisy_count", wrong_count_epsilon(noisy_count, 2.0))
    elif mutant is not None:
        miswire(monkeypatch, mutant)
    (count_stat, count_threshold), (select_stat, select_threshold) = \
        sparsifier_statistics(3000)
    if mutant is None:
        assert count_stat < count_threshold and select_stat < select_threshold
    elif mutant == "count 2*eps1":
        assert count_stat > count_threshold
    else:
        assert select_stat > select_threshold


BASELINES = {
    "two-stage": TwoStageClassifier(epsilon=5.0, count_fraction=0.6, count_lam=LAM,
                                    threshold="none", fit_intercept=False, classes=[0, 1]),
    "dp-ight": DPIGHTClassifier(epsilon=5.0, count_fraction=0.6, count_lam=LAM,
                                threshold="none", fit_intercept=False, classes=[0, 1]),
}


@pytest.mark.statistical
@pytest.mark.release.with_args(TwoStageClassifier.fit)
@pytest.mark.parametrize("name", sorted(BASELINES))
@pytest.mark.parametrize("mutant", [False, True])
def test_baseline_sparsity_release_follows_its_ledger(monkeypatch, name, mutant):
    if mutant:
        monkeypatch.setattr(baseline_accounting, "noisy_count",
                            wrong_count_epsilon(noisy_count, 2.0))
    counts, law = np.zeros(M), None
    for model in fits(BASELINES[name], N_COUNT_FITS, 5000):
        law = count_law(model.privacy_ledger_) if law is None else law
        counts[model.n_nonzero_target_ - 1] += 1
    statistic, threshold = chi_square(counts, law)
    assert (statistic > threshold) if mutant else (statistic < threshold)


@pytest.mark.statistical
@pytest.mark.release.with_args(DPIGHTClassifier.fit)
@pytest.mark.parametrize("mutant", [False, True])
def test_dp_ight_gradient_noise_follows_its_ledger(monkeypatch, mutant):
    """One DP-IGHT step from zero keeping all ``p`` coordinates, step 1, no intercept:
    ``coef_ = -(g + N)`` with ``g`` the mean gradient at zero, so the noise ``N`` is read
    exactly. Its law is ``N(0, sigma^2 I)`` with ``sigma = Delta_2 / sqrt(2 rho)`` from the
    ledger's Gaussian event. Kolmogorov-Smirnov over the ``3 * 400`` standardised draws,
    rejecting at ``ALPHA``. Mutant: the noise drawn at half the ``sigma`` the ledger
    records (a mutant that also wrote the smaller ``sigma`` into the ledger would overspend
    and is refused by the calibration itself)."""
    if mutant:
        monkeypatch.setattr(dp_ight, "gaussian_noise", halved_noise(gaussian_noise, "sigma"))
    estimator = DPIGHTClassifier(n_nonzero=M, n_iter=1, step_size=1.0, epsilon=2.0,
                                 threshold="none", fit_intercept=False, classes=[0, 1])
    gradient = -BINARY.scores[M:] / LAM
    standardised = []
    for model in fits(estimator, N_COUNT_FITS, 7000):
        (event,) = model.privacy_ledger_.events
        assert event.mechanism == "gaussian" and event.count == 1
        sigma = event.sensitivity / np.sqrt(2.0 * event.rho)
        standardised.extend((-model.coef_[0] - gradient) / sigma)
    p_value = stats.kstest(standardised, "norm").pvalue
    assert (p_value < ALPHA) if mutant else (p_value >= ALPHA)


def balanced_problem():
    """40 rows, 3 features, labels split at the median score (20 and 20): the intercept's
    gradient at zero vanishes, so one-step fits pick a feature vertex."""
    rng = np.random.default_rng(5)
    X = rng.choice([-1.0, -0.5, 0.5, 1.0], size=(40, 3))
    z = X[:, 0] + 0.5 * X[:, 1] + rng.normal(0.0, 0.8, 40)
    return Problem(X, (z > np.median(z)).astype(int), LogisticLoss(), 2)


PIT_BINS = 10


def _offset_pit(model, problem, pit_rng):
    """Randomised probability-integral transform of a one-step fit's released offset under
    the threshold law its ledger states, or None when the step chose the intercept vertex.

    With ``T = 1`` the released weights are ``(2/3) s_1``; when ``s_1`` is a feature vertex
    the intercept coordinate is 0, so ``intercept_`` is the offset itself. The candidates are
    ``R * linspace(-1, 1, 256)``, ``R = ||w||_1``, and ``P(g) ∝ exp(u(g) / scale)`` with
    ``u(g)`` the training rows classified correctly and ``scale = 2 Δ / ε0`` from the ledger's
    threshold event. Conditioning on the selection (independent noise) keeps that law."""
    coef = model.coef_[0]
    if not coef.any():
        return None
    event = model.privacy_ledger_.events[-1]
    assert event.mechanism == "exponential-mechanism" and event.note.startswith("decision")
    scores = problem.X @ coef
    grid = np.abs(coef).sum() * np.linspace(-1.0, 1.0, THRESHOLD_GRID_SIZE)
    shifted = scores[:, np.newaxis] + grid[np.newaxis, :]
    utility = np.sum(np.where(problem.y[:, np.newaxis] == 1, shifted > 0, shifted <= 0),
                     axis=0)
    law = exponential_mechanism_probabilities(-utility.astype(float),
                                              2.0 * event.sensitivity / event.epsilon)
    k = int(np.argmin(np.abs(grid - model.intercept_[0])))
    assert abs(grid[k] - model.intercept_[0]) <= 1e-12 * abs(grid).max()
    return law[:k].sum() + pit_rng.uniform() * law[k]


@pytest.mark.statistical
@pytest.mark.release.with_args(release_threshold)
@pytest.mark.parametrize(("name", "mutant"), [
    ("private-fw", False), ("sparsifier", False), ("private-fw", True)])
def test_private_threshold_follows_its_ledger(monkeypatch, name, mutant):
    """The released decision threshold (the estimators' default) against the exponential
    mechanism its ledger states, on one-step fits whose vertex is a feature. The laws differ
    from fit to fit (they depend on the released weights), so each offset is mapped through
    its own law's randomised PIT; under the claim those values are i.i.d. uniform, and a
    chi-square over ``PIT_BINS`` equal bins rejects at ``ALPHA`` (a sharper law than the
    claim piles the PIT values up mid-range). Mutant: the offset drawn at half the scale the
    ledger records."""
    check_threshold_pits(monkeypatch, name, mutant, balanced_problem(), [0, 1], _offset_pit,
                         first_seed=8000, pit_seed=11, min_share=0.9)


def check_threshold_pits(monkeypatch, name, mutant, problem, classes, pit, *, first_seed,
                         pit_seed, min_share):
    """One-step fits of estimator ``name`` (threshold at ``eps_b = 0.5``); the PIT values of
    those whose vertex is a feature (at least ``min_share`` of them) are chi-square tested
    against the uniform law: accepted for the correct wiring, rejected for the mutant."""
    if mutant:
        monkeypatch.setattr(threshold_module, "exponential_mechanism_min",
                            halved_noise(exponential_mechanism_min))
    common = dict(lam=LAM, n_iter=1, epsilon=5.0, delta=0.0, classes=classes)
    estimator = (PrivateFrankWolfeLassoClassifier(**common) if name == "private-fw"
                 else ExperimentSparsifier(count="accuracy", **common))
    pit_rng = np.random.default_rng(pit_seed)
    pits = np.array([value for model in fits(estimator, N_FITS, first_seed, problem)
                     if (value := pit(model, problem, pit_rng)) is not None])
    assert pits.size > min_share * N_FITS
    observed = np.bincount(np.minimum((pits * PIT_BINS).astype(int), PIT_BINS - 1),
                           minlength=PIT_BINS)
    statistic, threshold = chi_square(observed, np.full(PIT_BINS, 1.0 / PIT_BINS))
    assert (statistic > threshold) if mutant else (statistic < threshold)


def _multiclass_offset_pit(model, problem, pit_rng):
    """The randomised PIT of a three-class one-step fit's released (class, offset) pair under
    the law its ledger states, or None when the step chose an intercept vertex.

    With a feature vertex the intercept coordinates are 0, so ``intercept_`` holds the offsets
    alone: zero but for the moved class. The candidates are the pairs ``(c, g_j)`` in class
    order, ``g = 2 R linspace(-1, 1, 256)``, ``R = max_c ||w_c||_1``, with ``P ∝ exp(u / scale)``
    and ``u`` the training rows classified correctly (:class:`ThresholdUtility`, written from
    the lemma's definition)."""
    coef = model.coef_  # (C, p)
    if not coef.any():
        return None
    event = model.privacy_ledger_.events[-1]
    assert event.mechanism == "exponential-mechanism" and event.note.startswith("decision")
    statistic = ThresholdUtility(np.vstack([coef.T, np.zeros(coef.shape[0])]))
    utility = statistic(problem.X, problem.y)
    grid = statistic.grid()
    law = exponential_mechanism_probabilities(-utility, 2.0 * event.sensitivity / event.epsilon)
    moved = np.flatnonzero(model.intercept_)
    assert moved.size == 1, f"offsets {model.intercept_} move {moved.size} classes"
    j = int(np.argmin(np.abs(grid - model.intercept_[moved[0]])))
    assert abs(grid[j] - model.intercept_[moved[0]]) <= 1e-12 * abs(grid).max()
    k = int(moved[0]) * THRESHOLD_GRID_SIZE + j
    return law[:k].sum() + pit_rng.uniform() * law[k]


@pytest.mark.statistical
@pytest.mark.release.with_args(release_threshold)
@pytest.mark.parametrize(("name", "mutant"), [
    ("private-fw", False), ("sparsifier", False), ("private-fw", True)])
def test_multiclass_private_threshold_follows_its_ledger(monkeypatch, name, mutant):
    """Three classes: the released (class, offset) pair against the one exponential mechanism
    over the 768 pairs that the ledger states, by the randomised PIT and chi-square of
    :func:`test_private_threshold_follows_its_ledger`. Mutant: drawn at half the scale."""
    check_threshold_pits(monkeypatch, name, mutant, three_class_problem(), [0, 1, 2],
                         _multiclass_offset_pit, first_seed=9000, pit_seed=13, min_share=0.5)


def block_median_problem():
    """20 rows, 4 features: two blocks (``n // 10``) whose support sizes at ``lam = 1`` are
    1 and 2, so the rank utility over the candidates 1..4 is (1, 1, 0, 0)."""
    rng = np.random.default_rng(6)
    X = rng.choice([-1.0, -0.5, 0.5, 1.0], size=(20, 4))
    z = X[:, 0] + 0.5 * X[:, 1] + rng.normal(0.0, 0.8, 20)
    return Problem(X, (z > np.median(z)).astype(int), LogisticLoss(), 2)


@pytest.mark.statistical
@pytest.mark.release.with_args(sparsify_trials)
@pytest.mark.parametrize("mutant", [False, True])
def test_block_median_count_follows_its_ledger(monkeypatch, mutant):
    """The Sparsifier's block-median count: ``n_nonzero_target_`` against the exponential
    mechanism its ledger's count event states, over the rank utility of the blocks' support
    sizes (:class:`~dplasso.audit.statistics.BlockMedianUtility`, written from the lemma's
    definition; ``B`` from the public rule). Chi-square over the 4 candidates at ``ALPHA``
    (noncentrality about 0.11 per fit against the mutant, ``2·eps1`` for the release while
    the ledger says ``eps1``)."""
    if mutant:
        monkeypatch.setattr(sparsifier, "block_median_count",
                            wrong_count_epsilon(block_median_count, 2.0))
    problem = block_median_problem()
    estimator = ExperimentSparsifier(lam=LAM, n_iter=1, epsilon=4.0, delta=0.0,
                                     count="block-median", count_fraction=0.5,
                                     threshold="none", fit_intercept=False, classes=[0, 1])
    counts, law = np.zeros(problem.m), None
    for model in fits(estimator, 1000, 9000, problem):
        if law is None:
            event = model.privacy_ledger_.events[0]
            assert event.mechanism == "exponential-mechanism" and "median" in event.note
            n_blocks = block_count(problem.X.shape[0], problem.m, event.epsilon)
            utility = BlockMedianUtility(LAM, n_blocks, fit_intercept=False)(problem.X,
                                                                              problem.y)
            np.testing.assert_array_equal(utility, [1.0, 1.0, 0.0, 0.0])
            law = exponential_mechanism_probabilities(-utility,
                                                      2.0 * event.sensitivity / event.epsilon)
        counts[model.n_nonzero_target_ - 1] += 1
    statistic, threshold = chi_square(counts, law)
    assert (statistic > threshold) if mutant else (statistic < threshold)


def accuracy_count_problem():
    """40 rows, 4 exchangeable features in ``{±1/2, ±1}``, the label the sign of their sum
    plus noise: after ``T = 4`` noiseless steps at ``lam = 3`` (three features picked) the
    cuts to 1, 2 and 4 entries classify 31, 33 and 35 rows, so the law at ``eps1 = 0.5`` is
    about (0.19, 0.31, 0.51) and its mutant's (0.09, 0.25, 0.67): noncentrality about 0.11
    per fit."""
    rng = np.random.default_rng(13)
    X = rng.choice([-1.0, -0.5, 0.5, 1.0], size=(40, 4))
    z = X.sum(axis=1) + rng.normal(0.0, 0.5, 40)
    return Problem(X, (z > np.median(z)).astype(int), LogisticLoss(), 2)


@pytest.mark.statistical
@pytest.mark.release.with_args(sparsify_trials)
@pytest.mark.parametrize("mutant", [False, True])
def test_accuracy_count_follows_its_ledger(monkeypatch, mutant):
    """The Sparsifier's accuracy count (the default before the joint release): ``n_nonzero_target_`` against the
    exponential mechanism its ledger's count event states, over the utility
    (:class:`~dplasso.audit.statistics.AccuracyCountUtility`, written from the lemma's
    definition) of the released weights. The Frank-Wolfe part gets almost all of a huge
    budget (``eps1 = 1e-4 · 5000 = 0.5``), so its two steps are the noiseless ones on every
    fit (a pass-through spy checks that the count always reads the same weights) and the
    law is one categorical law over the sizes 1, 2, 4: chi-square at ``ALPHA`` over 1000
    fits. The mutant
    draws at ``2·eps1`` while the ledger says ``eps1``."""
    release = (wrong_count_epsilon(private_count.accuracy_count, 2.0) if mutant
               else private_count.accuracy_count)
    weights = []

    def spy(design, y, W, intercept, **kwargs):
        weights.append(np.asarray(W)[:, 0].copy())
        return release(design, y, W, intercept, **kwargs)

    monkeypatch.setattr(sparsifier, "accuracy_count", spy)
    problem = accuracy_count_problem()
    estimator = ExperimentSparsifier(lam=3.0, n_iter=4, epsilon=5000.0, delta=0.0,
                                     count="accuracy", count_fraction=1e-4, threshold="none",
                                     fit_intercept=False, classes=[0, 1])
    counts, law, sizes = None, None, None
    for model in fits(estimator, 1000, 11_000, problem):
        if law is None:
            event = next(e for e in model.privacy_ledger_.events if "public sizes" in e.note)
            assert event.mechanism == "exponential-mechanism"
            statistic = AccuracyCountUtility(weights[0], fit_intercept=False)
            utility = statistic(problem.X, problem.y)
            assert np.unique(utility).size > 1, utility  # a law that is not uniform
            law = exponential_mechanism_probabilities(-utility,
                                                      2.0 * event.sensitivity / event.epsilon)
            sizes, counts = statistic.sizes(), np.zeros(utility.size)
        counts[sizes.index(model.n_nonzero_target_)] += 1
    assert all(np.array_equal(w, weights[0]) for w in weights)
    statistic, threshold = chi_square(counts, law)
    assert (statistic > threshold) if mutant else (statistic < threshold), (statistic, law)


def _joint_pit(model, W, event, problem, pit_rng):
    """Randomised PIT of a default fit's released model under the joint release's law (its
    ledger's temperature, the public base measure), the candidates in the release's order."""
    statistic = JointUtility(W, fit_intercept=False)
    utility = statistic(problem.X, problem.y)
    blocks = statistic.blocks()
    scale = 2.0 * event.sensitivity / event.epsilon
    odds = constant_log_odds(problem.y.size, event.epsilon)  # beta + gamma eps_j sqrt(n) / 2
    log_pi = joint_base_measure(len(blocks), THRESHOLD_GRID_SIZE, 2, constant_odds=odds)
    law = exponential_mechanism_probabilities(-(utility + scale * log_pi), scale)
    size = model.n_nonzero_target_
    if size == 0:
        assert not model.coef_.any()
        k = int(model.intercept_[0] > 0)
    else:
        j = statistic.sizes().index(size)
        grid = blocks[j].grid()
        g = int(np.argmin(np.abs(grid - model.intercept_[0])))
        assert abs(grid[g] - model.intercept_[0]) <= 1e-12 * abs(grid).max()
        k = 2 + j * THRESHOLD_GRID_SIZE + g
    return law[:k].sum() + pit_rng.uniform() * law[k]


@pytest.mark.statistical
@pytest.mark.release.with_args(sparsify_trials)
@pytest.mark.parametrize("mutant", [False, True])
def test_joint_release_follows_its_ledger(monkeypatch, mutant):
    """The default Sparsifier's joint release (``count="joint"``): the released model (a
    constant, or a size with its offset) against the exponential mechanism with the public
    base measure its lemma states, at the temperature of the ledger's event, over the utility
    (:class:`~dplasso.audit.joint_release_cases.JointUtility`, written from the lemma's
    definition) of the Frank-Wolfe weights the release read (captured by a pass-through spy;
    they vary from fit to fit). Each fit's output goes through its own law's randomised PIT,
    and a chi-square over ``PIT_BINS`` equal bins of 1200 fits tests uniformity at
    ``ALPHA``. The mutant draws at twice the budget its ledger records (the release returns
    its own event, so the mutant's event is put back at the honest budget). The base measure
    is the lemma's whole one: the constants' log-odds include the margin's term
    (:func:`constant_log_odds` of the ledger's event), as the release's own law does."""
    honest = sparsifier.release_size_and_threshold

    def doubled(design, y, W, intercept, *, epsilon, **kwargs):
        *released, event = honest(design, y, W, intercept, epsilon=2.0 * epsilon, **kwargs)
        return (*released, dataclasses.replace(event, epsilon=epsilon))

    release = doubled if mutant else honest
    captured = []

    def spy(design, y, W, intercept, **kwargs):
        captured.append(np.asarray(W)[:, 0].copy())
        return release(design, y, W, intercept, **kwargs)

    monkeypatch.setattr(sparsifier, "release_size_and_threshold", spy)
    problem = accuracy_count_problem()
    estimator = ExperimentSparsifier(lam=3.0, n_iter=4, epsilon=5.0, delta=0.0,
                                     fit_intercept=False, classes=[0, 1])
    pit_rng = np.random.default_rng(17)
    pits = []
    for model in fits(estimator, N_FITS, 12_000, problem):
        event = model.privacy_ledger_.events[-1]
        assert event.mechanism == "exponential-mechanism" and "model" in event.note
        pits.append(_joint_pit(model, captured[-1], event, problem, pit_rng))
    observed = np.bincount(np.minimum((np.array(pits) * PIT_BINS).astype(int), PIT_BINS - 1),
                           minlength=PIT_BINS)
    statistic, threshold = chi_square(observed, np.full(PIT_BINS, 1.0 / PIT_BINS))
    assert (statistic > threshold) if mutant else (statistic < threshold), statistic
