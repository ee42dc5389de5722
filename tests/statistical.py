"""Settings shared by every statistical test (importable: tests/ is on pytest's pythonpath)."""

ALPHA = 1e-6
"""Per-test false-failure probability for every statistical test (thresholds derive from it)."""


def t_quantile(m, df):
    """The one-sided Student-t quantile at ``ALPHA / m`` with ``df`` degrees of freedom
    (Bonferroni over ``m`` comparisons); infinite without a degree of freedom."""
    import math

    from scipy import stats

    return stats.t.ppf(1.0 - ALPHA / m, df) if df > 0 else math.inf
