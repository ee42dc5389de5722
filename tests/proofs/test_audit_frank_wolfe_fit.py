"""Empirical audit of a whole private Frank-Wolfe fit (logistic loss, T = 10 steps, p = 5).

The fit runs through the engine (``dplasso.optim.frank_wolfe.frank_wolfe``) with the
selector's scale from the project's calibration (advanced composition for report-noisy-min,
zCDP for the exponential mechanism), batched over trials; the output is projected to the sum
of the coefficients. The pair (:func:`dplasso.audit.cases.frank_wolfe_fit_cases`) flips the
label of the row ``(1, ..., 1)``: every step's scores move by ``Delta/2`` in opposite
directions for the ``+`` and ``-`` vertices, so every step leaks.

Correct calibration: the ``(epsilon, delta)`` lower bound holds with probability at least
``1 - ALPHA`` (Clopper-Pearson, ``ALPHA = 1e-6`` from ``tests/statistical.py``), so the
acceptance fails falsely with probability at most ``ALPHA``. Broken calibration (the whole
epsilon spent on each of the T steps) must be flagged: at epsilon = 2 and 2e4 runs per
dataset (default run); at epsilon = 1, which needs 2e5 runs (``slow``). Fixed seeds.
"""
import pytest

from statistical import ALPHA
from dplasso.audit.cases import SELECTORS, frank_wolfe_fit_cases
from dplasso.estimators.private_frank_wolfe import private_frank_wolfe_trials


def _check(case, result):
    if case.variant == "correct":
        assert result.eps_lower <= result.eps_claimed, (
            f"{case.mechanism_name}: audited {result.eps_lower:.3f} > claimed "
            f"{result.eps_claimed} (event {result.event}); false-failure rate <= {ALPHA}")
    else:
        assert case.variant == "composition-ignored"
        assert result.violated, (
            f"{case.mechanism_name} [{case.variant}] not flagged: {result.eps_lower:.3f} <= "
            f"{result.eps_claimed}")


@pytest.mark.statistical
@pytest.mark.release.with_args(private_frank_wolfe_trials)
@pytest.mark.parametrize("selector", list(SELECTORS))
def test_private_fit_audit(selector):
    for case in frank_wolfe_fit_cases(selector, epsilon=2.0):
        _check(case, case.run(20_000, ALPHA, rng=17))


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.release.with_args(private_frank_wolfe_trials)
@pytest.mark.parametrize("selector", list(SELECTORS))
def test_private_fit_audit_full_power(selector):
    for case in frank_wolfe_fit_cases(selector, epsilon=1.0, n=50):
        _check(case, case.run(200_000, ALPHA, rng=19))
