"""The "Beyond P1" experiment functions: layout, seeds, references, the default variant."""
import pandas as pd
import pytest

from dplasso.estimators import SparsifierClassifier
from dplasso.experiments.beyond import (
    DEFAULT_VARIANT,
    METHOD_COUNTS,
    METHODS,
    REFERENCES,
    THRESHOLD_TREATMENTS,
    beyond_p1_experiment,
    ceiling_experiment,
    count_share_experiment,
    load_beyond_data,
    threshold_share_experiment,
)
from dplasso.experiments.beyond_display import default_summary, design_table, per_dataset

TINY = dict(n=600, p=12, k=3, coef_value=5.0)


@pytest.fixture(scope="module")
def results():
    return beyond_p1_experiment(["synthetic"], epsilons=[2.0], n_trials=3, n_splits=2,
                                synthetic=TINY)


def test_every_method_and_treatment_runs_each_trial_once(results):
    private = results[results["kind"] == "private"]
    cells = private.groupby(["method", "threshold"])["trial"].apply(sorted)
    assert set(cells.index) == {(m, t) for m in METHODS for t in THRESHOLD_TREATMENTS}
    assert all(trials == [0, 1, 2] for trials in cells)
    references = results[results["kind"] == "reference"]
    assert sorted(references.groupby("split")["method"].apply(sorted).iloc[0]) == sorted(REFERENCES)
    assert private["accuracy"].between(0, 1).all() and private["f1"].notna().all()
    assert (private.loc[private["method"] == "private LASSO", "target"].isna()).all()


def test_results_do_not_depend_on_other_budgets_or_reruns(results):
    again = beyond_p1_experiment(["synthetic"], epsilons=[0.5, 2.0], n_trials=3, n_splits=2,
                                 synthetic=TINY)
    same = again[(again["kind"] == "reference") | (again["epsilon"] == 2.0)]
    pd.testing.assert_frame_equal(same.reset_index(drop=True), results.reset_index(drop=True))


def test_the_default_variant_is_the_default_estimator():
    method, threshold = DEFAULT_VARIANT
    assert METHOD_COUNTS[method] == SparsifierClassifier().count
    assert threshold == SparsifierClassifier().threshold


def test_summaries_read_the_real_datasets_only(results):
    assert default_summary(results, 2.0)["datasets"] == 0  # the synthetic set is not "real"
    assert per_dataset(results)["trials"].max() == 3
    assert len(design_table(results, 2.0)) == len(METHODS) * len(THRESHOLD_TREATMENTS)


def test_ceiling_compares_both_maps_on_the_same_splits():
    ceiling = ceiling_experiment([15], n_splits=2)
    assert set(ceiling["scaling"]) == {"max-abs", "standard"}
    majority = ceiling.groupby("split")["majority"].nunique()
    assert (majority == 1).all()
    ours = ceiling[ceiling["method"] == "non-private (ours)"]
    assert (ours["gap"] >= 0).all() and (ours["count"] >= 1).all()


def test_threshold_share_rows():
    share = threshold_share_experiment([0.05, 0.2], epsilons=[2.0], n_trials=2, synthetic=TINY)
    assert set(share["fraction"]) == {0.05, 0.2}
    assert set(share["method"]) == {DEFAULT_VARIANT[0], "private LASSO"}
    assert len(share) == 2 * 2 * 2
    counts = count_share_experiment([0.05, 0.2], epsilons=[2.0], n_trials=2, synthetic=TINY)
    assert counts[["fraction", "method"]].equals(share[["fraction", "method"]])
    default = counts["method"] == DEFAULT_VARIANT[0]
    assert not counts.loc[default, "nnz"].equals(share.loc[default, "nnz"])  # its own sweep


@pytest.mark.parametrize(("dataset", "scaling", "message"), [
    (5, "standard", "binary OpenML id"), (15, "minmax", "scaling must be one of")])
def test_bad_datasets_and_maps_are_refused(dataset, scaling, message):
    with pytest.raises(ValueError, match=message):
        load_beyond_data(dataset, scaling=scaling)


def test_unknown_split_overrides_are_refused():
    with pytest.raises(ValueError, match="not in datasets"):
        beyond_p1_experiment(["synthetic"], epsilons=[1.0], splits_by_dataset={15: 2},
                             synthetic=TINY)

