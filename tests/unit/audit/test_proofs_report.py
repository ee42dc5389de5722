"""proofs_tables: the two tidy tables the proofs notebook renders."""
import pytest

from dplasso.audit.report import AUDIT_COLUMNS, PROFILE_SIZES, SENSITIVITY_COLUMNS, proofs_tables

TINY = {"search_rows": 2, "search_random": 2, "count_search_rows": 2,
        "count_search_random": 2, "scalar_trials": 2_000, "gaussian_trials": 2_000,
        "selection_trials": 2_000, "fit_trials": 200, "count_trials": 2_000,
        "threshold_trials": 200, "block_median_trials": 2_000, "noise_floor_trials": 200,
        "accuracy_count_trials": 200, "objective_perturbation_trials": 200,
        "joint_trials": 200, "screening_trials": 2_000}


@pytest.fixture(scope="module")
def tables():
    return proofs_tables(TINY, random_state=0)


def test_tables_have_the_documented_columns(tables):
    sensitivity, audit = tables
    assert list(sensitivity.columns) == SENSITIVITY_COLUMNS
    assert list(audit.columns) == AUDIT_COLUMNS
    assert set(sensitivity["neighbouring relation"]) == {"replace-one"}
    assert set(audit["verdict"]) <= {"consistent", "violation"}
    assert (audit["confidence"] == 1 - 1e-6).all()


def test_every_mechanism_appears_correct_and_broken(tables):
    _, audit = tables
    for mechanism, rows in audit.groupby("mechanism"):
        assert "correct" in set(rows["variant"]) and len(rows) >= 2, mechanism
    assert audit["mechanism"].str.contains("Sparsifier count").any()
    assert audit["mechanism"].str.contains("private FW fit").any()
    for release in ("private threshold", "block-median count", "accuracy count",
                    "noise-floor count", "L2 objective perturbation",
                    "Sparsifier joint release"):
        assert audit["mechanism"].str.startswith(release).any(), release
    assert audit["mechanism"].str.contains("private screening release").any()


def test_trial_counts_follow_the_profile(tables):
    _, audit = tables
    assert set(audit["trials"]) == {200, 2_000}


def test_profiles_and_validation():
    assert set(PROFILE_SIZES) == {"ci", "paper"}
    assert PROFILE_SIZES["paper"]["selection_trials"] > PROFILE_SIZES["ci"]["selection_trials"]
    with pytest.raises(ValueError, match="profile_sizes"):
        proofs_tables("huge")
    with pytest.raises(ValueError, match="unknown"):
        proofs_tables({"trials": 5})


def test_mutation_table_reads_a_record(tmp_path):
    import json

    from dplasso.audit.report import MUTATION_COLUMNS, mutation_table
    entry = {"id": "m", "kind": "noise scale", "description": "d", "file": "src/dplasso/x.py",
             "edits": [["a", "b"]], "killed": True, "killed_by": "tests/t.py::test",
             "stage": "targeted", "seconds": 1.0}
    path = tmp_path / "mutants.json"
    path.write_text(json.dumps({"commit": "abc", "complete": True, "mutants": [entry]}))
    table = mutation_table(path)
    assert list(table.columns) == MUTATION_COLUMNS and table["killed"].tolist() == [True]
    assert table.attrs["commit"] == "abc" and table.attrs["complete"] is True
    path.write_text(json.dumps({"commit": "abc", "mutants": []}))
    with pytest.raises(ValueError, match="holds no mutant"):
        mutation_table(path)
