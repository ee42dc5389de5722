"""Claims of the "Beyond P1" chapter (`beyond-design`, `beyond-ceiling`, `beyond-p1`,
`beyond-targets`, `beyond-multiclass`).

- `beyond-design`: the library's constants (the default's vertex selection, the joint
  release's share and base measure, the L2 reference's Jacobian share) are what the
  chapter's design rules choose on the committed synthetic-family records (``book/paper-results/design-*.csv``).
- `beyond-p1`: every binary dataset has the default beside the L2 reference at every budget;
  the default keeps fewer nonzeros than the dense L2 reference on every dataset; the private
  threshold raises private LASSO's mean accuracy.
- `beyond-targets`: each target's state (met or missed) is what its own numbers say,
  recomputed here from the results files; the chapter prints it.
- `beyond-multiclass`: every multiclass dataset has the default, private LASSO and the L2
  reference, and
  private LASSO never dominates the default (on every cell the default is the sparser or the
  more accurate).

**Margins** as in ``test_p1.py``: a comparison of means fails only beyond ``q * se``, ``se``
the standard error over datasets and ``q`` the one-sided Student-t quantile at ``ALPHA / m``
(Bonferroni over the ``m`` comparisons of one test), so each statistical test fails with
probability at most ``ALPHA`` when its claim holds. Each check also runs on a deliberately
broken copy of the results, which it must reject.
"""
import math

import numpy as np
import pandas as pd
import pytest

from dplasso.data import HELD_OUT, catalog_ids
from dplasso.estimators.joint_release import (
    CONSTANT_MARGIN,
    CONSTANT_ODDS,
    JOINT_SHARE_SCALE,
    MARGIN_GROWTH,
    SIZE_DECAY,
)
from dplasso.estimators.objective_perturbation import L2_JACOBIAN_SHARE
from dplasso.estimators.params import DEFAULT_SELECTION
from dplasso.estimators.weights import (
    OBJECTIVE_PERTURBATION_SCALE,
    prefers_objective_perturbation,
)
from dplasso.experiments.beyond import DEFAULT_VARIANT, L2_VARIANT
from dplasso.experiments.beyond_display import per_dataset, targets_table
from dplasso.experiments.design import (
    MARGIN_KEYS,
    choose_joint,
    choose_l2_share,
    choose_margin,
    choose_selection,
    choose_weights_scale,
    design_record,
    reference_accuracy,
)
from dplasso.experiments.p1 import SYNTHETIC
from statistical import t_quantile


def _variant(means, variant):
    method, threshold = variant
    here = means[(means["method"] == method) & (means["threshold"] == threshold)
                 & (means["dataset"] != SYNTHETIC)]
    return here.set_index(["dataset", "epsilon"])


def _records():
    return {name: design_record(name)
            for name in ("joint", "margin", "l2", "selection", "weights")}


def check_design(records, constants):
    """The design rules, applied to the records, choose the library's constants."""
    reference = reference_accuracy(records["l2"])
    joint = choose_joint(records["joint"], reference)
    assert (joint["share_scale"], joint["size_decay"]) == (
        constants["share_scale"], constants["size_decay"]), (
        f"the joint design rule chooses {joint}, the library uses {constants}")
    margin = choose_margin(records["margin"], reference)
    assert margin == {key: constants[key] for key in MARGIN_KEYS}, (
        f"the margin design rule chooses {margin}, the library uses {constants}")
    share = choose_l2_share(records["l2"])
    assert share == constants["l2_share"], (
        f"the L2 design rule chooses {share}, the library uses {constants['l2_share']}")
    selection = choose_selection(records["selection"])
    assert selection == constants["selection"], (
        f"the selection design rule chooses {selection}, the library uses "
        f"{constants['selection']}")
    scale = choose_weights_scale(records["weights"], reference)
    assert scale == constants["weights_scale"], (
        f"the weights design rule chooses {scale}, the library uses "
        f"{constants['weights_scale']}")


CONSTANTS = {"share_scale": JOINT_SHARE_SCALE, "size_decay": SIZE_DECAY,
             "constant_odds": CONSTANT_ODDS, "constant_margin": CONSTANT_MARGIN,
             "margin_growth": MARGIN_GROWTH,
             "l2_share": L2_JACOBIAN_SHARE,
             "selection": DEFAULT_SELECTION, "weights_scale": OBJECTIVE_PERTURBATION_SCALE}


def test_beyond_design_constants_are_the_rules_choices():
    check_design(_records(), CONSTANTS)


def test_beyond_design_check_rejects_other_constants():
    records = _records()
    for key, other in (("constant_odds", CONSTANTS["constant_odds"] + 1.0),
                       ("constant_margin", CONSTANTS["constant_margin"] + 0.25),
                       ("margin_growth", CONSTANTS["margin_growth"] + 0.25),
                       ("share_scale", CONSTANTS["share_scale"] + 1.0),
                       ("l2_share", 0.5), ("selection", "laplace"),
                       ("weights_scale", 0.0)):
        with pytest.raises(AssertionError, match="rule chooses"):
            check_design(records, {**CONSTANTS, key: other})


def check_default_beside_l2(results):
    """Every real dataset and budget has both; the default keeps no more nonzeros than the
    L2 reference anywhere, and fewer wherever its weights come from Frank-Wolfe (with
    objective-perturbation weights it may keep every column: the targets table counts)."""
    means = per_dataset(results)
    default = _variant(means, DEFAULT_VARIANT)
    l2 = _variant(means, L2_VARIANT)
    assert set(default.index) == set(l2.index) and len(default), (
        "the default and the L2 reference do not cover the same (dataset, budget) cells")
    l2_nnz = l2.loc[default.index, "nnz"]
    denser = default["nnz"] > l2_nnz
    assert not denser.any(), (
        f"the default keeps more nonzeros than the L2 reference on {list(default.index[denser])}")
    rows = results.drop_duplicates(["dataset", "epsilon"]).set_index(["dataset", "epsilon"])
    frank_wolfe = pd.Series([not prefers_objective_perturbation(rows.loc[cell, "n_train"],
                                                                rows.loc[cell, "n_coef"] + 1,
                                                                cell[1])
                             for cell in default.index], index=default.index)
    dense = frank_wolfe & (default["nnz"] >= l2_nnz)
    assert not dense.any(), (
        "with Frank-Wolfe weights the default keeps no fewer nonzeros than the L2 reference on "
        f"{list(default.index[dense])}")


def check_threshold_helps(results):
    """The threshold raises private LASSO's mean accuracy (over datasets), at every budget."""
    means = per_dataset(results)
    plain = _variant(means, ("private LASSO", "none"))["accuracy"]
    with_threshold = _variant(means, ("private LASSO", "private"))["accuracy"]
    gains = (with_threshold - plain).dropna().groupby(level="epsilon")
    for epsilon, gain in gains:
        se = gain.std(ddof=1) / math.sqrt(gain.size) if gain.size > 1 else 0.0
        assert gain.mean() + t_quantile(gains.ngroups, gain.size - 1) * se > 0, (
            f"eps={epsilon:g}: the private threshold lowers private LASSO's mean accuracy by "
            f"{-gain.mean():.3f}")


def test_beyond_p1_claim(results):
    built = pd.read_csv(results("beyond-p1"), float_precision="round_trip")
    check_default_beside_l2(built)
    check_threshold_helps(built)


def test_beyond_p1_checks_reject_broken_results(results):
    built = pd.read_csv(results("beyond-p1"), float_precision="round_trip")
    dense = built.copy()
    default = (dense["method"] == DEFAULT_VARIANT[0]) & (dense["threshold"] == DEFAULT_VARIANT[1])
    dense.loc[default, "nnz"] = dense["n_coef"][default] + 1
    with pytest.raises(AssertionError, match="more nonzeros"):
        check_default_beside_l2(dense)
    full = built.copy()
    full.loc[default, "nnz"] = full["n_coef"][default]
    # One training row puts every cell with more than c_w eps^(1/3) columns under Frank-Wolfe
    # weights, so the copy has such cells on every profile (the ci profile's have none).
    full["n_train"] = 1
    with pytest.raises(AssertionError, match="with Frank-Wolfe weights"):
        check_default_beside_l2(full)
    with pytest.raises(AssertionError, match="same"):
        check_default_beside_l2(built[~((built["method"] == "L2 reference")
                                        & (built["epsilon"] == built["epsilon"].max()))])
    no_gain = built.copy()
    lasso = (no_gain["method"] == "private LASSO") & (no_gain["threshold"] == "private")
    plain = (no_gain["method"] == "private LASSO") & (no_gain["threshold"] == "none")
    no_gain.loc[lasso, "accuracy"] = no_gain.loc[plain, "accuracy"].to_numpy() - 0.1
    with pytest.raises(AssertionError, match="lowers"):
        check_threshold_helps(no_gain)


def _multiclass(results):
    try:
        return pd.read_csv(results("beyond-multiclass"), float_precision="round_trip")
    except AssertionError:  # a profile without multiclass datasets writes no such file
        return None


def check_targets(targets, results, multiclass):
    """The printed table is the one the results give."""
    expected = targets_table(results, multiclass)
    pd.testing.assert_frame_equal(targets.reset_index(drop=True), expected, check_dtype=False,
                                  obj="the targets table")
    assert (targets["met"] == targets["met"].astype(bool)).all()


def test_beyond_targets_claim(results):
    targets = pd.read_csv(results("beyond-targets"))
    built = pd.read_csv(results("beyond-p1"), float_precision="round_trip")
    check_targets(targets, built, _multiclass(results))


def test_beyond_targets_check_rejects_a_flipped_state(results):
    targets = pd.read_csv(results("beyond-targets"))
    built = pd.read_csv(results("beyond-p1"), float_precision="round_trip")
    flipped = targets.copy()
    flipped.loc[0, "met"] = not bool(flipped.loc[0, "met"])
    with pytest.raises(AssertionError, match="targets table"):
        check_targets(flipped, built, _multiclass(results))


def check_multiclass(multiclass):
    """Each dataset and budget has the three variants, and private LASSO with the threshold never
    dominates the default: on every cell the default keeps fewer nonzeros or has the higher
    mean test accuracy (means over trials, compared exactly: equal means count against the
    default)."""
    private = multiclass[multiclass["kind"] == "private"]
    cells = private.groupby(["dataset", "epsilon"])["method"].apply(frozenset)
    assert (cells == frozenset({"default", "private LASSO", "L2 reference"})).all(), (
        "a multiclass cell lacks a variant")
    means = private.pivot_table(index=["dataset", "epsilon"], columns="method",
                                values=["nnz", "accuracy"])
    dominated = ((means["nnz", "default"] >= means["nnz", "private LASSO"])
                 & (means["accuracy", "default"] <= means["accuracy", "private LASSO"]))
    assert not dominated.any(), (
        "private LASSO is as sparse and as accurate as the default on "
        f"{list(dominated.index[dominated])}")


def test_beyond_multiclass_claim(results):
    multiclass = _multiclass(results)
    if multiclass is None:
        pytest.skip("this profile runs no multiclass dataset")
    check_multiclass(multiclass)


def test_beyond_multiclass_check_rejects_broken_results(results):
    multiclass = _multiclass(results)
    if multiclass is None:
        pytest.skip("this profile runs no multiclass dataset")
    with pytest.raises(AssertionError, match="lacks a variant"):
        check_multiclass(multiclass[multiclass["method"] != "private LASSO"])
    dominated = multiclass.copy()
    default = dominated["method"] == "default"
    dominated.loc[default, "nnz"] = dominated["nnz"].max() + 1
    dominated.loc[default, "accuracy"] = 0.0
    with pytest.raises(AssertionError, match="as sparse and as accurate"):
        check_multiclass(dominated)


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


def test_paper_record_is_the_paper_profile_or_says_it_predates():
    """The committed paper record covers the catalogue's binary datasets and the held-out
    ones; until the paper run at this design rewrites it, it predates the L2 reference (and
    the chapter says so)."""
    from dplasso.experiments.beyond import PAPER_RECORD
    record = pd.read_csv(PAPER_RECORD, float_precision="round_trip")
    real = set(record.loc[record["dataset"] != SYNTHETIC, "data_id"].astype(int))
    book = set(catalog_ids("binary")) | set(HELD_OUT)
    assert real == book, f"the paper record covers {sorted(real)}, not {sorted(book)}"
    if "L2 reference" in set(record["method"]):
        check_default_beside_l2(record)
        check_threshold_helps(record)
        assert np.isfinite(record.loc[record["kind"] == "private", "accuracy"]).all()
