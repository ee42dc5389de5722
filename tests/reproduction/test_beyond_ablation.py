"""Claims of the ablation in "Beyond P1" (`beyond-ablation`), the cause the P1 chapter cites.

From P1's Sparsifier as published (max-abs map, no threshold, P1's count), the data map and
the private threshold are the two main causes of its chance-level accuracy, the count the
least:

- every (dataset, budget) has all eight subsets of the three changes and the default;
- the three changes together raise P1's mean accuracy (over datasets) at every budget;
- the threshold's main effect is positive at every budget, the map's at the largest;
- at the largest budget the count's main effect is not larger than the map's or the
  threshold's;
- on the committed paper record, the count's mean main effect is the smallest at every budget
  (the order the chapter states).

**Margins** as in ``test_beyond.py``: a comparison of means over datasets fails only beyond
``q * se``, ``q`` the one-sided Student-t quantile at ``ALPHA / m`` (Bonferroni over the
``m`` comparisons of one check), so each check fails with probability at most ``ALPHA`` when
its claim holds. Each check also runs on a deliberately broken copy of the results, which it
must reject.
"""
import math

import pandas as pd
import pytest

from dplasso.experiments.beyond import PAPER_RECORD
from dplasso.experiments.beyond_display import (
    ABLATION_CHANGES,
    ablation_effects,
    ablation_means,
)
from statistical import t_quantile


def _margin(values, m):
    """``q * se`` of the mean of ``values`` (Bonferroni over ``m`` comparisons)."""
    n = len(values)
    return t_quantile(m, n - 1) * values.std(ddof=1) / math.sqrt(n) if n > 1 else math.inf


def _read(results):
    return pd.read_csv(results("beyond-ablation"), float_precision="round_trip")


def check_cells(ablation):
    """Every (dataset, budget) has every subset of the changes and the default."""
    means = ablation_means(ablation)
    cells = [c for c in means.columns if c not in ("dataset", "epsilon", "majority")]
    assert len(cells) == 2 ** len(ABLATION_CHANGES) + 1 and len(means), "cells are missing"
    missing = means[cells].isna().any(axis=1)
    assert not missing.any(), (
        f"an ablation cell lacks a run on {list(means.loc[missing, 'dataset'].unique())}")


def check_together(ablation):
    """All three changes together raise P1's mean accuracy at every budget."""
    means = ablation_means(ablation)
    gains = (means["map + threshold + count"] - means["P1 as published"]).groupby(
        means["epsilon"])
    for epsilon, gain in gains:
        assert gain.mean() + _margin(gain, gains.ngroups) > 0, (
            f"eps={epsilon:g}: the three changes together lower P1's mean accuracy by "
            f"{-gain.mean():.3f}")


def check_main_causes(ablation):
    """The threshold's main effect is positive at every budget and the map's at the largest;
    at the largest budget the count's main effect is not larger than either."""
    effects = ablation_effects(ablation).pivot_table(
        index=["dataset", "epsilon"], columns="change", values="main effect")
    top = effects.index.get_level_values("epsilon").max()
    by_eps = effects.groupby(level="epsilon")
    m = by_eps.ngroups + 3
    for epsilon, here in by_eps:
        for change in ("threshold",) + (("map",) if epsilon == top else ()):
            gain = here[change]
            assert gain.mean() + _margin(gain, m) > 0, (
                f"eps={epsilon:g}: the {change} lowers mean accuracy (main effect "
                f"{gain.mean():+.3f})")
    here = effects.xs(top, level="epsilon")
    for other in ("map", "threshold"):
        excess = here["count"] - here[other]
        assert excess.mean() - _margin(excess, m) < 0, (
            f"eps={top:g}: the count's main effect exceeds the {other}'s by "
            f"{excess.mean():.3f}")


def test_beyond_ablation_claim(results):
    ablation = _read(results)
    check_cells(ablation)
    check_together(ablation)
    check_main_causes(ablation)


def _additive(ablation, **effects):
    """A broken copy whose private accuracies are 0.5 plus each applied change's effect
    (every dataset alike, so the checks' margins are zero)."""
    broken = ablation.copy()
    private = broken["kind"] == "private"
    applied = {"map": broken["scaling"] == "standard",
               "threshold": broken["threshold"] == "private",
               "count": broken["method"] != "P1 count (declared 1)"}
    broken.loc[private, "accuracy"] = 0.5 + sum(
        effects.get(change, 0.0) * applied[change][private] for change in ABLATION_CHANGES)
    return broken


def test_beyond_ablation_checks_reject_broken_results(results):
    ablation = _read(results)
    with pytest.raises(AssertionError, match="lacks a run"):
        check_cells(ablation[~((ablation["method"] == "accuracy count")
                               & (ablation["threshold"] == "none")
                               & (ablation["scaling"] == "max-abs")
                               & (ablation["dataset"] == ablation["dataset"].iloc[0]))])
    check_main_causes(_additive(ablation, map=0.05, threshold=0.05, count=0.01))
    with pytest.raises(AssertionError, match="together lower"):
        check_together(_additive(ablation, map=-0.05, threshold=0.03, count=0.01))
    with pytest.raises(AssertionError, match="the map lowers"):
        check_main_causes(_additive(ablation, map=-0.01, threshold=0.05, count=0.0))
    with pytest.raises(AssertionError, match="the threshold lowers"):
        check_main_causes(_additive(ablation, map=0.05, threshold=-0.01, count=0.0))
    with pytest.raises(AssertionError, match="count's main effect exceeds"):
        check_main_causes(_additive(ablation, map=0.05, threshold=0.05, count=0.1))


PAPER_ABLATION = PAPER_RECORD.parent / "beyond-ablation.csv"
"""The committed paper-profile ablation (``make paper-record``), which the chapter's order of
the three changes describes."""


def check_order(ablation):
    """At every budget the count's mean main effect is the smallest of the three."""
    effects = ablation_effects(ablation).groupby(["epsilon", "change"])["main effect"].mean()
    for epsilon, here in effects.groupby(level="epsilon"):
        here = here.droplevel("epsilon")
        assert here.idxmin() == "count", (
            f"eps={epsilon:g}: the {here.idxmin()} has the smallest main effect, not the count")


def test_beyond_ablation_order_on_the_paper_record():
    """`beyond-ablation`: the order the chapter states, on the paper record."""
    assert PAPER_ABLATION.is_file(), f"paper-profile ablation missing: {PAPER_ABLATION}"
    record = pd.read_csv(PAPER_ABLATION, float_precision="round_trip")
    check_order(record)
    with pytest.raises(AssertionError, match="smallest main effect"):
        check_order(_additive(record, map=0.05, threshold=0.01, count=0.03))
