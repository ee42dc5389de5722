"""Claims of the "Beyond P1" chapter (`beyond-ceiling`, `beyond-threshold-share`,
`beyond-count-share`, `beyond-p1`).

The headline claim is about the paper profile: at eps = 5 the library's default private estimator
(the accuracy-count Sparsifier with the private threshold) beats the majority rate by at least
5 points on at least 7 of the 13 binary datasets, and at eps = 1 on at least 3; among the count
designs that are private by proof it has the highest mean accuracy at eps = 5. It is checked on the committed paper-profile record
(``book/paper-results/beyond-p1/beyond-p1.csv``, made by ``dplasso reproduce beyond-p1 --profile paper``)
and, on the built book's own results (``ci`` or ``paper``), on every dataset where the paper
record shows a large margin.

**Margins** as in ``test_p1.py``: a comparison "mean >= threshold" fails only beyond
``q * se``, ``se`` the standard error over trials (or over datasets for means over datasets) and
``q`` the one-sided Student-t quantile at ``ALPHA / m`` (Bonferroni over the ``m`` comparisons
of one test); each test fails with probability at most ``ALPHA`` when its claim holds. Each check
also runs on a deliberately broken copy of the results, which it must reject.
"""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dplasso.experiments.beyond import DEFAULT_VARIANT, PAPER_RECORD
from dplasso.experiments.beyond_display import BEATS_MARGIN, SPARSER_WITHIN, per_dataset
from dplasso.experiments.p1 import SYNTHETIC
from statistical import ALPHA

NEED = {5.0: 7, 1.0: 3}
"""Datasets (of the 13 binary ones) on which the default must beat the majority rate."""
LARGE = 0.10
"""A paper-record margin this large must also show at the built book's profile."""


def _t(m, df):
    return stats.t.ppf(1.0 - ALPHA / m, df) if df > 0 else math.inf


def _variant(means, method, threshold):
    here = means[(means["method"] == method) & (means["threshold"] == threshold)
                 & (means["dataset"] != SYNTHETIC)]
    return here.set_index(["dataset", "epsilon"])


def _upper_margins(results, epsilon, m):
    """Per real dataset: mean margin of the default over the majority rate, and its upper
    confidence bound (mean + q se)."""
    default = _variant(per_dataset(results), *DEFAULT_VARIANT).xs(epsilon, level="epsilon")
    margin = default["accuracy"] - default["majority"]
    se = default["accuracy_sd"] / np.sqrt(default["trials"])
    q = np.array([_t(m, int(n) - 1) for n in default["trials"]])
    return margin, margin + q * se.fillna(np.inf)


def check_beats_on_enough(results, need):
    """The default beats the majority rate by BEATS_MARGIN on at least ``need[eps]`` datasets."""
    m = sum(len(_variant(per_dataset(results), *DEFAULT_VARIANT).xs(e, level="epsilon"))
            for e in need)
    for epsilon, count in need.items():
        margin, upper = _upper_margins(results, epsilon, m)
        beating = int((upper >= BEATS_MARGIN).sum())
        assert beating >= count, (
            f"eps={epsilon:g}: the default beats the majority rate by {BEATS_MARGIN:.0%} on "
            f"{beating} datasets (within the margin), not {count}: {margin.round(3).to_dict()}")


def check_large_margins_carry_over(results, record):
    """Where the paper record's margin is at least LARGE, the built results show >= 5 points."""
    large = {}
    for epsilon in NEED:
        margin, _ = _upper_margins(record, epsilon, 1)
        large[epsilon] = set(margin[margin >= LARGE].index)
    m = sum(len(names) for names in large.values()) or 1
    for epsilon, names in large.items():
        margin, upper = _upper_margins(results, epsilon, m)
        for name in names & set(margin.index):
            assert upper[name] >= BEATS_MARGIN, (
                f"{name}, eps={epsilon:g}: the default's margin over the majority rate is "
                f"{margin[name]:.3f} here against at least {LARGE} in the paper record")


def check_sparser_and_close(results, epsilon=5.0):
    """Fewer nonzeros than private LASSO + threshold on most datasets; mean accuracy within
    SPARSER_WITHIN of it (paired by dataset and trial, se over the pairs)."""
    means = per_dataset(results)
    default = _variant(means, *DEFAULT_VARIANT).xs(epsilon, level="epsilon")
    lasso = _variant(means, "private LASSO", "private").xs(epsilon, level="epsilon")
    sparser = int((default["nnz"] < lasso["nnz"]).sum())
    assert sparser > len(default) / 2, (
        f"eps={epsilon:g}: the default is sparser than private LASSO on {sparser} of "
        f"{len(default)} datasets")
    private = results[(results["kind"] == "private") & (results["epsilon"] == epsilon)
                      & (results["dataset"] != SYNTHETIC)]
    keys = ["dataset", "trial"]
    of = {name: private[(private["method"] == method) & (private["threshold"] == threshold)]
          .set_index(keys)["accuracy"]
          for name, (method, threshold) in (("default", DEFAULT_VARIANT),
                                            ("lasso", ("private LASSO", "private")))}
    gap = (of["default"] - of["lasso"]).dropna()
    se = gap.std(ddof=1) / math.sqrt(gap.size)
    assert gap.mean() + _t(1, gap.size - 1) * se >= -SPARSER_WITHIN, (
        f"eps={epsilon:g}: the default's mean accuracy is {-gap.mean():.3f} below private "
        "LASSO's (same threshold)")


PROVEN_COUNTS = ("accuracy count", "noise floor", "block median", "P1 count (proven m)")
"""The Sparsifier's count designs that are private by proof."""


def check_default_is_the_most_accurate_proven_count(results, epsilon=5.0):
    """With the threshold, the default count has the highest mean accuracy over the real
    datasets among the proven count designs (the chapter's reason for the default)."""
    means = per_dataset(results)
    accuracy = {method: _variant(means, method, "private").xs(epsilon, level="epsilon")
                ["accuracy"].mean() for method in PROVEN_COUNTS}
    best = max(accuracy, key=accuracy.get)
    assert best == DEFAULT_VARIANT[0], (
        f"eps={epsilon:g}: the most accurate proven count is {best}, not the default: "
        f"{accuracy}")


def check_threshold_helps(results):
    """The threshold raises private LASSO's mean accuracy (over datasets), at every budget."""
    means = per_dataset(results)
    plain = _variant(means, "private LASSO", "none")["accuracy"]
    with_threshold = _variant(means, "private LASSO", "private")["accuracy"]
    gains = (with_threshold - plain).dropna().groupby(level="epsilon")
    for epsilon, gain in gains:
        se = gain.std(ddof=1) / math.sqrt(gain.size) if gain.size > 1 else 0.0
        assert gain.mean() + _t(gains.ngroups, gain.size - 1) * se > 0, (
            f"eps={epsilon:g}: the private threshold lowers private LASSO's mean accuracy by "
            f"{-gain.mean():.3f}")


def _record():
    assert PAPER_RECORD.is_file(), f"paper-profile record missing: {PAPER_RECORD}"
    return pd.read_csv(PAPER_RECORD, float_precision="round_trip")


def test_paper_record_is_the_paper_profile():
    record = _record()
    real = record.loc[record["dataset"] != SYNTHETIC, "data_id"].unique()
    assert len(real) == 13, f"the paper record covers {len(real)} binary datasets, not 13"
    assert {1.0, 5.0} <= set(record["epsilon"].dropna())


def test_beyond_p1_claim_on_the_paper_record():
    record = _record()
    check_beats_on_enough(record, NEED)
    check_sparser_and_close(record)
    check_threshold_helps(record)
    check_default_is_the_most_accurate_proven_count(record)


def test_beyond_p1_claim_on_the_built_results(results):
    built = pd.read_csv(results("beyond-p1"), float_precision="round_trip")
    check_large_margins_carry_over(built, _record())
    check_sparser_and_close(built)
    check_threshold_helps(built)


def _broken_default(frame, value):
    broken = frame.copy()
    rows = ((broken["method"] == DEFAULT_VARIANT[0]) & (broken["threshold"] == DEFAULT_VARIANT[1]))
    broken.loc[rows, "accuracy"] = value(broken.loc[rows])
    return broken


def test_beyond_p1_checks_reject_broken_results(results):
    record = _record()
    at_chance = _broken_default(record, lambda rows: rows["majority"] + 0.01)
    with pytest.raises(AssertionError, match="beats the majority rate"):
        check_beats_on_enough(at_chance, NEED)
    with pytest.raises(AssertionError, match="most accurate proven count"):
        check_default_is_the_most_accurate_proven_count(
            _broken_default(record, lambda rows: rows["accuracy"] - 0.05))
    built = pd.read_csv(results("beyond-p1"), float_precision="round_trip")
    with pytest.raises(AssertionError, match="in the paper record"):
        check_large_margins_carry_over(
            _broken_default(built, lambda rows: rows["majority"]), record)
    lasso = (built["method"] == "private LASSO") & (built["threshold"] == "private")
    dense = _broken_default(built, lambda rows: rows["accuracy"])
    dense.loc[(dense["method"] == DEFAULT_VARIANT[0]) & (dense["threshold"] == "private"),
              "nnz"] = dense.loc[lasso, "nnz"].max() + 1
    with pytest.raises(AssertionError, match="sparser"):
        check_sparser_and_close(dense)
    worse = _broken_default(built, lambda rows: rows["accuracy"] - 0.2)
    with pytest.raises(AssertionError, match="below private"):
        check_sparser_and_close(worse)
    no_gain = built.copy()
    plain = (no_gain["method"] == "private LASSO") & (no_gain["threshold"] == "none")
    no_gain.loc[lasso, "accuracy"] = no_gain.loc[plain, "accuracy"].to_numpy() - 0.1
    with pytest.raises(AssertionError, match="lowers"):
        check_threshold_helps(no_gain)


def check_ceiling(ceiling):
    """Every dataset has the three references under both maps, on the same splits."""
    refs = ceiling[ceiling["kind"] == "reference"]
    cells = refs.groupby(["dataset", "scaling", "split"])["method"].apply(frozenset)
    expected = frozenset({"majority", "non-private (ours)", "sklearn L1-LR"})
    assert (cells == expected).all(), "a split lacks one of the three references"
    maps = refs.groupby("dataset")["scaling"].apply(frozenset)
    assert (maps == frozenset({"max-abs", "standard"})).all(), "a dataset lacks a data map"
    majority = refs.groupby(["dataset", "split"])["majority"].nunique()
    assert (majority == 1).all(), "the maps were not compared on the same splits"
    assert refs["accuracy"].between(0, 1).all()


def test_beyond_ceiling_claim(results):
    check_ceiling(pd.read_csv(results("beyond-ceiling")))


def test_beyond_ceiling_check_rejects_broken_results(results):
    ceiling = pd.read_csv(results("beyond-ceiling"))
    with pytest.raises(AssertionError, match="data map"):
        check_ceiling(ceiling[ceiling["scaling"] != "standard"])
    with pytest.raises(AssertionError, match="references"):
        check_ceiling(ceiling[ceiling["method"] != "sklearn L1-LR"])


def check_share(share, default=0.1):
    """The default share is within the seed spread of the best share tried (paired by
    method, budget and trial)."""
    keys = ["method", "epsilon", "trial"]
    wide = share.pivot_table(index=keys, columns="fraction", values="accuracy")
    best = wide.mean().idxmax()
    loss = wide[best] - wide[default]
    se = loss.std(ddof=1) / math.sqrt(loss.size)
    assert loss.mean() <= _t(1, loss.size - 1) * se, (
        f"the default share {default} loses {loss.mean():.3f} of accuracy to {best} beyond "
        "the seed spread")


@pytest.mark.parametrize("artifact", ["beyond-threshold-share", "beyond-count-share"])
def test_beyond_share_claim(results, artifact):
    share = pd.read_csv(results(artifact))
    check_share(share[share["method"] == DEFAULT_VARIANT[0]] if artifact == "beyond-count-share"
                else share)


@pytest.mark.parametrize("artifact", ["beyond-threshold-share", "beyond-count-share"])
def test_beyond_share_check_rejects_broken_results(results, artifact):
    share = pd.read_csv(results(artifact))
    broken = share.copy()
    broken.loc[broken["fraction"] == 0.1, "accuracy"] -= 0.2
    with pytest.raises(AssertionError, match="beyond the seed spread"):
        check_share(broken)
