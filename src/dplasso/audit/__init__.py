"""Proofs as tests: sensitivity searches, empirical privacy audits, broken variants.

- :mod:`~dplasso.audit.neighbours`: replace-one neighbours (random, adversarial, greedy).
- :mod:`~dplasso.audit.sensitivity`: :func:`sensitivity_search`, the largest change found.
- :mod:`~dplasso.audit.statistics`: the privatised quantities as searchable statistics.
- :mod:`~dplasso.audit.empirical`: :func:`audit_mechanism`, a lower bound on epsilon.
- :mod:`~dplasso.audit.broken`: deliberately broken calibrations.
- :mod:`~dplasso.audit.cases`: the searches and audits of the proofs chapter.
- :mod:`~dplasso.audit.report`: :func:`proofs_tables`, the chapter's two tables.
"""
from dplasso.audit.broken import (
    BROKEN_VARIANTS,
    halved_noise,
    ignored_composition,
    reads_data,
    understated_sensitivity,
    wrong_count_epsilon,
)
from dplasso.audit.empirical import AuditResult, audit_mechanism
from dplasso.audit.neighbours import Replacement, replace_row
from dplasso.audit.report import PROFILE_SIZES, proofs_tables
from dplasso.audit.sensitivity import SearchResult, sensitivity_search
from dplasso.audit.statistics import (
    BlockMedianUtility,
    FeatureSum,
    FrankWolfeScores,
    LabelCount,
    LassoSupportSize,
    ThresholdUtility,
)

__all__ = [
    "BROKEN_VARIANTS",
    "halved_noise",
    "ignored_composition",
    "reads_data",
    "understated_sensitivity",
    "wrong_count_epsilon",
    "AuditResult",
    "audit_mechanism",
    "Replacement",
    "replace_row",
    "PROFILE_SIZES",
    "proofs_tables",
    "SearchResult",
    "sensitivity_search",
    "FeatureSum",
    "FrankWolfeScores",
    "LabelCount",
    "LassoSupportSize",
    "ThresholdUtility",
    "BlockMedianUtility",
]
