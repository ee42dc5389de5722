"""Claims of `p1-conventions`: P1's Sparsifier and private LASSO under this project's conventions
and under the authors', knob by knob (the claim is the ``claim`` entry of ``artifacts.yaml``).

The grid and the ledgers are checked exactly. The verdict counts are those the chapter prints,
from the same functions (:mod:`dplasso.experiments.p1_display`): a dataset counts as above
chance only when its mean margin over the majority rate exceeds 2 points by 2 standard errors
(about a 2.5% one-sided error per dataset), so "at most half the datasets" can only be
contradicted by datasets whose margin is clear. Each check also runs on a deliberately broken
copy of the results, which it must reject.
"""
import pandas as pd
import pytest

from dplasso.experiments.conventions import CONFIGS
from dplasso.experiments.p1_display import conventions_cells, conventions_verdicts

CALIBRATION = {name: knobs["calibration"] for name, knobs in CONFIGS}
"""Each configuration's Frank-Wolfe calibration (:data:`dplasso.experiments.conventions.CONFIGS`:
both sets, each knob switched alone from either, the authors' with the private threshold)."""


def check_conventions(frame, names=tuple(CALIBRATION), versus=True):
    """The claim on a conventions run of the configurations ``names`` (default: all);
    ``versus``: with the Sparsifier against private LASSO."""
    private = frame[frame["method"] != "non-private"]
    grid = private.groupby(["dataset", "epsilon"])["config"].agg(lambda c: set(c) == set(names))
    assert grid.all(), f"configurations missing in some cells: {grid.to_dict()}"
    assert set(private["method"]) == {"Sparsifier", "private LASSO"}
    calibration = private["config"].map(CALIBRATION)
    proven = private[calibration == "proven"]
    assert (proven["epsilon_spent"] <= proven["epsilon"] * (1 + 1e-12)).all(), (
        "a run at the proven calibration spends more than its budget")
    talwar = private[calibration == "talwar"]
    assert len(talwar) and (talwar["epsilon_spent"] > talwar["epsilon"]).all(), (
        "Talwar et al.'s scale spends no more than its budget under replace-one")
    verdicts = conventions_verdicts(conventions_cells(frame))
    both = verdicts[verdicts["config"].isin(["ours", "authors"])]
    above = both["Sparsifier above chance"] <= both["datasets"] / 2
    assert above.all(), (
        "the Sparsifier is clearly above chance on more than half the datasets in "
        f"{both.loc[~above, ['config', 'epsilon']].to_dict('records')}")
    ahead = both["Sparsifier ahead"] <= both["Sparsifier behind"]
    assert ahead.all() or not versus, (
        "the Sparsifier is clearly ahead of private LASSO more often than behind in "
        f"{both.loc[~ahead, ['config', 'epsilon']].to_dict('records')}")


def test_p1_conventions_claim(results):
    check_conventions(pd.read_csv(results("p1-conventions")))


def test_p1_conventions_check_rejects_broken_results(results):
    frame = pd.read_csv(results("p1-conventions"))
    broken = frame.copy()
    sparsifier = broken["method"] == "Sparsifier"
    broken.loc[sparsifier, "accuracy"] = 1.0
    with pytest.raises(AssertionError, match="clearly above chance|clearly ahead"):
        check_conventions(broken)
    broken = frame.copy()
    broken.loc[broken["config"] == "authors", "epsilon_spent"] = broken["epsilon"]
    with pytest.raises(AssertionError, match="spends no more"):
        check_conventions(broken)
    broken = frame[frame["config"] != "ours + map"]
    with pytest.raises(AssertionError, match="configurations missing"):
        check_conventions(broken)


def test_p1_multinomial_conventions_claim(results):
    """`p1-multinomial-conventions`: the multinomial Sparsifier and private LASSO under this
    project's and the authors' conventions, checked as `p1-conventions` is but for the
    comparison with private LASSO, which the multinomial chapter does not claim."""
    check_conventions(pd.read_csv(results("p1-multinomial-conventions")), ("ours", "authors"),
                      versus=False)


def test_p1_multinomial_conventions_check_rejects_broken_results(results):
    """`p1-multinomial-conventions`: a Sparsifier always right, a Talwar-scaled run that claims
    its budget, and a missing configuration are each rejected."""
    frame = pd.read_csv(results("p1-multinomial-conventions"))
    names = ("ours", "authors")
    broken = frame.copy()
    broken.loc[broken["method"] == "Sparsifier", "accuracy"] = 1.0
    with pytest.raises(AssertionError, match="clearly above chance"):
        check_conventions(broken, names, versus=False)
    broken = frame.copy()
    broken.loc[broken["config"] == "authors", "epsilon_spent"] = broken["epsilon"]
    with pytest.raises(AssertionError, match="spends no more"):
        check_conventions(broken, names, versus=False)
    with pytest.raises(AssertionError, match="configurations missing"):
        check_conventions(frame[frame["config"] != "authors"], names, versus=False)
