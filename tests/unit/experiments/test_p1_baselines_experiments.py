"""The p1-baselines and p1-count-sensitivity experiment functions on tiny settings."""
import json
from unittest import mock

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dplasso.data.catalog import load_dataset
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators import SparsifierRun, lasso_support_size, sparsify_runs, sparsify_trials
from dplasso.estimators.private_frank_wolfe import talwar_n_iter
from dplasso.experiments import p1_baselines
from dplasso.experiments.conventions import authors_rows
from dplasso.experiments.p1_display import baselines_summary_table, plot_baselines_summary
from dplasso.baselines.estimators import ObjectivePerturbationClassifier
from dplasso.experiments.p1_count_sensitivity import count_sensitivity_experiment
from dplasso.experiments.p1_baselines import (
    L2_REFERENCE,
    METHODS,
    PRIVATE_METHODS,
    SYNTHETIC,
    baselines_experiment,
    mean_sd_table,
    paired_comparison,
    support_metrics,
)

TINY = {"n": 500, "p": 12, "k": 3}
BREAST_W = 15


@pytest.fixture(scope="module")
def tiny_results():
    return baselines_experiment([], [1.0, 5.0], 2, synthetic=TINY, seed=3)


def test_support_metrics():
    w_true = np.array([1.0, -2.0, 0.0, 0.0, 3.0])
    assert support_metrics(w_true, w_true) == (1.0, 1.0, 1.0)
    assert support_metrics(np.zeros(5), w_true) == (0.0, 0.0, 0.0)
    precision, recall, f1 = support_metrics(np.array([0.5, 0.0, 0.1, 0.0, 0.0]), w_true)
    assert (precision, recall) == (0.5, 1 / 3)
    assert f1 == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))


def test_one_row_per_trial_method_and_epsilon(tiny_results):
    r = tiny_results
    private = r[r["epsilon"].notna()]
    assert set(r["method"]) == set(METHODS)
    assert len(private) == 2 * 2 * (len(PRIVATE_METHODS) + 1)  # and the L2 reference
    assert r[r["method"] == "non-private LASSO"].shape[0] == 2
    assert (private.groupby(["trial", "epsilon", "method"]).size() == 1).all()
    np.testing.assert_allclose(private["epsilon_spent"], private["epsilon"], rtol=1e-12)
    np.testing.assert_allclose(private["delta"], 1.0 / private["n_train"] ** 2)
    assert (private["delta_spent"] <= private["delta"] * (1 + 1e-12)).all()
    assert (r["n_train"] == 400).all() and (r["n_test"] == 100).all()
    assert r[["precision", "recall", "f1"]].notna().all().all()
    assert (r["dataset"] == SYNTHETIC).all()
    targets = private[private["method"].isin(["Sparsifier", "two-stage", "DP-IGHT"])]
    assert (targets["nnz"] <= targets["n_nonzero_target"]).all()


def test_the_l2_row_is_the_l2_classifier_on_the_split_with_its_own_noise(tiny_results):
    l2 = tiny_results[tiny_results["method"] == L2_REFERENCE].set_index(["trial", "epsilon"])
    data = sparse_logistic_synthetic(**TINY, random_state=np.random.default_rng([3, 0, 0, 1]))
    X_train, X_test, y_train, y_test = p1_baselines._split(data.X, data.y,
                                                           np.random.SeedSequence([3, 0, 0]))
    seed = np.random.SeedSequence([3, 0, 0, round(1e6 * 5.0)]).spawn(len(PRIVATE_METHODS) + 1)
    model = ObjectivePerturbationClassifier(epsilon=5.0, classes=[0, 1],
                                            random_state=np.random.default_rng(seed[-1]))
    model.fit(X_train, y_train)
    assert l2.loc[(0, 5.0), "accuracy"] == model.score(X_test, y_test)
    assert (l2["nnz"] == TINY["p"]).all()
    assert l2.loc[(0, 5.0), "epsilon_spent"] == model.privacy_guarantee_.epsilon


@pytest.mark.parametrize("threshold", ["none", "private"])
def test_the_sparsifier_row_is_the_library_sparsifier_with_its_own_noise(threshold):
    """The Sparsifier's row is ``sparsify_trials`` on the split (P1's count at its share and
    sensitivity, the threshold's share first when released), although it runs in one engine
    call with private Frank-Wolfe and takes the split's count as given."""
    results = baselines_experiment([], [1.0, 5.0], 1, synthetic=TINY, seed=3,
                                   threshold=threshold)
    rows = results[results["method"] == "Sparsifier"].set_index("epsilon")
    data = sparse_logistic_synthetic(**TINY, random_state=np.random.default_rng([3, 0, 0, 1]))
    X_train, X_test, y_train, y_test = p1_baselines._split(data.X, data.y,
                                                           np.random.SeedSequence([3, 0, 0]))
    for epsilon in (1.0, 5.0):
        seed = np.random.SeedSequence([3, 0, 0, round(1e6 * epsilon)]).spawn(
            len(PRIVATE_METHODS) + 1)[PRIVATE_METHODS.index("Sparsifier")]
        fit = sparsify_trials(X_train, y_train, lam=10.0, n_iter="auto", epsilon=epsilon,
                              delta=1 / X_train.shape[0] ** 2, count_fraction=0.25,
                              count_sensitivity=1, threshold=threshold,
                              random_state=np.random.default_rng(seed))
        margin = X_test @ fit.W[:, 0] + fit.intercept[0]
        assert rows.loc[epsilon, "accuracy"] == np.mean((margin > 0) == (y_test == 1))
        assert rows.loc[epsilon, "n_nonzero_target"] == fit.n_nonzero_target[0]
        assert rows.loc[epsilon, "nnz"] == np.count_nonzero(fit.W)
        assert rows.loc[epsilon, "epsilon_spent"] == fit.guarantee.epsilon


def test_the_count_is_the_nonprivate_row_and_the_sparsifiers_count(tiny_results):
    r = tiny_results
    nonprivate = r[r["method"] == "non-private LASSO"].set_index("trial")
    np.testing.assert_array_equal(nonprivate["nnz"], nonprivate["count"])
    data = sparse_logistic_synthetic(**TINY, random_state=np.random.default_rng([3, 0, 0, 1]))
    X_train, _, y_train, _ = p1_baselines._split(data.X, data.y,
                                                 np.random.SeedSequence([3, 0, 0]))
    assert nonprivate.loc[0, "count"] == lasso_support_size(X_train, y_train, lam=10.0)


def test_results_are_reproducible_and_independent_of_the_grid(tiny_results):
    only_one = baselines_experiment([], [5.0], 2, synthetic=TINY, seed=3)
    again = tiny_results[tiny_results["epsilon"].isin([5.0]) | tiny_results["epsilon"].isna()]
    columns = ["trial", "method", "accuracy", "nnz", "n_nonzero_target"]
    pd.testing.assert_frame_equal(only_one[columns].reset_index(drop=True),
                                  again[columns].reset_index(drop=True))
    other_seed = baselines_experiment([], [5.0], 2, synthetic=TINY, seed=4)
    assert not np.array_equal(other_seed["accuracy"], only_one["accuracy"])


def test_real_data_splits_are_stratified():
    r = baselines_experiment([BREAST_W], [2.0], 1, seed=0)
    data = load_dataset(BREAST_W)
    assert r["n_train"].iloc[0] + r["n_test"].iloc[0] == data.n_samples
    assert r["precision"].isna().all() and r["dataset"].iloc[0] == "breast-w"
    X_train, X_test, y_train, y_test = p1_baselines._split(
        data.X, data.y, np.random.SeedSequence([0, BREAST_W, 0]))
    assert abs(y_train.mean() - y_test.mean()) < 1.0 / len(y_test) + 1.0 / len(y_train)


def test_cache_reuses_a_finished_dataset(tmp_path):
    first = baselines_experiment([], [5.0], 1, synthetic=TINY, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("p1-baselines-0-*.pkl"))) == 1
    with mock.patch.object(p1_baselines, "_trial_rows") as rerun:
        second = baselines_experiment([], [5.0], 1, synthetic=TINY, cache_dir=tmp_path)
    rerun.assert_not_called()
    pd.testing.assert_frame_equal(first, second, check_dtype=False)
    other = baselines_experiment([], [5.0], 1, synthetic=TINY, seed=1, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("p1-baselines-0-*.pkl"))) == 2
    assert not other.equals(first)


def test_mean_sd_table_repeats_the_nonprivate_row(tiny_results):
    table = mean_sd_table(tiny_results, "accuracy")
    assert list(table.columns) == ["dataset", "method", "tuning", "ε = 1", "ε = 5"]
    assert list(table["method"]) == list(METHODS)
    nonprivate = table[table["method"] == "non-private LASSO"].iloc[0]
    assert nonprivate["ε = 1"] == nonprivate["ε = 5"]
    values = tiny_results[tiny_results["method"] == "non-private LASSO"]["accuracy"]
    assert nonprivate["ε = 1"] == f"{values.mean():.2f} ± {values.std(ddof=1):.2f}"


def test_summary_table_is_the_mean_over_datasets_of_the_per_dataset_means(tiny_results):
    two = pd.concat([tiny_results, tiny_results.assign(
        dataset="copy", accuracy=tiny_results["accuracy"] / 2)], ignore_index=True)
    table = baselines_summary_table(two, "accuracy", digits=6)
    assert list(table.columns) == ["method", "datasets", "ε = 1", "ε = 5"]
    assert list(table["method"]) == list(METHODS) and (table["datasets"] == 2).all()
    runs = tiny_results[(tiny_results["method"] == "Sparsifier") & (tiny_results["epsilon"] == 5)]
    expected = 0.75 * runs["accuracy"].mean()  # (mean + mean / 2) / 2
    assert table.loc[table["method"] == "Sparsifier", "ε = 5"].iloc[0] == pytest.approx(
        expected, abs=1e-6)
    figure = plot_baselines_summary(table, baselines_summary_table(two, "nnz"))
    assert len(figure.axes) == 2
    plt.close(figure)


def test_paired_comparison_verdicts():
    rows = []
    for trial, (ours, better, tie) in enumerate([(0.9, 0.5, 0.8), (0.8, 0.6, 0.95),
                                                 (0.85, 0.55, 0.7)]):
        for method, value in (("Sparsifier", ours), ("DP-IGHT", better), ("two-stage", tie)):
            rows.append({"dataset": "d", "epsilon": 1.0, "trial": trial, "method": method,
                         "accuracy": value})
    table = paired_comparison(pd.DataFrame(rows), others=("DP-IGHT", "two-stage"))
    verdicts = dict(zip(table["other"], table["verdict"]))
    assert verdicts == {"DP-IGHT": "better", "two-stage": "tie"}
    margin = table.set_index("other").loc["DP-IGHT", "margin"]
    assert margin == pytest.approx(2.0 * np.std([0.4, 0.2, 0.3], ddof=1) / np.sqrt(3))
    flipped = paired_comparison(pd.DataFrame(rows), method="DP-IGHT", others=("Sparsifier",))
    assert flipped["verdict"].iloc[0] == "worse"


def test_count_sensitivity_rows():
    table = count_sensitivity_experiment([BREAST_W], n_rows=1, n_random=1, ascent_starts=0,
                                         seed=0)
    row = table.iloc[0]
    data = load_dataset(BREAST_W)
    assert row["count"] == lasso_support_size(data.X, data.y, lam=10.0)
    assert row["found"] == abs(row["neighbour_count"] - row["count"])
    X, y = data.X.copy(), data.y.copy()
    X[row["witness_index"]] = json.loads(row["witness_row"])
    y[row["witness_index"]] = row["witness_label"]
    assert lasso_support_size(X, y, lam=10.0) == row["neighbour_count"]
    assert row["exceeded"] == (row["found"] > row["declared"])
    assert row["evaluations"] == 1 + 1 * (1 + 8 + 8 + 1)  # base, random, aligned, dup, flip
    assert row["sparsifier_epsilon_factor_found"] == pytest.approx(
        0.75 + 0.25 * max(row["found"], 1.0))
    assert row["sparsifier_epsilon_factor_proven"] == pytest.approx(0.75 + 0.25 * data.n_features)


def test_the_threshold_treatment_is_the_same_for_every_method():
    """threshold="private": every private method releases an offset at a tenth of the budget
    (its total stays epsilon), and the references are unchanged."""
    plain = baselines_experiment([15], [2.0], 1)
    treated = baselines_experiment([15], [2.0], 1, threshold="private")
    references = ["non-private LASSO", "sklearn L1-LR", "majority"]
    keep = ["method", "accuracy", "nnz"]
    pd.testing.assert_frame_equal(plain[plain["method"].isin(references)][keep],
                                  treated[treated["method"].isin(references)][keep])
    private = treated[treated["method"].isin(PRIVATE_METHODS)]
    assert np.allclose(private["epsilon_spent"], 2.0, rtol=1e-9)
    assert (private["epsilon_spent"] <= 2.0 * (1 + 1e-15)).all()
    assert (private["accuracy"].to_numpy() != plain[plain["method"].isin(PRIVATE_METHODS)][
        "accuracy"].to_numpy()).any()


def test_authors_conventions_run_the_sparsifier_as_the_library_does_under_them():
    """Under the authors' conventions the Sparsifier's row is ``sparsify_trials`` on the
    authors' map of the split (radius 1, no intercept, half the budget on the count, Talwar
    et al.'s scale and T), and its ledger says what that spends under replace-one; the
    methods at proven calibrations spend at most their budget."""
    epsilon = 2.0
    results = baselines_experiment([BREAST_W], [epsilon], 1, seed=0, conventions="authors")
    data = load_dataset(BREAST_W)

    def mapped_on(train):
        return authors_rows(load_dataset(BREAST_W, "standard", fit_rows=train).X, train)

    X_train, X_test, y_train, y_test = p1_baselines._split(
        data.X, data.y, np.random.SeedSequence([0, BREAST_W, 0]), mapped_on)
    assert abs(X_train).sum(axis=1).max() == pytest.approx(1.0)
    assert abs(X_test).max() <= 1.0
    seed = np.random.SeedSequence([0, BREAST_W, 0, round(1e6 * epsilon)]).spawn(
        len(PRIVATE_METHODS) + 1)[PRIVATE_METHODS.index("Sparsifier")]
    n = X_train.shape[0]
    run = SparsifierRun(epsilon, 1, np.random.default_rng(seed),
                        talwar_n_iter(1.0, n, epsilon / 2), 1 / n**2, count="lasso-support",
                        count_fraction=0.5, count_sensitivity=1, count_noise="geometric")
    fit, = sparsify_runs(X_train, y_train, [run], lam=1.0, fit_intercept=False,
                         calibration="talwar")
    row = results[results["method"] == "Sparsifier"].iloc[0]
    assert row["accuracy"] == np.mean(((X_test @ fit.W[:, 0]) > 0) == (y_test == 1))
    assert row["epsilon_spent"] == fit.guarantee.epsilon > epsilon
    proven = results[results["method"].isin(["two-stage", "private ADMM", "DP-IGHT"])]
    assert (proven["epsilon_spent"] <= epsilon * (1 + 1e-12)).all()
    nonprivate = results[results["method"] == "non-private LASSO"].iloc[0]
    assert nonprivate["count"] == lasso_support_size(X_train, y_train, lam=1.0,
                                                     fit_intercept=False)


def test_conventions_are_checked_before_any_fit():
    with pytest.raises(ValueError, match="conventions must be one of"):
        baselines_experiment([BREAST_W], [1.0], 1, conventions="theirs")
    with pytest.raises(ValueError, match="synthetic must be None"):
        baselines_experiment([], [1.0], 1, synthetic=TINY, conventions="authors")
