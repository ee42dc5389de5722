"""Artifacts `p1-baselines`, `p1-count-sensitivity` and `p1-count-default`: claims checked
against the results files.

Margins come from the spread of the runs: the Sparsifier and another method are compared per
(dataset, epsilon) cell, paired by split, and a difference counts as clear when the mean paired
difference is more than two standard errors of that mean from zero
(:func:`dplasso.experiments.p1_baselines.paired_comparison`); everything else is a tie.
"""
import json
import math

import numpy as np
import pandas as pd
import pytest

from statistical import ALPHA
from dplasso.data.catalog import CATALOG, load_dataset
from dplasso.estimators import lasso_support_size
from dplasso.experiments.p1_baselines import (
    L2_REFERENCE,
    METHODS,
    PRIVATE_METHODS,
    SYNTHETIC,
    paired_comparison,
)
from dplasso.experiments.p1_display import SPARSE_FACTOR, kept_sparse, outperforms


@pytest.fixture(scope="module")
def baselines(results):
    return pd.read_csv(results("p1-baselines"))


@pytest.fixture(scope="module")
def verdicts(baselines):
    comparison = paired_comparison(baselines)
    return comparison.groupby(["other", "verdict"]).size().unstack(fill_value=0).reindex(
        columns=["better", "tie", "worse"], fill_value=0)


def test_baselines_table_is_complete_and_spends_the_stated_budget(baselines):
    """`p1-baselines`: every method on every split and budget; each private fit's composed
    guarantee is its budget; the count-based methods keep at most their released level."""
    private = baselines[baselines["epsilon"].notna()]
    assert set(baselines["method"]) == set(METHODS)
    cells = private.groupby(["dataset", "trial", "epsilon"])["method"].agg(sorted)
    assert all(methods == sorted(PRIVATE_METHODS + (L2_REFERENCE,)) for methods in cells)
    np.testing.assert_allclose(private["epsilon_spent"], private["epsilon"], rtol=1e-9)
    assert (private["delta_spent"] <= private["delta"] * (1 + 1e-9)).all()
    np.testing.assert_allclose(private["delta"], 1.0 / private["n_train"] ** 2, rtol=1e-12)
    counted = private[private["method"].isin(["Sparsifier", "two-stage", "DP-IGHT"])]
    assert (counted["nnz"] <= counted["n_nonzero_target"]).all()
    nonprivate = baselines[baselines["method"] == "non-private LASSO"]
    assert (nonprivate["nnz"] == nonprivate["count"]).all()
    assert nonprivate["count_converged"].all()


def test_the_l2_reference_is_dense_beside_every_private_cell(baselines):
    """`p1-baselines`: the L2 reference (the private dense alternative every accuracy of the
    book stands beside) is fitted on every split at every budget (checked above), keeps every
    coefficient and, at the largest budget, is no more than 2 points below the majority rate
    on at least half of the datasets (a sign or scale error in its fit would fail this)."""
    l2 = baselines[baselines["method"] == L2_REFERENCE]
    assert (l2["nnz"] == l2["p"]).all()
    assert l2["accuracy"].between(0, 1).all()
    majority = baselines[baselines["method"] == "majority"].groupby("dataset")["accuracy"].mean()
    top = l2[l2["epsilon"] == l2["epsilon"].max()].groupby("dataset")["accuracy"].mean()
    assert (top >= majority.reindex(top.index) - 0.02).mean() >= 0.5, top - majority


def check_l2_ahead_of_the_sparsifier(baselines):
    """Paired by split (two-standard-error margin), the Sparsifier is clearly more accurate
    than the L2 reference in fewer cells than it is clearly less accurate."""
    verdict = paired_comparison(baselines, others=[L2_REFERENCE])["verdict"].value_counts()
    assert verdict.get("better", 0) < verdict.get("worse", 0), verdict.to_dict()


def test_the_l2_reference_is_ahead_of_the_sparsifier(baselines, results):
    """`p1-baselines`, the chapter's reading of the L2 row ("on accuracy alone the dense L2
    model is the better choice more often than P1's Sparsifier"). A cell's verdict is wrong
    by chance with probability about 5% per direction (two standard errors); the paper record
    has 0 clear cells for the Sparsifier and 44 of 70 for the L2 reference. Like the count of
    clear cells above, a claim about the paper profile's sizes (the ci build: 0 and 1 in
    eight cells of three trials)."""
    run = json.loads((results("p1-baselines").parent / "run.json").read_text())
    if run["profile"] != "paper":
        pytest.skip("a claim about the paper profile; checked on the committed paper record")
    check_l2_ahead_of_the_sparsifier(baselines)


def test_the_l2_check_rejects_an_l2_reference_at_chance(baselines):
    broken = baselines.copy()
    l2 = broken["method"] == L2_REFERENCE
    broken.loc[l2, "accuracy"] -= 0.3
    with pytest.raises(AssertionError):
        check_l2_ahead_of_the_sparsifier(broken)


def test_sparsifier_is_competitive(verdicts):
    """`p1-baselines`, P1's "competitive": against each other private method, the Sparsifier
    is not clearly less accurate in at least half of the (dataset, epsilon) cells."""
    not_worse = (verdicts["better"] + verdicts["tie"]) / verdicts.sum(axis=1)
    assert (not_worse >= 0.5).all(), not_worse


def test_sparsifier_does_not_beat_dp_ight_nor_the_others(verdicts, results):
    """`p1-baselines`, P1's "beats the L0 method" does not hold in our runs (documented in the
    book): against DP-IGHT, the two-stage method and private Frank-Wolfe from zero, the
    Sparsifier is clearly more accurate in no more cells than it is clearly less accurate.
    A count of clear cells is a claim about the paper profile's sizes (the ``ci`` profile has
    three trials in each of its eight cells, where one clear cell can come by chance; the ci
    build had 1 better and 0 worse against DP-IGHT, the paper record 0 and 15): it is checked
    on paper-profile results, which CI has in the committed record (``make book-check`` runs
    the claim tests on it)."""
    run = json.loads((results("p1-baselines").parent / "run.json").read_text())
    if run["profile"] != "paper":
        pytest.skip("a claim about the paper profile; checked on the committed paper record")
    for other in ("DP-IGHT", "two-stage", "private FW (zero init)"):
        assert verdicts.loc[other, "better"] <= verdicts.loc[other, "worse"], other


def test_sparsifier_support_beats_the_dense_private_methods(baselines):
    """`p1-baselines`, support on the synthetic family: at the largest budget the Sparsifier's
    support F1 is clearly higher than that of private Frank-Wolfe and private ADMM (paired by
    trial, two-standard-error margin)."""
    synthetic = baselines[baselines["dataset"] == SYNTHETIC]
    top = synthetic["epsilon"].max()
    comparison = paired_comparison(synthetic[synthetic["epsilon"] == top], value="f1",
                                   others=("private FW (zero init)", "private ADMM"))
    assert (comparison["verdict"] == "better").all(), comparison


@pytest.fixture(scope="module")
def count_search(results):
    return pd.read_csv(results("p1-count-sensitivity"))


def test_count_sensitivity_is_reported_as_found(count_search):
    """`p1-count-sensitivity`: the table is consistent with what was searched. Each change found
    is the distance between the dataset's count and its witness's, lies within the proven
    bound ``p``, and ``exceeded`` marks exactly the datasets where it is above the declared 1;
    the privacy factors follow from it (f = 1/4)."""
    t = count_search
    assert (t["declared"] == 1).all()
    np.testing.assert_array_equal(t["found"], (t["neighbour_count"] - t["count"]).abs())
    assert ((0 <= t["count"]) & (t["count"] <= t["p"]) & (t["found"] <= t["p"])).all()
    np.testing.assert_array_equal(t["exceeded"], t["found"] > t["declared"])
    np.testing.assert_allclose(t["count_epsilon_factor"], t["found"] / t["declared"])
    np.testing.assert_allclose(t["sparsifier_epsilon_factor_found"],
                               0.75 + 0.25 * np.maximum(t["found"], t["declared"]))
    np.testing.assert_allclose(t["sparsifier_epsilon_factor_proven"], 0.75 + 0.25 * t["p"])


def test_count_sensitivity_witness_reproduces_the_change(count_search):
    """`p1-count-sensitivity`: the largest change reported is real. Rebuilding the witness
    neighbour (one row replaced) and recounting with the Sparsifier's defaults gives the
    reported neighbour count, and the dataset itself gives the reported count."""
    row = count_search.loc[count_search["found"].idxmax()]
    data = load_dataset({entry.name: entry.id for entry in CATALOG}[row["dataset"]])
    X, y = np.array(data.X, dtype=float), data.y.copy()
    assert lasso_support_size(X, y, lam=10.0) == row["count"]
    X[int(row["witness_index"])] = json.loads(row["witness_row"])
    y[int(row["witness_index"])] = int(row["witness_label"])
    assert lasso_support_size(X, y, lam=10.0) == row["neighbour_count"]



def _below_clip_bound_share(rows):
    """Rows whose share of releases on a clip bound is below exp(-eps1) beyond sampling error.

    Each share averages ``n_draws`` independent indicators whose mean is at least exp(-eps1)
    when the count is noised at sensitivity m; Hoeffding's bound with a Bonferroni split of
    ALPHA over the rows makes a false flag (for a correct release) at most ALPHA likely."""
    bound = np.exp(-rows["epsilon_count"])
    margin = np.sqrt(math.log(len(rows) / ALPHA) / (2 * rows["n_draws"]))
    return rows[rows["at_ends"] < bound - margin]


def test_default_count_release_is_mostly_clip_bounds(results):
    """`p1-count-default`: at the library's default, the proven sensitivity m, every dataset's
    released count sits on 1 or m in at least a share exp(-eps1) of the releases (false-failure
    rate <= ALPHA). The same check flags P1's declared 1 on some dataset, so it discriminates."""
    t = pd.read_csv(results("p1-count-default"))
    proven = t[t["count_sensitivity"] == "max"]
    declared = t[t["count_sensitivity"] == "1"]
    assert len(proven) == len(declared) > 0
    assert (proven["sensitivity"] == proven["m"]).all() and (declared["sensitivity"] == 1).all()
    assert _below_clip_bound_share(proven).empty, _below_clip_bound_share(proven)
    assert not _below_clip_bound_share(declared).empty


def check_admm_not_sparse(frame, k):
    """At every budget private ADMM's mean nonzeros exceed SPARSE_FACTOR times the true ``k``,
    and every private fit spends at most its budget."""
    budgets = kept_sparse(frame, "private ADMM", k)
    assert len(budgets), "no private ADMM rows"
    assert not budgets["sparse"].any(), (
        f"private ADMM keeps sparsity (at most {SPARSE_FACTOR} x {k} nonzeros on average) at "
        f"eps {list(budgets.index[budgets['sparse']])}")
    private = frame[frame["epsilon"].notna()]
    assert (private["epsilon_spent"] <= private["epsilon"] * (1 + 1e-12)).all()


def _wang_zhang(results):
    path = results("p1-baselines-wang-zhang")
    run = json.loads((path.parent / "run.json").read_text())
    return pd.read_csv(path), int(run["parameters"]["wang_zhang"]["k"])


def test_admm_does_not_keep_sparsity_at_wang_and_zhang_s_size(results):
    """`p1-baselines-wang-zhang`: P1 could not replicate private ADMM's sparsity at 10,000 x
    100. On P1's synthetic family at that size, at every budget, private ADMM keeps more than
    twice the true number of nonzeros on average (the paper record: 25 to 35 for 5 true; the
    margin is far beyond the trial-to-trial spread, so the check is not statistical)."""
    check_admm_not_sparse(*_wang_zhang(results))


def test_the_sparsity_check_rejects_a_sparse_admm(results):
    """`p1-baselines-wang-zhang`: the check fails on a copy where private ADMM keeps exactly
    the true number of nonzeros, and on one that overspends."""
    frame, k = _wang_zhang(results)
    broken = frame.copy()
    broken.loc[broken["method"] == "private ADMM", "nnz"] = k
    with pytest.raises(AssertionError, match="keeps sparsity"):
        check_admm_not_sparse(broken, k)
    broken = frame.copy()
    broken.loc[broken["method"] == "private ADMM", "epsilon_spent"] *= 1.01
    with pytest.raises(AssertionError):
        check_admm_not_sparse(broken, k)


TALWAR_SCALED = ("Sparsifier", "private FW (zero init)")
"""The methods the authors' conventions run at Talwar et al.'s closed-form scale."""


def check_authors_line_up(frame, n_trials, paper):
    """The authors' line-up: every private method in every (dataset, epsilon) cell with
    ``n_trials`` trials; the methods at Talwar et al.'s scale spend more than their budget
    under replace-one, every other at most its budget; on the paper profile, against
    DP-IGHT the Sparsifier does not outperform (clearly more accurate in at most a tenth of
    the cells, :data:`~dplasso.experiments.p1_display.OUTPERFORM_SHARE`)."""
    private = frame[frame["epsilon"].notna() & frame["method"].isin(PRIVATE_METHODS)]
    grid = private.groupby(["dataset", "epsilon", "method"]).size()
    assert len(grid) == private["dataset"].nunique() * private["epsilon"].nunique() * len(
        PRIVATE_METHODS) and (grid == n_trials).all(), "the authors' line-up is incomplete"
    talwar = private["method"].isin(TALWAR_SCALED)
    assert (private.loc[talwar, "epsilon_spent"] > private.loc[talwar, "epsilon"]).all(), (
        "Talwar et al.'s scale spends no more than its budget under replace-one")
    proven = private[~talwar]
    assert (proven["epsilon_spent"] <= proven["epsilon"] * (1 + 1e-12)).all(), (
        "a proven calibration spends more than its budget")
    if paper:
        verdicts = paired_comparison(frame, others=["DP-IGHT"])["verdict"]
        better = int((verdicts == "better").sum())
        assert not outperforms(better, len(verdicts)), (
            f"the Sparsifier outperforms DP-IGHT under the authors' conventions: clearly "
            f"better in {better} of {len(verdicts)} cells")


def _authors(results):
    path = results("p1-baselines-authors")
    run = json.loads((path.parent / "run.json").read_text())
    return pd.read_csv(path), int(run["parameters"]["n_trials"]), run["profile"] == "paper"


def test_authors_line_up_claim(results):
    """`p1-baselines-authors`: the line-up under the authors' conventions. The count of clear
    cells is a claim about the paper profile's sizes, as for `p1-baselines` (the ci profile
    checks the grid and the ledgers only). A cell is clearly better by chance with
    probability about 2.5%; with no true difference in any of the paper record's 65 cells,
    more than 6 of them (a tenth) are with probability about 0.1%, the false-failure rate.
    The paper record: 2 better, 61 ties, 2 worse."""
    check_authors_line_up(*_authors(results))


def test_authors_check_rejects_broken_results(results):
    """`p1-baselines-authors`: the check fails on a Sparsifier that is always right (paper
    profile), on a Sparsifier whose ledger claims no overspending, and on a missing trial."""
    frame, n_trials, _ = _authors(results)
    broken = frame.copy()
    broken.loc[broken["method"] == "Sparsifier", "accuracy"] = 1.0
    with pytest.raises(AssertionError, match="outperforms DP-IGHT"):
        check_authors_line_up(broken, n_trials, True)
    broken = frame.copy()
    broken.loc[broken["method"] == "Sparsifier", "epsilon_spent"] = broken["epsilon"]
    with pytest.raises(AssertionError, match="spends no more"):
        check_authors_line_up(broken, n_trials, False)
    broken = frame.drop(frame.index[(frame["method"] == "DP-IGHT")][:1])
    with pytest.raises(AssertionError, match="incomplete"):
        check_authors_line_up(broken, n_trials, False)
