r"""The sensitivity searches and privacy audits of the proofs chapter, defined once.

The proofs tests (``tests/proofs/test_sensitivity_*.py``, ``test_audit_*.py``) and
:func:`dplasso.audit.report.proofs_tables` run the same cases; only the trial counts differ.
One module per mechanism family: :mod:`~dplasso.audit.cases.primitives` (Laplace,
double-geometric, Gaussian), :mod:`~dplasso.audit.cases.frank_wolfe` (vertex scores, one
selection, a whole fit), :mod:`~dplasso.audit.cases.counts` (the Sparsifier's counts),
:mod:`~dplasso.audit.cases.threshold` and :mod:`~dplasso.audit.cases.screening` (P2's
release, whole and split).

Sensitivity cases (:class:`SensitivityCase`) pair a privatised quantity with a dataset, the
sensitivity the library declares for it and the lemma's proven bound; ``theorem`` says
whether the declared value is that bound (then it must equal it, and the search must stay
below it) and ``tight`` whether the dataset is built so that the bound is nearly attained
(the search must then come close to it).

Audit cases (:class:`AuditCase`, the ``*_cases`` factories) pair a mechanism, in its correct
form and in each of its broken variants (:mod:`dplasso.audit.broken`), with the neighbouring
pair that makes its privacy bound (nearly) tight, so that the audit has power. Every
variant's mechanism calls the library's own release function (its ``release``), never a
copy of it. Each factory's docstring says why its pair is the worst case.
"""
from __future__ import annotations

from dplasso.audit.cases._base import AuditCase, SensitivityCase, rademacher
from dplasso.audit.cases.counts import (
    accuracy_count_cases,
    accuracy_count_sensitivity_cases,
    block_median_cases,
    block_median_sensitivity_case,
    count_sensitivity_case,
    count_worst_case_pair,
    noise_floor_cases,
    sparsifier_count_cases,
)
from dplasso.audit.cases.frank_wolfe import (
    SELECTORS,
    frank_wolfe_fit_cases,
    fw_score_sensitivity_cases,
    selection_cases,
)
from dplasso.audit.cases.primitives import (
    discrete_laplace_cases,
    gaussian_cases,
    laplace_cases,
    sum_and_count_sensitivity_cases,
)
from dplasso.audit.cases.screening import (
    screening_cases,
    split_screening_cases,
    split_screening_sensitivity_case,
)
from dplasso.audit.cases.threshold import (
    threshold_cases,
    threshold_multiclass_cases,
    threshold_sensitivity_cases,
)
from dplasso.privacy.rng import as_generator

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


def sensitivity_cases(random_state=0):
    """The sensitivity cases of the proofs table (all but the Sparsifier's LASSO count).

    One random stream (``random_state``) builds, in order: a Rademacher design (every entry
    ``+-1``, rows at the bound, labels random; ``n = 40``, ``p = 6``) on which the sums, the
    label count and the Frank-Wolfe scores attain their bounds
    (:func:`~dplasso.audit.cases.primitives.sum_and_count_sensitivity_cases`,
    :func:`~dplasso.audit.cases.frank_wolfe.fw_score_sensitivity_cases`, which adds non-tight
    designs), then the threshold's, the block median's and the accuracy count's utilities.

    Returns
    -------
    list of SensitivityCase
    """
    rng = as_generator(random_state)
    X = rademacher(rng, 40, 6)
    labels = rng.integers(0, 2, X.shape[0]).astype(float)
    cases = sum_and_count_sensitivity_cases(X, labels)
    cases += fw_score_sensitivity_cases(X, labels, rng)
    cases += threshold_sensitivity_cases(rng) + [block_median_sensitivity_case(rng)]
    cases += accuracy_count_sensitivity_cases(rng)
    return cases
