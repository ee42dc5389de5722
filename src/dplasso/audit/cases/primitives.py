r"""Audits of the noise primitives (Laplace, double-geometric, Gaussian) on a sum and a count.

Each mechanism is the query plus the library's own noise sampler, at the library's scale for
the query's sensitivity (lemma ``lem-sum-count-sensitivity``: a feature sum moves by at most
2, a label count by at most 1).
"""
from __future__ import annotations

import numpy as np

from dplasso.audit.broken import halved_noise, understated_sensitivity
from dplasso.audit.cases._base import AuditCase, SensitivityCase, rademacher, worst_pair
from dplasso.audit.statistics import FeatureSum, LabelCount
from dplasso.privacy.discrete_laplace import discrete_laplace_noise, discrete_laplace_scale
from dplasso.privacy.gaussian import gaussian_noise, gaussian_sigma_analytic
from dplasso.privacy.laplace import laplace_noise, laplace_scale
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator

__all__ = ["sum_and_count_sensitivity_cases", "laplace_cases", "discrete_laplace_cases",
           "gaussian_cases"]

SUM_SENSITIVITY = 2.0
"""Lemma ``lem-sum-count-sensitivity``: one row moves a feature sum by at most 2."""
COUNT_SENSITIVITY = 1.0
"""Lemma ``lem-sum-count-sensitivity``: one row moves a label count by at most 1."""


def sum_and_count_sensitivity_cases(X, labels):
    """The feature sum and the label count on a Rademacher design (their bounds attained)."""
    return [
        SensitivityCase("feature sum (Laplace / Gaussian query)", FeatureSum(0), X, labels,
                        SUM_SENSITIVITY, "1", theorem=True, tight=True, proven=2.0),
        SensitivityCase("label count (double-geometric query)", LabelCount(), X, labels,
                        COUNT_SENSITIVITY, "1", theorem=True, tight=True, proven=1.0),
    ]


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
    X = rademacher(rng, 20, 3)
    y = rng.integers(0, 2, 20).astype(np.float64)
    D, D_prime, found = worst_pair(statistic, X, y, SUM_SENSITIVITY, rng)
    cases = []
    for noise, scale_of in [(laplace_noise, laplace_scale),
                            (halved_noise(laplace_noise), laplace_scale),
                            (laplace_noise, understated_sensitivity(laplace_scale))]:
        variant = getattr(noise, "broken_variant", getattr(scale_of, "broken_variant",
                                                           "correct"))
        scale = scale_of(SUM_SENSITIVITY, epsilon)

        def mechanism(data, size, rng, noise=noise, scale=scale):
            return statistic(*data)[0] + noise(scale, size, rng)

        cases.append(AuditCase(
            f"Laplace, sum query (eps={epsilon:g})", variant, mechanism, D, D_prime, epsilon,
            0.0, "threshold", None,
            f"{REPLACE_ONE}: search witness, sum moves by {found.found:g} (sensitivity 2)",
            release=laplace_noise))
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
    X = rademacher(rng, 20, 3)
    y = rng.integers(0, 2, 20).astype(np.float64)
    D, D_prime, found = worst_pair(statistic, X, y, 1.0, rng)
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
            f"{REPLACE_ONE}: search witness, count moves by {found.found:g} (sensitivity 1)",
            release=discrete_laplace_noise))
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
    X = rademacher(rng, 20, 3)
    y = rng.integers(0, 2, 20).astype(np.float64)
    D, D_prime, found = worst_pair(statistic, X, y, SUM_SENSITIVITY, rng)
    cases = []
    for noise, sigma_of in [
            (gaussian_noise, gaussian_sigma_analytic),
            (halved_noise(gaussian_noise, "sigma"), gaussian_sigma_analytic),
            (gaussian_noise, understated_sensitivity(gaussian_sigma_analytic, "l2_sensitivity"))]:
        variant = getattr(noise, "broken_variant", getattr(sigma_of, "broken_variant",
                                                           "correct"))
        sigma = sigma_of(SUM_SENSITIVITY, epsilon, delta)

        def mechanism(data, size, rng, noise=noise, sigma=sigma):
            return statistic(*data)[0] + noise(sigma, size, rng)

        cases.append(AuditCase(
            f"Gaussian (analytic), sum query (eps={epsilon:g}, delta={delta:g})", variant,
            mechanism, D, D_prime, epsilon, delta, "threshold", None,
            f"{REPLACE_ONE}: search witness, sum moves by {found.found:g} (L2 sensitivity 2)",
            release=gaussian_noise))
    return cases
