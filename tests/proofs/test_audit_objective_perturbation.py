"""The L2 reference's objective perturbation (``lem-objective-perturbation``): its two bounds
searched, its law through ``fit``, and its audit with a caught broken variant.

- Searches (:func:`dplasso.audit.objective_perturbation_cases.
  objective_perturbation_sensitivity_cases`): the stationarity noise and the log-Jacobian
  never move by more than their bounds; the log-Jacobian's tight case comes within 10%; a
  declaration of 0.8x either bound is refuted. Seeded, not statistical.
- Law through ``fit``: the stationarity noise recovered from the released weights of
  :class:`~dplasso.baselines.ObjectivePerturbationClassifier` (no threshold) is the drawn
  noise; its norm over the scale the ledger's event implies (``theta = 2R/eps_b``) is
  Gamma(d, 1). Kolmogorov-Smirnov over 400 fits rejects at ``ALPHA`` (false-failure rate
  ``ALPHA = 1e-6``). The mutant draws at half the scale the ledger records (the norm is then
  Gamma(d, 1/2): a KS distance near 0.4, far beyond the 0.14 threshold at 400 fits).
- Audit (:func:`~dplasso.audit.objective_perturbation_cases.objective_perturbation_cases`):
  the correct release audits below its claim (Clopper-Pearson lower bound at ``ALPHA``), and
  the release with its quadratic weight cut to 1/16 is flagged at 1e5 runs per dataset.
"""
import math

import numpy as np
import pytest
from scipy import stats

import dplasso.baselines.l2_objective_perturbation as l2_module
from statistical import ALPHA
from dplasso.audit.objective_perturbation_cases import (
    objective_perturbation_cases,
    objective_perturbation_sensitivity_cases,
    solve_one_column,
)
from dplasso.baselines import ObjectivePerturbationClassifier
from dplasso.estimators.objective_perturbation import (
    ObjectivePerturbation,
    solve_perturbed_logistic,
    stationarity_noise,
)

SEARCH = {"n_random": 16, "n_rows": 16}
N_AUDIT = 100_000
N_LAW_FITS = 400


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


@pytest.mark.statistical
@pytest.mark.release.with_args(ObjectivePerturbationClassifier.fit)
@pytest.mark.parametrize("mutant", [False, True])
def test_release_follows_its_ledger_through_fit(monkeypatch, mutant):
    if mutant:
        honest = l2_module.l2_mechanism

        def halved(*args, **kwargs):
            mechanism = honest(*args, **kwargs)
            return type(mechanism)(**{**mechanism.__dict__,
                                      "noise_scale": 0.5 * mechanism.noise_scale})

        monkeypatch.setattr(l2_module, "l2_mechanism", halved)
    X, y = _law_problem()
    design = np.hstack([X, np.ones((X.shape[0], 1))])
    d = design.shape[1]
    ratios = []
    for seed in range(N_LAW_FITS):
        model = ObjectivePerturbationClassifier(epsilon=2.0, noise="gamma", threshold="none",
                                                tol=1e-12, classes=[0, 1],
                                                random_state=seed).fit(X, y)
        (event,) = model.privacy_ledger_.events
        epsilon_noise = event.epsilon - math.log1p(d / (4.0 * model.quad_weight_))
        theta = 2.0 * math.sqrt(d) / epsilon_noise
        w = np.r_[model.coef_[0], model.intercept_]
        noise = stationarity_noise(design, y.astype(float), w, quad_weight=model.quad_weight_)
        ratios.append(np.linalg.norm(noise) / theta)
    p_value = stats.kstest(ratios, stats.gamma(d).cdf).pvalue
    assert (p_value < ALPHA) if mutant else (p_value >= ALPHA)


@pytest.mark.statistical
@pytest.mark.release.with_args(ObjectivePerturbation.sample)
def test_audit_passes_the_release_and_flags_its_broken_variant():
    results = {case.variant: case.run(N_AUDIT, ALPHA, np.random.default_rng(4))
               for case in objective_perturbation_cases()}
    correct, broken = results["correct"], results["jacobian-ignored"]
    assert correct.eps_lower <= correct.eps_claimed
    assert broken.eps_lower > broken.eps_claimed, broken
