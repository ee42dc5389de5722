"""Claims of the "Beyond P2" chapter (`beyond-p2-release`, `beyond-p2-choice`, `beyond-p2`,
`beyond-p2-frequencies`).

The verdict's sentences are about the paper profile: they are checked on the committed
paper-profile record (``book/paper-results/beyond-p2/beyond-p2.csv``, made by ``dplasso reproduce
beyond-p2 --profile paper``); the checks that do not depend on the profile's sizes (the
release's search and audit, the choice rule, the equal budget, Algorithm 1's over-screening)
also run on the built book's own results.

**Margins.** A difference of two means over runs is clear beyond ``CLEAR_Z = 2`` standard errors
of the difference (runs are independent between variants: separate noise streams). The verdict
checks read the committed record, which is fixed, so they cannot fail by chance from one CI run
to the next; a new paper record is read against the verdict's sentences with these margins.
Every check also runs on a deliberately broken copy of the results, which it must reject.
"""
import math

import numpy as np
import pandas as pd
import pytest

from dplasso.experiments.beyond_p2 import PAPER_RECORD, REFERENCE
from dplasso.experiments.verdicts import clear_verdicts

SYNTHETIC = ("linear", "logistic")


def _record():
    assert PAPER_RECORD.is_file(), f"paper-profile record missing: {PAPER_RECORD}"
    return pd.read_csv(PAPER_RECORD, float_precision="round_trip")


def _built(results):
    return pd.read_csv(results("beyond-p2"), float_precision="round_trip")


# ---------------------------------------------------------------------------------------
# the release


def check_release(release):
    """Every search within its declaration (tight ones above 0.9 of it); the correct round
    audits below its claim, the broken one is caught."""
    searches = release[release["check"] == "sensitivity search"]
    assert len(searches) >= 3
    over = searches[searches["found / audited lower bound"]
                    > searches["declared / claimed"] * (1 + 1e-9)]
    assert over.empty, f"a search exceeded the declared sensitivity:\n{over}"
    tight = searches[searches["tight"]]
    assert len(tight) >= 2 and (tight["ratio"] > 0.9).all(), "a tight search fell short"
    correct = release[release["check"] == "audit (correct)"]
    broken = release[release["check"].str.startswith("audit (") & (
        release["check"] != "audit (correct)")]
    assert len(correct) == 1 and len(broken) >= 1
    assert (correct["verdict"] == "consistent").all() and (
        correct["found / audited lower bound"] <= correct["declared / claimed"]).all(), (
        "the correct round audits above its claim")
    assert (broken["verdict"] == "violation").all(), "a broken variant was not caught"


def test_beyond_p2_release_claim(results):
    check_release(pd.read_csv(results("beyond-p2-release")))


def test_beyond_p2_release_check_rejects_broken_results(results):
    release = pd.read_csv(results("beyond-p2-release"))
    searches = release["check"] == "sensitivity search"
    over = release.copy()
    over.loc[searches, "found / audited lower bound"] *= 1.5
    with pytest.raises(AssertionError, match="exceeded"):
        check_release(over)
    missed = release.copy()
    missed.loc[missed["check"] != "audit (correct)", "verdict"] = "consistent"
    missed.loc[searches, "verdict"] = "within"
    with pytest.raises(AssertionError, match="not caught"):
        check_release(missed)


# ---------------------------------------------------------------------------------------
# the choice, made on the synthetic design


def check_choice(choice, results):
    """The chosen (share, every) has the highest mean synthetic F1; the real-data rule runs
    at that share; the choice table covers synthetic runs only."""
    assert (choice["chosen"] == "yes").sum() == 1, "not exactly one chosen setting"
    chosen = choice[choice["chosen"] == "yes"].iloc[0]
    assert chosen["mean F1"] == choice["mean F1"].max(), "the chosen setting is not the best"
    rule = results[(results["variant"] == "one per round")]
    synthetic = rule[rule["data"].isin(SYNTHETIC)]
    assert int(choice["runs"].sum()) == len(synthetic), "the choice used other runs"
    real = rule[~rule["data"].isin(SYNTHETIC)]
    assert (real["share"].astype(str) == str(chosen["share"])).all(), (
        "the real-data runs do not use the chosen share")


def test_beyond_p2_choice_claim(results):
    check_choice(pd.read_csv(results("beyond-p2-choice")), _built(results))


def test_beyond_p2_choice_check_rejects_broken_results(results):
    choice = pd.read_csv(results("beyond-p2-choice"))
    built = _built(results)
    moved = choice.copy()
    moved["chosen"] = np.where(moved["mean F1"] == moved["mean F1"].min(), "yes", "")
    with pytest.raises(AssertionError, match="not the best"):
        check_choice(moved, built)
    other = built.copy()
    rows = (other["variant"] == "one per round") & ~other["data"].isin(SYNTHETIC)
    other.loc[rows, "share"] = "0.37"
    with pytest.raises(AssertionError, match="chosen share"):
        check_choice(choice, other)


# ---------------------------------------------------------------------------------------
# equal budget


def check_equal_budget(results):
    """Every private run composes to its epsilon (to rounding), and the three variants of a
    cell run the same number of steps."""
    private = results[results["variant"] != REFERENCE]
    composed, target = private["epsilon_composed"], private["epsilon"]
    assert (composed <= target * (1 + 1e-12)).all(), "a run spends more than its budget"
    assert (composed >= target * (1 - 1e-6)).all(), "a run spends less than its budget"
    steps = private.groupby(["data", "seed", "epsilon"])["n_iter"].nunique()
    assert (steps == 1).all(), "variants of one cell ran different numbers of steps"


def test_beyond_p2_equal_budget(results):
    check_equal_budget(_built(results))
    check_equal_budget(_record())


def test_beyond_p2_equal_budget_check_rejects_broken_results(results):
    built = _built(results)
    richer = built.copy()
    richer.loc[richer["variant"] == "one per round", "epsilon_composed"] *= 1.5
    with pytest.raises(AssertionError, match="more than its budget"):
        check_equal_budget(richer)
    longer = built.copy()
    longer.loc[longer["variant"] == "Algorithm 1", "n_iter"] += 1
    with pytest.raises(AssertionError, match="numbers of steps"):
        check_equal_budget(longer)


# ---------------------------------------------------------------------------------------
# the verdict, on the paper-profile record

CHOSEN = {"every": 10, "share": "0.1"}
"""The setting the paper-profile synthetic sweep chose (recomputed and checked below)."""
OFTEN, TOP = 2, 5.0
"""The frequent screening and the budget of the verdict's third and fourth sentences."""
HELPED = {"spambase", "kr-vs-kp"}


def _runs(frame, data, epsilon, variant, every=None, share=None, metric="f1"):
    rows = frame[(frame["data"] == data) & (frame["epsilon"] == epsilon)
                 & (frame["variant"] == variant)]
    if every is not None:
        rows = rows[rows["every"] == every]
    if share is not None:
        rows = rows[rows["share"].astype(str) == share]
    assert len(rows), (data, epsilon, variant, every, share)
    return rows[metric]


def _difference(frame, data, epsilon, variant, every, share=None, metric="f1"):
    """Mean difference to no screening and its standard error (independent runs)."""
    a = _runs(frame, data, epsilon, variant, every, share, metric)
    b = _runs(frame, data, epsilon, "no screening", metric=metric)
    return a.mean() - b.mean(), math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)


def _cells(frame):
    private = frame[frame["variant"] != REFERENCE]
    return [(d, e) for d, e in private[["data", "epsilon"]].drop_duplicates().itertuples(
        index=False)]


CLEAR_SYNTHETIC_CELLS = 1
"""Synthetic cells where the chosen rule's F1 is above no screening's by more than CLEAR_Z
standard errors, as the verdict says ("1 of the 8 cells"; it therefore says "helps little")."""


def check_no_help_on_synthetic(frame, bound=0.05, none_most=0.2, reference_least=0.6):
    """Sentence 1: on the synthetic design the chosen rule's mean F1 is within ``bound`` of no
    screening at every budget, clearly above it in CLEAR_SYNTHETIC_CELLS cells; Algorithm 1 at
    the same frequency is below it at every budget; without screening private Frank-Wolfe's
    mean F1 is at most ``none_most``, the non-private optimum's at least ``reference_least``."""
    clear = 0
    for data, epsilon in _cells(frame):
        if data not in SYNTHETIC:
            continue
        rule, se = _difference(frame, data, epsilon, "one per round", CHOSEN["every"],
                               CHOSEN["share"])
        assert abs(rule) <= bound, (
            f"{data}, eps={epsilon:g}: the rule moves F1 by {rule:+.3f} from no screening")
        clear += clear_verdicts(rule, se).better
        alg1, _ = _difference(frame, data, epsilon, "Algorithm 1", CHOSEN["every"])
        assert alg1 < 0, f"{data}, eps={epsilon:g}: Algorithm 1 raises F1 by {alg1:+.3f}"
        none = _runs(frame, data, epsilon, "no screening").mean()
        assert none <= none_most, f"{data}, eps={epsilon:g}: no screening reaches F1 {none:.2f}"
    assert clear == CLEAR_SYNTHETIC_CELLS, f"{clear} synthetic cells with a clear gain"
    reference = frame[(frame["variant"] == REFERENCE) & frame["data"].isin(SYNTHETIC)]
    assert reference.groupby("data")["f1"].mean().min() >= reference_least, (
        "the non-private optimum's F1 is lower than the verdict says")


def check_no_overscreening(frame, every=CHOSEN["every"], share=CHOSEN["share"], most=2.0,
                           alg1_least=0.4):
    """Sentence 2: at the chosen frequency the rule zeroes at most ``most`` true nonzeros on
    average in every cell, fewer than Algorithm 1, which zeroes at least ``alg1_least`` of
    them."""
    for data, epsilon in _cells(frame):
        rule = _runs(frame, data, epsilon, "one per round", every, share,
                     "n_screened_true_nonzero").mean()
        alg1 = _runs(frame, data, epsilon, "Algorithm 1", every, None,
                     "n_screened_true_nonzero")
        truth = _runs(frame, data, epsilon, "Algorithm 1", every, None, "n_true_nonzero")
        assert rule <= most, f"{data}, eps={epsilon:g}: the rule zeroes {rule:.2f} true nonzeros"
        assert rule < alg1.mean(), (
            f"{data}, eps={epsilon:g}: the rule zeroes {rule:.2f} true nonzeros, Algorithm 1 "
            f"{alg1.mean():.2f}")
        assert (alg1 / truth).mean() >= alg1_least, (
            f"{data}, eps={epsilon:g}: Algorithm 1 zeroes only {(alg1 / truth).mean():.0%}")


def check_helps_where_signal(frame, chosen_most=0.1):
    """Sentence 3: screening every OFTEN-th step raises F1 at eps = TOP by more than CLEAR_Z
    standard errors exactly on HELPED; at the chosen frequency no gain exceeds
    ``chosen_most``."""
    data_sets = {d for d, _ in _cells(frame)}
    for data in data_sets:
        difference, se = _difference(frame, data, TOP, "one per round", OFTEN, CHOSEN["share"])
        clear = clear_verdicts(difference, se).better == 1
        assert clear == (data in HELPED), (
            f"{data}: screening every {OFTEN} changes F1 at eps={TOP:g} by {difference:+.3f} "
            f"({difference / se:+.1f} se); the verdict says it "
            f"{'does' if data in HELPED else 'does not'} clearly raise it")
    for data, epsilon in _cells(frame):
        difference, _ = _difference(frame, data, epsilon, "one per round", CHOSEN["every"],
                                    CHOSEN["share"])
        assert difference <= chosen_most, (
            f"{data}, eps={epsilon:g}: the chosen rule raises F1 by {difference:.3f}")


def check_cost(frame, alg1_most=25.0):
    """Sentence 4: where screening often helps, it lowers test accuracy clearly and keeps
    fewer nonzeros; Algorithm 1 keeps at most ``alg1_most`` nonzeros on average at the chosen
    frequency, and its test accuracy is below no screening's at every budget there."""
    for data in HELPED:
        accuracy, se = _difference(frame, data, TOP, "one per round", OFTEN, CHOSEN["share"],
                                   "test_accuracy")
        assert clear_verdicts(accuracy, se).worse == 1, (
            f"{data}: screening every {OFTEN} changes test accuracy by {accuracy:+.3f} "
            f"({accuracy / se:+.1f} se), not a clear cost")
        nnz, _ = _difference(frame, data, TOP, "one per round", OFTEN, CHOSEN["share"], "nnz")
        assert nnz < 0, f"{data}: screening every {OFTEN} keeps more nonzeros"
        recall, _ = _difference(frame, data, TOP, "one per round", OFTEN, CHOSEN["share"],
                                "recall")
        assert recall < 0, f"{data}: screening every {OFTEN} does not lower recall"
    for data, epsilon in _cells(frame):
        kept = _runs(frame, data, epsilon, "Algorithm 1", CHOSEN["every"], None, "nnz").mean()
        assert kept <= alg1_most, f"{data}, eps={epsilon:g}: Algorithm 1 keeps {kept:.1f}"
        if data in HELPED:
            below, _ = _difference(frame, data, epsilon, "Algorithm 1", CHOSEN["every"],
                                   metric="test_accuracy")
            assert below < 0, (
                f"{data}, eps={epsilon:g}: Algorithm 1's test accuracy is {below:+.3f} above "
                "no screening's")


def check_sweep(frame):
    """The record's synthetic sweep chooses CHOSEN; its mean F1 rises as screening gets rarer
    for every share; the shares differ by less than CLEAR_Z standard errors at every
    frequency."""
    rule = frame[(frame["variant"] == "one per round") & frame["data"].isin(SYNTHETIC)].assign(
        share=lambda f: f["share"].astype(str))
    grouped = rule.groupby(["share", "every"])["f1"]
    means, se = grouped.mean(), grouped.std(ddof=1) / np.sqrt(grouped.size())
    share, every = means.idxmax()
    assert (share, int(every)) == (CHOSEN["share"], CHOSEN["every"]), (
        f"the sweep chooses share {share}, every {every}")
    for name in means.index.get_level_values("share").unique():
        by_every = means.xs(name, level="share").sort_index()
        assert by_every.is_monotonic_increasing, f"share {name}: F1 by frequency {by_every}"
    shares = means.index.get_level_values("share").unique()
    for every in means.index.get_level_values("every").unique():
        values = [(means[(s, every)], se[(s, every)]) for s in shares]
        spread = max(v for v, _ in values) - min(v for v, _ in values)
        assert clear_verdicts(spread, math.sqrt(sum(s**2 for _, s in values))).tie == 1, (
            f"every {every}: the shares differ by {spread:.3f}")


VERDICT_CHECKS = (check_no_help_on_synthetic, check_no_overscreening, check_helps_where_signal,
                  check_cost, check_sweep)


@pytest.mark.parametrize("check", VERDICT_CHECKS, ids=lambda c: c.__name__)
def test_beyond_p2_verdict_on_the_paper_record(check):
    check(_record())


def test_paper_record_is_the_paper_profile():
    record = _record()
    assert set(record["data"]) == set(SYNTHETIC) | {"spambase", "kr-vs-kp", "madelon"}
    assert sorted(record["epsilon"].dropna().unique()) == [0.5, 1.0, 2.0, 5.0]
    assert sorted(record["every"].dropna().unique()) == [1, 2, 5, 10]
    synthetic = record[record["data"] == "linear"]
    assert synthetic["n_true_nonzero"].iloc[0] == 70


def _shift(frame, rows, column, change):
    broken = frame.copy()
    broken.loc[rows, column] = change(broken.loc[rows, column])
    return broken


def test_beyond_p2_verdict_checks_reject_broken_results():
    record = _record()
    rule = record["variant"] == "one per round"
    alg1 = record["variant"] == "Algorithm 1"
    synthetic = record["data"].isin(SYNTHETIC)
    with pytest.raises(AssertionError, match="the rule moves F1"):
        check_no_help_on_synthetic(_shift(record, rule & synthetic, "f1", lambda v: v + 0.2))
    with pytest.raises(AssertionError, match="Algorithm 1 raises F1"):
        check_no_help_on_synthetic(_shift(record, alg1 & synthetic, "f1", lambda v: v + 0.5))
    with pytest.raises(AssertionError, match="no screening reaches"):
        check_no_help_on_synthetic(_shift(record, (record["variant"] != REFERENCE) & synthetic,
                                          "f1", lambda v: v + 0.3))
    with pytest.raises(AssertionError, match="cells with a clear gain"):
        check_no_help_on_synthetic(_shift(
            record, rule & (record["data"] == "logistic") & (record["epsilon"] == 1.0), "f1",
            lambda v: v - 0.04))  # the one clear cell of the record, made unclear
    with pytest.raises(AssertionError, match="recall"):
        check_cost(_shift(record, rule & (record["every"] == OFTEN), "recall",
                          lambda v: v + 0.5))
    with pytest.raises(AssertionError, match="true nonzeros, Algorithm 1"):
        check_no_overscreening(_shift(record, alg1, "n_screened_true_nonzero",
                                      lambda v: 0 * v), most=np.inf)
    with pytest.raises(AssertionError, match="the rule zeroes"):
        check_no_overscreening(_shift(record, rule, "n_screened_true_nonzero",
                                      lambda v: v + 5))
    often = rule & (record["every"] == OFTEN) & (record["data"] == "spambase")
    with pytest.raises(AssertionError, match="clearly raise"):
        check_helps_where_signal(_shift(record, often, "f1", lambda v: v - 0.2))
    madelon = rule & (record["every"] == OFTEN) & (record["data"] == "madelon")
    with pytest.raises(AssertionError, match="clearly raise"):
        check_helps_where_signal(_shift(record, madelon, "f1", lambda v: v + 0.3))
    with pytest.raises(AssertionError, match="not a clear cost"):
        check_cost(_shift(record, rule & (record["every"] == OFTEN), "test_accuracy",
                          lambda v: v + 0.1))
    with pytest.raises(AssertionError, match="Algorithm 1 keeps"):
        check_cost(_shift(record, alg1, "nnz", lambda v: v + 50))
    flat = _shift(record, rule & synthetic & (record["every"] == 1), "f1", lambda v: v + 0.3)
    with pytest.raises(AssertionError, match="the sweep chooses|F1 by frequency"):
        check_sweep(flat)


def test_beyond_p2_no_overscreening_on_the_built_results(results):
    """Sentence 2's comparison at the built profile's own chosen frequency and share."""
    built = _built(results)
    choice = pd.read_csv(results("beyond-p2-choice"))
    chosen = choice[choice["chosen"] == "yes"].iloc[0]
    check_no_overscreening(built, int(chosen["every"]), str(chosen["share"]), most=np.inf,
                           alg1_least=0.4)


# ---------------------------------------------------------------------------------------
# frequencies


def check_frequencies(frame, alg1_least=0.75):
    """On the synthetic design Algorithm 1 zeroes at least ``alg1_least`` of the true
    nonzeros at every frequency and budget, the rule fewer in every such cell; at eps = TOP
    on HELPED screening every OFTEN-th step has the highest mean F1 of every setting."""
    private = frame[frame["variant"] != REFERENCE].assign(
        share=lambda f: f["share"].fillna("").astype(str))
    private = private[(private["variant"] != "one per round")
                      | (private["share"] == CHOSEN["share"])]
    screened = private.assign(ratio=private["n_screened_true_nonzero"]
                              / private["n_true_nonzero"])
    means = screened.groupby(["data", "epsilon", "variant", "every"])["ratio"].mean()
    for data in SYNTHETIC:
        for (epsilon, every), alg1 in means.xs((data, "Algorithm 1"),
                                               level=["data", "variant"]).items():
            assert alg1 >= alg1_least, (
                f"{data}, eps={epsilon:g}, every {every:g}: Algorithm 1 zeroes {alg1:.0%}")
            rule = means[(data, epsilon, "one per round", every)]
            assert rule < alg1, (
                f"{data}, eps={epsilon:g}, every {every:g}: the rule zeroes {rule:.0%}, "
                f"Algorithm 1 {alg1:.0%}")
    f1 = private.groupby(["data", "epsilon", "variant", "every"], dropna=False)["f1"].mean()
    for data in HELPED:
        at_top = f1.xs((data, TOP), level=["data", "epsilon"])
        best = at_top.idxmax()
        assert best == ("one per round", OFTEN), (
            f"{data}, eps={TOP:g}: the best setting is {best}, not every {OFTEN} steps")


def test_beyond_p2_frequencies_claim_on_the_paper_record():
    check_frequencies(_record())


def test_beyond_p2_frequencies_check_rejects_broken_results():
    record = _record()
    alg1 = (record["variant"] == "Algorithm 1") & record["data"].isin(SYNTHETIC)
    with pytest.raises(AssertionError, match="Algorithm 1 zeroes"):
        check_frequencies(_shift(record, alg1 & (record["every"] == 5),
                                 "n_screened_true_nonzero", lambda v: v / 4))
    rule = (record["variant"] == "one per round") & (record["data"] == "kr-vs-kp")
    with pytest.raises(AssertionError, match="best setting"):
        check_frequencies(_shift(record, rule & (record["every"] == 5), "f1", lambda v: v + 0.5))
