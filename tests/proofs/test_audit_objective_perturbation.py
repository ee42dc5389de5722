"""Objective perturbation (``lem-objective-perturbation``), the L2 reference's mechanism and
the default Sparsifier's weights on small designs: its two bounds searched, its noise's law
through ``fit`` with each noise, and its audit with a caught broken variant.

- Searches (:func:`dplasso.audit.objective_perturbation_cases.
  objective_perturbation_sensitivity_cases`): the stationarity noise and the log-Jacobian
  never move by more than their bounds; the log-Jacobian's tight case comes within 10%; a
  declaration of 0.8x either bound is refuted. Seeded, not statistical.
- Law through ``fit``: the stationarity noise recovered from the released weights (of
  :class:`~dplasso.baselines.ObjectivePerturbationClassifier` without threshold, or the
  weights :class:`~dplasso.estimators.SparseDPLogisticRegression` released before its
  joint release, captured by a pass-through spy) is the drawn noise ``b``. Under the law the
  ledger's event states, computed here from the lemma (never by the library's calibration),
  its norm is Gamma(d, 1) over ``theta = 2R/eps_b`` (Gamma-norm noise) or ``||b||^2 /
  sigma^2`` is chi-square with ``d`` degrees of freedom (Gaussian noise, ``sigma`` the root of
  the lemma's loss bound ``2u^2 + 2ru = eps_b``, ``u = R/sigma``, ``r^2`` the chi-square(2)
  quantile at ``delta``), and its direction is uniform on the sphere, independent of the
  norm: the ``k``-th fit's coordinate ``k mod d`` of ``b/||b||``, mapped to ``(u + 1)/2``,
  is Beta((d-1)/2, (d-1)/2), independently across fits. Two Kolmogorov-Smirnov tests over
  400 fits, each at ``ALPHA/2`` (false-failure rate ``ALPHA = 1e-6``). Mutants (built here
  by monkeypatching, the ledger unchanged; 100 fits each): the noise drawn at half its
  scale (the norm law's KS distance 0.4 or more against the 0.27 threshold at 100 fits);
  the Gaussian calibration's tail radius with ``r^2 = ln(1/delta)`` in place of ``2 ln(1/delta)`` (the
  calibration at ``sqrt(delta)``, true delta ``sqrt(delta)``: variance 0.56 of the claim's
  at ``delta = 1/900``); the noise folded into the positive orthant (each entry's absolute
  value: the norm's law unchanged, the direction check's KS distance 0.5).
- The same law where the default leaves a term small (:data:`SETTINGS`): the Jacobian term at
  half the budget (``jacobian_share=0.5``, and a given quadratic weight that costs half), so
  that a slip in ``Lambda`` or in the Jacobian's cost moves ``eps_b`` by a quarter or more; and
  Gaussian noise at ``eps = 12``, ``delta = 0.01``, where the quadratic term of the loss
  bound is about a third of ``eps_b``. Each is shown to reject its mutant (built here by
  monkeypatching, at 400 fits).
- Audit (:func:`~dplasso.audit.objective_perturbation_cases.objective_perturbation_cases`,
  Gamma-norm and Gaussian noise): the correct release audits below its claim
  (Clopper-Pearson lower bound at ``ALPHA``), and the release with its quadratic weight cut to
  1/16 is flagged at 1e5 runs per dataset. On one column the noise term moves by at most
  ``R``, half the lemma's ``2R``, so the noise-scale mutants audit below their claims there
  (about 0.5 against 2 at 1e5 runs): the law test is what catches them.
"""
import math

import numpy as np
import pytest
from scipy import optimize, stats

import dplasso.estimators.objective_perturbation as objective_perturbation
import dplasso.estimators.sparsifier as sparsifier
from statistical import ALPHA
from dplasso.audit.broken import halved_noise
from dplasso.audit.objective_perturbation_cases import (
    objective_perturbation_cases,
    objective_perturbation_sensitivity_cases,
    solve_one_column,
)
from dplasso.baselines import ObjectivePerturbationClassifier
from dplasso.estimators import SparseDPLogisticRegression
from dplasso.estimators.objective_perturbation import (
    L2_JACOBIAN_SHARE,
    ObjectivePerturbation,
    gamma_norm_noise,
    solve_perturbed_logistic,
    stationarity_noise,
)
from dplasso.privacy.gaussian import gaussian_noise

SEARCH = {"n_random": 16, "n_rows": 16}
N_AUDIT = 100_000
N_LAW_FITS = 400
N_MUTANT_FITS = 100
"""Fits per mutant: each is rejected far beyond ``ALPHA/2`` already (p-values at 100 fits: half
the scale 1e-34, the tail at ``sqrt(delta)`` 6e-10, folded 7e-24; at 400, 1e-121, 1e-30,
5e-93)."""


@pytest.mark.parametrize("case", objective_perturbation_sensitivity_cases(),
                         ids=lambda case: case.quantity)
def test_search_stays_below_each_bound_and_refutes_an_understatement(case):
    result = case.run(rng=0, **SEARCH)
    assert result.found <= case.declared, (case.quantity, result.found, case.declared)
    if case.tight:
        assert result.ratio >= 0.9, (case.quantity, result.ratio)
    understated = case.run(rng=1, declared=0.8 * result.found, **SEARCH)
    assert understated.exceeded


def test_one_column_solver_is_the_estimators_minimiser():
    x = np.array([1.0, -0.5, 0.0, 0.25])
    y = np.array([1.0, 0.0, 1.0, 0.0])
    b = np.array([-3.0, -0.2, 0.0, 1.7])
    batched = solve_one_column(x, y, 0.8, b)
    for k in range(b.size):
        w, _ = solve_perturbed_logistic(x[:, np.newaxis], y, quad_weight=0.8,
                                        linear_term=b[k:k + 1], tol=1e-13)
        assert batched[k] == pytest.approx(w[0], abs=1e-10)


def _law_problem(n=30, p=2, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    return X, (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(int)


def _with_constant(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def _gaussian_sigma(row_norm_bound, epsilon_noise, delta):
    """The lemma's ``sigma``: outside the event ``||Pb|| > sigma r``, of probability ``delta``
    for the chi-square(2) variable ``||Pb||^2 / sigma^2`` (``r^2`` its quantile, scipy's),
    the noise term's loss is at most ``2u^2 + 2ru`` with ``u = R / sigma``; ``sigma`` makes it
    ``eps_b`` (its root found numerically, not by the library's closed form)."""
    r = math.sqrt(stats.chi2(2).isf(delta))
    u = optimize.brentq(lambda u: 2.0 * u * u + 2.0 * r * u - epsilon_noise, 0.0,
                        epsilon_noise, xtol=1e-15, rtol=1e-15)
    return row_norm_bound / u


def _noise_law_pvalues(noises, norm_statistic, norm_cdf):
    """KS p-values of the noises' norm statistic against ``norm_cdf`` and of one direction
    coordinate per noise (the ``k``-th noise's coordinate ``k mod d``, as ``(u + 1)/2``)
    against Beta((d-1)/2, (d-1)/2), its law under a uniform direction."""
    noises = np.asarray(noises)
    count, d = noises.shape
    norms = np.linalg.norm(noises, axis=1)
    p_norm = stats.kstest(norm_statistic(norms), norm_cdf).pvalue
    coordinate = noises[np.arange(count), np.arange(count) % d] / norms
    p_direction = stats.kstest((coordinate + 1.0) / 2.0,
                               stats.beta((d - 1) / 2, (d - 1) / 2).cdf).pvalue
    return p_norm, p_direction


def _apply(monkeypatch, mutant):
    """The mutants, each with the ledger left as the honest calibration writes it."""
    if mutant == "halved":
        monkeypatch.setattr(objective_perturbation, "gaussian_noise",
                            halved_noise(gaussian_noise, "sigma"))
        monkeypatch.setattr(objective_perturbation, "gamma_norm_noise",
                            halved_noise(gamma_norm_noise))
    elif mutant == "tail-one-degree":
        honest_std = objective_perturbation.gaussian_noise_std

        def one_degree(row_norm_bound, epsilon_noise, delta):
            # r^2 = ln(1/delta), not 2 ln(1/delta): the calibration at sqrt(delta)
            return honest_std(row_norm_bound, epsilon_noise, math.sqrt(delta))

        monkeypatch.setattr(objective_perturbation, "gaussian_noise_std", one_degree)
    elif mutant == "folded":
        honest_sample = ObjectivePerturbation.sample

        def folded(self, dim, rng, size=None):
            return np.abs(honest_sample(self, dim, rng, size))

        monkeypatch.setattr(ObjectivePerturbation, "sample", folded)


def _n_fits(mutant):
    return N_LAW_FITS if mutant is None else N_MUTANT_FITS


def _l2_reference_noises(noise, n_fits, epsilon=2.0, **params):
    """``n_fits`` fits of the L2 reference (``epsilon = 2`` unless given, no threshold, the
    default solver tolerance: the noise comes back within ``n sqrt(d) 1e-9`` of the drawn
    one; ``params``: more of its parameters): each fit's ledger event, quadratic weight and
    the noise recovered from its released weights."""
    X, y = _law_problem()
    design = _with_constant(X)
    for seed in range(n_fits):
        model = ObjectivePerturbationClassifier(epsilon=epsilon, noise=noise, threshold="none",
                                                classes=[0, 1], random_state=seed,
                                                **params).fit(X, y)
        (event,) = model.privacy_ledger_.events
        assert event.mechanism == f"objective-perturbation-{noise}"
        w = np.r_[model.coef_[0], model.intercept_]
        yield event, model.quad_weight_, stationarity_noise(
            design, y.astype(float), w, quad_weight=model.quad_weight_)


def _check(p_values, mutant):
    p_norm, p_direction = p_values
    if mutant is None:
        assert p_norm >= ALPHA / 2 and p_direction >= ALPHA / 2, p_values
    elif mutant == "folded":
        assert p_direction < ALPHA / 2, p_values
    else:
        assert p_norm < ALPHA / 2, p_values


@pytest.mark.statistical
@pytest.mark.release.with_args(ObjectivePerturbationClassifier.fit)
@pytest.mark.parametrize("mutant", [None, "halved", "folded"])
def test_release_follows_its_ledger_through_fit(monkeypatch, mutant):
    """Gamma-norm noise: ``||b|| / theta`` is Gamma(d, 1), ``theta = 2R / eps_b`` with
    ``eps_b = eps - log(1 + d / (4 Lambda))`` from the ledger's event; the direction uniform."""
    _apply(monkeypatch, mutant)
    d = _law_problem()[0].shape[1] + 1
    scaled = []
    for event, quad_weight, noise in _l2_reference_noises("gamma", _n_fits(mutant)):
        epsilon_noise = event.epsilon - math.log1p(d / (4.0 * quad_weight))
        scaled.append(noise * epsilon_noise / (2.0 * math.sqrt(d)))
    _check(_noise_law_pvalues(scaled, lambda norms: norms, stats.gamma(d).cdf), mutant)


@pytest.mark.statistical
@pytest.mark.release.with_args(ObjectivePerturbationClassifier.fit)
@pytest.mark.parametrize("mutant", [None, "halved", "folded"])
def test_one_vs_rest_releases_follow_their_ledger_through_fit(monkeypatch, mutant):
    """Three classes: each class's weights give back, on the labels ``[y = c]``, the noise of
    one Gamma-norm release at the ledger's event for that class (a third of the budget:
    ``eps_b = eps_c - log(1 + d / (4 Lambda))``); the ``3 x fits`` noises (independent
    draws) pass the norm and direction laws. Mutants as above."""
    _apply(monkeypatch, mutant)
    X, _ = _law_problem()
    y = np.digitize(X[:, 1], [-0.3, 0.3])
    design = _with_constant(X)
    d = design.shape[1]
    scaled = []
    for seed in range(_n_fits(mutant) // 3 + 1):
        model = ObjectivePerturbationClassifier(epsilon=6.0, noise="gamma", threshold="none",
                                                classes=[0, 1, 2], random_state=seed).fit(X, y)
        events = model.privacy_ledger_.events
        assert len(events) == 3 and all(e.epsilon <= 2.0 for e in events)
        for c, event in enumerate(events):
            w = np.r_[model.coef_[c], model.intercept_[c]]
            b = stationarity_noise(design, (y == c).astype(float), w,
                                   quad_weight=model.quad_weight_)
            epsilon_noise = event.epsilon - math.log1p(d / (4.0 * model.quad_weight_))
            scaled.append(b * epsilon_noise / (2.0 * math.sqrt(d)))
    _check(_noise_law_pvalues(scaled, lambda norms: norms, stats.gamma(d).cdf), mutant)


@pytest.mark.statistical
@pytest.mark.release.with_args(ObjectivePerturbationClassifier.fit)
@pytest.mark.parametrize("mutant", [None, "halved", "tail-one-degree", "folded"])
def test_gaussian_release_follows_its_ledger_through_fit(monkeypatch, mutant):
    """Gaussian noise: ``||b||^2 / sigma^2`` is chi-square(d), ``sigma`` the lemma's for the
    event's ``eps_b`` and ``delta`` (:func:`_gaussian_sigma`, ``R = sqrt(d)``); the direction
    uniform. At ``n = 30``, ``delta = 1/900``: ``r = 3.69``, ``sigma`` about 7 for
    ``eps_b`` near 1.98."""
    _apply(monkeypatch, mutant)
    d = _law_problem()[0].shape[1] + 1
    scaled = []
    for event, quad_weight, noise in _l2_reference_noises("gaussian", _n_fits(mutant)):
        assert event.delta == 1.0 / 30**2
        epsilon_noise = event.epsilon - math.log1p(d / (4.0 * quad_weight))
        scaled.append(noise / _gaussian_sigma(math.sqrt(d), epsilon_noise, event.delta))
    _check(_noise_law_pvalues(scaled, np.square, stats.chi2(d).cdf), mutant)


GIVEN_WEIGHT = 3.0 / (4.0 * math.expm1(1.0))
"""A given quadratic weight on the law problem's ``d = 3`` columns: its Jacobian term costs
``log(1 + d / (4 Lambda)) = 1``, half the budget of 2."""

SETTINGS = {
    "jacobian-half": ("gamma", {"jacobian_share": 0.5}),
    "given-weight": ("gamma", {"quad_weight": GIVEN_WEIGHT}),
    "gaussian-large-epsilon": ("gaussian", {"epsilon": 12.0, "delta": 0.01}),
}
"""Fits where the Jacobian term costs half the budget (from the share, or from a given
quadratic weight), and Gaussian noise at ``eps_b`` near 12, where the quadratic term of the
loss bound ``2u^2 + 2ru`` is about a third of it (``r = 3.03`` at ``delta = 0.01``)."""


def _apply_setting_mutant(monkeypatch, mutant):
    """The mutants of :data:`SETTINGS`, each with the ledger left as the honest code writes
    it: the quadratic weight for the Jacobian's share computed with ``R`` for ``R^2``; a given
    weight's Jacobian term ``log(1 + R^2 / (8 Lambda))``; the Gaussian ``sigma`` from the loss
    bound without its quadratic term (``2ru = eps_b``)."""
    module = objective_perturbation
    if mutant == "quad-weight-R":
        honest_weight = module.quad_weight_for_jacobian
        monkeypatch.setattr(module, "quad_weight_for_jacobian",
                            lambda R, epsilon_jacobian: honest_weight(R, epsilon_jacobian) / R)
    elif mutant == "jacobian-eighth":
        honest_jacobian = module.jacobian_epsilon
        monkeypatch.setattr(module, "jacobian_epsilon",
                            lambda R, quad_weight: honest_jacobian(R, 2.0 * quad_weight))
    elif mutant == "loss-linear":
        monkeypatch.setattr(module, "gaussian_noise_std", lambda R, epsilon_noise, delta: (
            2.0 * R * math.sqrt(2.0 * math.log(1.0 / delta)) / epsilon_noise))


@pytest.mark.statistical
@pytest.mark.release.with_args(ObjectivePerturbationClassifier.fit)
@pytest.mark.parametrize(("setting", "mutant"), [
    ("jacobian-half", None), ("jacobian-half", "quad-weight-R"),
    ("given-weight", None), ("given-weight", "jacobian-eighth"),
    ("gaussian-large-epsilon", None), ("gaussian-large-epsilon", "loss-linear")])
def test_release_follows_its_ledger_where_each_term_weighs(monkeypatch, setting, mutant):
    """The law tests above where the default leaves a term small: ``eps_b = eps -
    log(1 + d / (4 Lambda))`` from the ledger's event and the fit's quadratic weight (the
    lemma's Jacobian term, whatever rule gave ``Lambda``), then the Gamma or Gaussian law.
    Mutants (400 fits each, as the correct release: their norm laws' KS distances from the
    claimed one are 0.31, 0.22 and 0.33, against the threshold of about 0.14 at 400 fits and
    0.28 at 100): ``quad-weight-R`` (true Jacobian cost 1.38 for the claimed 1: ``eps_b`` is
    0.62, the noise is drawn for 1), ``jacobian-eighth`` (claimed 0.62 for 1: the noise is
    drawn for 1.38, ``eps_b`` is 1), ``loss-linear`` (``sigma`` 0.69 of the lemma's)."""
    _apply_setting_mutant(monkeypatch, mutant)
    noise, params = SETTINGS[setting]
    d = _law_problem()[0].shape[1] + 1
    R = math.sqrt(d)
    scaled = []
    for event, quad_weight, b in _l2_reference_noises(noise, N_LAW_FITS, **params):
        epsilon_noise = event.epsilon - math.log1p(d / (4.0 * quad_weight))
        if noise == "gamma":
            scaled.append(b * epsilon_noise / (2.0 * R))
        else:
            assert event.delta == params["delta"]
            scaled.append(b / _gaussian_sigma(R, epsilon_noise, event.delta))
    if noise == "gamma":
        p_values = _noise_law_pvalues(scaled, lambda norms: norms, stats.gamma(d).cdf)
    else:
        p_values = _noise_law_pvalues(scaled, np.square, stats.chi2(d).cdf)
    _check(p_values, mutant)


def _sparsifier_problem(n=40, p=15, seed=4):
    """40 rows, 15 features: at ``epsilon = 2`` the default Sparsifier's public rules take
    objective perturbation (``d = 16 <= 8 (n eps_w)^(1/3)``) with Gaussian noise (smaller
    expected norm than Gamma's at ``d = 16``, ``delta = 1/1600``)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    return X, (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(int)


def test_the_default_takes_gaussian_objective_perturbation_on_mid_sized_designs():
    """Where the Gaussian law test above matters: a default fit at n = 1000, p = 40,
    eps = 1 (and the law test's smaller design) spends its weights' part on it."""
    for (n, p, seed), epsilon in (((1000, 40, 0), 1.0), ((40, 15, 4), 2.0)):
        X, y = _sparsifier_problem(n, p, seed)
        model = SparseDPLogisticRegression(epsilon=epsilon, classes=[0, 1],
                                           random_state=0).fit(X, y)
        assert model.privacy_ledger_.events[0].mechanism == "objective-perturbation-gaussian"


@pytest.mark.statistical
@pytest.mark.release.with_args(SparseDPLogisticRegression.fit)
@pytest.mark.parametrize("mutant", [None, "halved"])
def test_default_sparsifier_gaussian_weights_follow_its_ledger(monkeypatch, mutant):
    """The default Sparsifier's weights (``weights="auto"``): the weights it released before
    its joint release (a pass-through spy on the weights' release; the joint release cuts
    them) give the noise back with the public rule's quadratic weight
    ``Lambda = d / (4 (exp(s eps') - 1))`` (``s`` = ``L2_JACOBIAN_SHARE``, ``eps'`` the
    ledger's weights event), so ``eps_b = (1 - s) eps'``; then the Gaussian law above."""
    _apply(monkeypatch, mutant)
    honest = sparsifier.objective_perturbation_weights
    captured = []

    def spy(*args, **kwargs):
        W_full, part = honest(*args, **kwargs)
        captured.append(W_full[:, 0].copy())
        return W_full, part

    monkeypatch.setattr(sparsifier, "objective_perturbation_weights", spy)
    X, y = _sparsifier_problem()
    design = _with_constant(X)
    d = design.shape[1]
    scaled = []
    for seed in range(_n_fits(mutant)):
        model = SparseDPLogisticRegression(epsilon=2.0, classes=[0, 1],
                                           random_state=seed).fit(X, y)
        event = model.privacy_ledger_.events[0]
        assert event.mechanism == "objective-perturbation-gaussian" and len(captured) == seed + 1
        quad_weight = d / (4.0 * math.expm1(L2_JACOBIAN_SHARE * event.epsilon))
        noise = stationarity_noise(design, y.astype(float), captured[-1],
                                   quad_weight=quad_weight)
        sigma = _gaussian_sigma(math.sqrt(d), (1.0 - L2_JACOBIAN_SHARE) * event.epsilon,
                                event.delta)
        scaled.append(noise / sigma)
    _check(_noise_law_pvalues(scaled, np.square, stats.chi2(d).cdf), mutant)


@pytest.mark.statistical
@pytest.mark.release.with_args(ObjectivePerturbation.sample)
@pytest.mark.parametrize("noise", ["gamma", "gaussian"])
def test_audit_passes_the_release_and_flags_its_broken_variant(noise):
    results = {case.variant: case.run(N_AUDIT, ALPHA, np.random.default_rng(4))
               for case in objective_perturbation_cases(noise=noise)}
    correct, broken = results["correct"], results["jacobian-ignored"]
    assert correct.delta == (0.0 if noise == "gamma" else 1e-5)
    assert correct.eps_lower <= correct.eps_claimed
    assert broken.eps_lower > broken.eps_claimed, broken
