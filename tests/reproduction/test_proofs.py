"""Artifacts `proofs-sensitivity`, `proofs-audit` and `proofs-mutants`: the proofs chapter's
searches, audits and mutation run.

The tables are made by ``notebooks/proofs.md`` (``dplasso.audit.proofs_tables``); these tests
check the claims the chapter makes about them against the results files.
"""
import json
import math

import pandas as pd
from scipy.special import expit

import mutants
from dplasso.audit.broken import BROKEN_VARIANTS
from dplasso.audit.report import MUTATION_RECORD

TIGHT_RATIO = expit(5.0) - 1e-9
"""Tight rows must reach sigma(5) = 0.99331 of their bound: the logistic and multinomial tight
datasets take the scores at ``W = 5 e_1``, where a row's residual is at most sigma(5), and the
sums and the squared loss attain their bound exactly (``dplasso.audit.cases.sensitivity_cases``).
The 1e-9 absorbs the float rounding of the ratio."""


FLOAT_RTOL = 1e-12
"""Relative allowance for float rounding of the searched statistic (not of the bound). A
vertex score is lam times a float64 mean of n = 40 per-row gradients, each at most G in size,
so its rounding error is at most lam * gamma_n * G with gamma_n = n u / (1 - n u) ~ 4.4e-15
(Higham, Thm 3.1; u = 2**-53): about 0.2e-12 of Delta = 2 lam G / n for the change between two
such scores. The squared-loss row, whose bound is attained exactly, can come out one ulp above
it (1.5000000000000002 against 1.5)."""


def _sensitivity(results):
    return pd.read_csv(results("proofs-sensitivity"))


def _audit(results):
    return pd.read_csv(results("proofs-audit"))


def test_proofs_sensitivity_theorem_rows_hold_and_tight_rows_come_close(results):
    """`proofs-sensitivity`: the library's declared value equals the lemma's proven bound on
    every theorem row (below it on the declared count); found <= declared for every
    theorem-backed sensitivity (up to
    ``FLOAT_RTOL``, the rounding of the computed statistic); the rows
    built to attain their bound reach at least ``TIGHT_RATIO`` of it (so a declaration of the
    bound divided by 1.01 would be refuted). Searches are deterministic given the seed: no
    false-failure probability."""
    table = _sensitivity(results)
    theorem = table[table["declared is"] == "theorem"]
    assert len(theorem) >= 5, "expected the sums, the counts and the three losses' scores"
    assert (table["neighbouring relation"] == "replace-one").all()
    over = theorem[theorem["found"] > theorem["declared"] * (1 + FLOAT_RTOL)]
    assert over.empty, f"a search exceeded a proven sensitivity:\n{over}"
    below = theorem[(theorem["declared"] - theorem["proven"]).abs() > 1e-12 * theorem["proven"]]
    assert below.empty, f"a declared sensitivity is not its lemma's bound:\n{below}"
    assert (table.loc[table["declared is"] != "theorem", "declared"]
            < table.loc[table["declared is"] != "theorem", "proven"]).all()
    assert ((table["ratio"] - table["found"] / table["declared"]).abs() < 1e-12).all()
    tight = theorem[theorem["bound attainable"]]
    assert len(tight) >= 4
    short = tight[tight["ratio"] < TIGHT_RATIO]
    assert short.empty, f"tight rows below {TIGHT_RATIO:.5f} of their bound:\n{short}"


def test_proofs_sensitivity_count_found_is_reported(results):
    """`proofs-sensitivity`: the Sparsifier count (no theorem) is reported with the change
    found and its witness; the worst-case construction of the chapter moves the library's
    count by exactly ``p - 1`` for every ``p`` tried."""
    table = _sensitivity(results)
    count = table[table["declared is"] != "theorem"]
    assert list(count["quantity"]) == ["Sparsifier count (nnz of the non-private L1-ball fit)"]
    row = count.iloc[0]
    assert row["declared is"] == "parameter (no theorem)"
    assert row["found"] >= 0 and float(row["found"]).is_integer()
    assert "witness:" in row["search"]

    construction = pd.read_csv(results("proofs-sensitivity").parent
                               / "proofs-count-construction.csv")
    assert len(construction) >= 2 and construction["fit_intercept"].nunique() == 2
    assert (construction["c(D)"] == 1).all()
    assert (construction["c(D')"] == construction["p"]).all()
    assert (construction["change"] == construction["p"] - 1).all()


def test_proofs_audit_correct_mechanisms_audit_below_their_claim(results):
    """`proofs-audit`: every correct, lemma-backed mechanism has eps_lower <= eps_claimed.

    Each lower bound exceeds the true epsilon with probability at most ALPHA = 1e-6
    (two one-sided Clopper-Pearson bounds at ALPHA/2, union bound); with the ``k`` rows
    checked here this test fails falsely with probability at most ``k * ALPHA`` (1.2e-5 for the
    12 rows of the current table)."""
    table = _audit(results)
    correct = table[(table["variant"] == "correct") & (table["claim rests on"] == "lemma")]
    families = {"Laplace", "double-geometric", "Gaussian", "report-noisy-min",
                "exponential-mechanism", "private FW fit, report-noisy-min",
                "private FW fit, exponential-mechanism", "private threshold",
                "block-median count", "accuracy count", "noise-floor count",
                "private screening release"}
    assert all(correct["mechanism"].str.startswith(f).any() for f in families), families
    assert (table["confidence"] >= 1 - 1e-6 - 1e-12).all()
    over = correct[correct["audited lower bound"] > correct["claimed eps"]]
    assert over.empty, f"correct mechanisms audited above their claim:\n{over}"
    assert (correct["verdict"] == "consistent").all()


def test_proofs_audit_every_broken_variant_is_caught(results):
    """`proofs-audit`: every deliberately broken variant is flagged (eps_lower > claimed).

    This is a power requirement, not a false-failure bound: the trial counts of the profile
    were chosen so that each variant is caught (the one-step selections need 2e6 runs)."""
    table = _audit(results)
    broken = table[table["variant"] != "correct"]
    assert set(broken["variant"]) <= set(BROKEN_VARIANTS)
    assert set(broken["variant"]) == set(BROKEN_VARIANTS), "a broken variant is never audited"
    missed = broken[~(broken["audited lower bound"] > broken["claimed eps"])]
    assert missed.empty, f"broken variants not caught:\n{missed}"
    assert (broken["verdict"] == "violation").all()


def test_proofs_audit_count_at_declared_sensitivity_matches_the_search(results):
    """`proofs-audit` with `proofs-sensitivity`: the count release calibrated to the declared
    sensitivity is a violation exactly when the search found a larger change, and the release
    calibrated to the change found is consistent on the search's witness pair (an empirical
    calibration, not a proof). Each assertion on a correct row can fail falsely with
    probability at most ALPHA = 1e-6."""
    sensitivity = _sensitivity(results)
    count = sensitivity[sensitivity["declared is"] != "theorem"].iloc[0]
    audit = _audit(results)
    rows = audit[(audit["claim rests on"] != "lemma") & (audit["variant"] == "correct")]
    at_declared = rows[rows["count sensitivity"] == count["declared"]]
    assert len(at_declared) == 1
    violated = bool(at_declared["audited lower bound"].iloc[0] > at_declared["claimed eps"].iloc[0])
    assert violated == (count["found"] > count["declared"]), (count["found"], at_declared)
    calibrated = rows[rows["count sensitivity"] == max(1, math.ceil(count["found"]))]
    assert len(calibrated) == 1
    assert calibrated["audited lower bound"].iloc[0] <= calibrated["claimed eps"].iloc[0]


def test_proofs_issue_10_mechanisms_are_searched_and_audited(results):
    """`proofs-sensitivity` and `proofs-audit` for the private threshold and the three private
    Sparsifier counts: each utility is a theorem-backed row whose search reaches its declared
    sensitivity 1 exactly (a label flip moves a count by 1), each release has a correct and a
    broken row, and the noise floor's claim is 0 extra epsilon (post-processing). Which rows
    pass or are caught is checked by the two tests above (false-failure rate ALPHA per
    correct row)."""
    table = _sensitivity(results)
    for prefix in ("threshold utility u(g), binary", "threshold utility u(c, g), 3 classes",
                   "block-median rank utility", "accuracy-count utility u(k), binary",
                   "accuracy-count utility u(k), 3 classes"):
        row = table[table["quantity"].str.startswith(prefix)]
        assert len(row) == 1, prefix
        assert row["declared is"].iloc[0] == "theorem" and row["declared"].iloc[0] == 1
        assert row["found"].iloc[0] == 1, row
    audit = _audit(results)
    for prefix, broken in (("private threshold", "halved-noise"),
                           ("block-median count", "count-wrong-epsilon"),
                           ("accuracy count", "count-wrong-epsilon"),
                           ("noise-floor count", "reads-data")):
        rows = audit[audit["mechanism"].str.startswith(prefix)]
        assert set(rows["variant"]) == {"correct", broken}, prefix
        assert (rows["claim rests on"] == "lemma").all()
    floor = audit[audit["mechanism"].str.startswith("noise-floor count")]
    assert (floor["claimed eps"] == 0).all()


def test_proofs_mutants_every_mutant_is_killed(results):
    """`proofs-mutants`: the page's table (from the committed record of ``tests/mutants.py``)
    lists every mutant of the current list, with the same edits (the record is not stale),
    from a complete run; each one is killed by a test that ``make test`` runs. Deterministic
    given the record: no false-failure probability."""
    table = pd.read_csv(results("proofs-mutants"))
    record = json.loads(MUTATION_RECORD.read_text())
    assert record["complete"] and record["make_test"] == " ".join(mutants.MAKE_TEST)
    listed = {m.id: [list(edit) for edit in m.edits] for m in mutants.MUTANTS}
    assert {e["id"]: e["edits"] for e in record["mutants"]} == listed
    assert list(table["mutant"]) == [e["id"] for e in record["mutants"]]
    survivors = table[~table["killed"].astype(bool)]
    assert survivors.empty, f"mutants no test kills:\n{survivors}"
    assert table["killed by"].str.startswith("tests/").all()


def test_proofs_l2_reference_is_searched_and_audited(results):
    """`proofs-sensitivity` and `proofs-audit` for the L2 reference (issue 21): both bounds of
    ``lem-objective-perturbation`` are theorem rows that hold (the log-Jacobian nearly
    attained), and its release has a correct row below its claim and a caught
    ``jacobian-ignored`` row."""
    table = _sensitivity(results)
    for prefix, tight in (("objective perturbation: stationarity noise", False),
                          ("objective perturbation: log-Jacobian", True)):
        row = table[table["quantity"].str.startswith(prefix)]
        assert len(row) == 1, prefix
        assert row["declared is"].iloc[0] == "theorem"
        assert row["found"].iloc[0] <= row["declared"].iloc[0]
        assert (row["ratio"].iloc[0] >= 0.9) or not tight, row
    audit = _audit(results)
    rows = audit[audit["mechanism"].str.startswith("L2 objective perturbation")]
    assert set(rows["variant"]) == {"correct", "jacobian-ignored"}
    correct = rows[rows["variant"] == "correct"].iloc[0]
    broken = rows[rows["variant"] == "jacobian-ignored"].iloc[0]
    assert correct["audited lower bound"] <= correct["claimed eps"]
    assert broken["audited lower bound"] > broken["claimed eps"]


def test_proofs_joint_release_is_searched_and_audited(results):
    """`proofs-sensitivity` and `proofs-audit` for the default Sparsifier's joint release
    (issue 21): both utility rows reach their declared sensitivity 1 exactly, and the release
    has a correct row below its claim and a caught ``count-wrong-epsilon`` row."""
    table = _sensitivity(results)
    for prefix in ("joint release utility u(a), binary", "joint release utility u(a), 3 classes"):
        row = table[table["quantity"].str.startswith(prefix)]
        assert len(row) == 1, prefix
        assert row["declared is"].iloc[0] == "theorem" and row["declared"].iloc[0] == 1
        assert row["found"].iloc[0] == 1, row
    audit = _audit(results)
    rows = audit[audit["mechanism"].str.startswith("Sparsifier joint release")].set_index(
        "variant")
    assert set(rows.index) == {"correct", "count-wrong-epsilon"}
    assert rows.loc["correct", "audited lower bound"] <= rows.loc["correct", "claimed eps"]
    assert (rows.loc["count-wrong-epsilon", "audited lower bound"]
            > rows.loc["count-wrong-epsilon", "claimed eps"])
