"""Unit tests of the P1 experiment functions (``dplasso.experiments.p1``) on tiny problems.

(File name: ``test_p1.py`` would clash with ``tests/reproduction/test_p1.py``; the test
folders are not packages.)
"""
import functools
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score

import dplasso.experiments.p1 as p1
from dplasso.baselines.estimators import ObjectivePerturbationClassifier
from dplasso.data import sparse_logistic_synthetic
from dplasso.estimators import auto_n_iter, lasso_support_size, sparsify_trials
from dplasso.experiments.p1 import (
    P1_COUNT_SENSITIVITY,
    evaluate_weights,
    load_p1_data,
    nonprivate_optimum,
    private_lasso_experiment,
    stratified_splits,
)
from dplasso.experiments.inputs import noise_rng, split_seed
from dplasso.experiments.p1_count_noise import (
    count_noise_experiment,
    count_noise_sd,
    count_release_error,
)
from dplasso.experiments.p1_rate import fit_rate_slope, rate_experiment
from dplasso.experiments.p1_display import (
    count_noise_table,
    mean_sd,
    nonprivate_table,
    paired_differences,
    plot_count_noise,
    plot_dense,
    plot_rate,
    plot_sparsity_summary,
    sparsity_by_epsilon,
    private_table,
    rate_table,
)

TINY = dict(n=400, p=12, k=3, coef_value=5.0)
RUN = dict(methods=("random-init", "zero-init", "sparsifier"), epsilons=[1.0, 4.0], n_trials=3,
           synthetic=TINY, seed=0)


@pytest.fixture(scope="module")
def fits():
    return private_lasso_experiment(["synthetic"], **RUN)


def _multiclass(n=150, p=6, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, p))
    y = np.argmax(X[:, :n_classes] + 0.3 * rng.standard_normal((n, n_classes)), axis=1)
    return X, y


# ---------------------------------------------------------------------------------------
# data, splits, reference, evaluation


def test_load_p1_data_synthetic_and_catalogue():
    data = load_p1_data("synthetic", synthetic=TINY, seed=3)
    reference = sparse_logistic_synthetic(**TINY, random_state=3)
    np.testing.assert_array_equal(data.X, reference.X)
    assert (data.name, data.code, data.n_classes) == ("synthetic", 0, 2)
    assert np.count_nonzero(data.w_true) == 3
    wdbc = load_p1_data(1510)
    assert (wdbc.name, wdbc.code, wdbc.n_classes, wdbc.w_true) == ("wdbc", 1510, 2, None)


def test_load_p1_data_takes_the_label_set_from_the_catalogue(monkeypatch):
    """The number of classes is the catalogue's (public); data that disagree are refused."""
    import dataclasses

    import dplasso.experiments.p1 as p1

    honest = p1.dataset_info
    monkeypatch.setattr(p1, "dataset_info",
                        lambda data_id: dataclasses.replace(honest(data_id), n_classes=3))
    with pytest.raises(ValueError, match="OpenML 1510 has 2 classes; its metadata declares 3"):
        load_p1_data(1510)


def test_load_p1_data_reads_any_openml_id_and_its_label_set_from_the_metadata(monkeypatch):
    """credit-approval (not in the catalogue): the target's two declared values; a dataset
    with more labels than its metadata declares is refused."""
    import dataclasses

    import dplasso.experiments.p1 as p1

    data = load_p1_data(29)
    assert (data.name, data.code, data.n_classes, data.X.shape) == ("credit-approval", 29, 2,
                                                                   (690, 47))
    honest = p1.dataset_info
    monkeypatch.setattr(p1, "dataset_info",
                        lambda data_id: dataclasses.replace(honest(data_id), n_classes=1))
    with pytest.raises(ValueError, match="OpenML 29 has 2 classes; its metadata declares 1"):
        load_p1_data(29)


@pytest.mark.parametrize("bad", ["iris", 0, -3, True, 1.5])
def test_load_p1_data_rejects_unknown_datasets(bad):
    with pytest.raises(ValueError, match="dataset must be"):
        load_p1_data(bad)


def test_load_p1_data_names_the_seed_for_an_id_it_does_not_hold():
    with pytest.raises(FileNotFoundError, match="999999 is not in the offline seed"):
        load_p1_data(999999)


def test_load_p1_data_rejects_unknown_synthetic_keys():
    with pytest.raises(ValueError, match="unknown"):
        load_p1_data("synthetic", synthetic={"rows": 10})


def test_stratified_splits_are_80_20_disjoint_stratified_and_reproducible():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    splits = stratified_splits(y, 4, random_state=7)
    assert len(splits) == 4
    for train, test in splits:
        assert (train.size, test.size) == (80, 20)
        assert np.intersect1d(train, test).size == 0
        np.testing.assert_array_equal(np.bincount(y[test]), [10, 6, 4])
    again = stratified_splits(y, 4, random_state=7)
    for (a, b), (c, d) in zip(splits, again):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    assert not np.array_equal(splits[0][1], splits[1][1])


@pytest.mark.parametrize("n_classes", [2, 3])
def test_nonprivate_count_is_lasso_support_size(n_classes):
    if n_classes == 2:
        data = sparse_logistic_synthetic(**TINY, random_state=1)
        X, y = data.X, data.y
    else:
        X, y = _multiclass()
    fit = nonprivate_optimum(X, y, lam=3.0, n_classes=n_classes)
    assert fit.count == lasso_support_size(X, y, lam=3.0, n_classes=n_classes)
    assert fit.converged and 0 < fit.count
    assert fit.W.shape == ((X.shape[1], 1) if n_classes == 2 else (X.shape[1], n_classes, 1))
    assert np.abs(fit.W).sum() + np.abs(fit.intercept).sum() <= 3.0 + 1e-9


def test_evaluate_weights_binary_matches_sklearn_metrics():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(60, 5))
    y = (X[:, 0] + 0.5 * rng.standard_normal(60) > 0).astype(int)
    W = rng.standard_normal((5, 3))
    W[2, 1] = 0.0
    W[:, 2] = 0.0  # an all-zero model: every score ties, AUROC 1/2
    intercept = rng.standard_normal(3)
    out = evaluate_weights(W, intercept, X, y)
    for k in range(3):
        scores = X @ W[:, k] + intercept[k]
        assert out["accuracy"][k] == pytest.approx(np.mean((scores > 0) == (y == 1)))
        assert out["auroc"][k] == pytest.approx(roc_auc_score(y, scores))
    np.testing.assert_array_equal(out["nnz"], [5, 4, 0])
    sparse = evaluate_weights(W, intercept, sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse["auroc"], out["auroc"])


def test_evaluate_weights_multiclass_uses_argmax():
    X, y = _multiclass(n=50)
    rng = np.random.default_rng(1)
    W = rng.standard_normal((6, 3, 2))
    intercept = rng.standard_normal((3, 2))
    out = evaluate_weights(W, intercept, X, y)
    for k in range(2):
        predicted = np.argmax(X @ W[:, :, k] + intercept[:, k], axis=1)
        assert out["accuracy"][k] == pytest.approx(np.mean(predicted == y))
    assert np.isnan(out["auroc"]).all()
    np.testing.assert_array_equal(out["nnz"], [18, 18])


# ---------------------------------------------------------------------------------------
# private_lasso_experiment


def test_private_lasso_experiment_rows_and_columns(fits):
    assert list(fits.columns) == p1._FIT_COLUMNS
    reference = fits[fits["method"] == "non-private"]
    assert len(reference) == 3 and reference["epsilon"].isna().all()
    private = fits[fits["method"] != "non-private"]
    assert len(private) == 3 * 2 * 3
    for (_, epsilon), part in private.groupby(["method", "epsilon"]):
        assert sorted(part["trial"]) == [0, 1, 2]
        assert sorted(part["split"]) == [0, 1, 2]  # a fresh split per trial
    assert (fits["n_train"] + fits["n_test"] == TINY["n"]).all()
    assert (fits["n_test"] == TINY["n"] // 5).all()
    assert (fits["true_support"] == TINY["k"]).all()


def test_private_lasso_experiment_methods_behave_as_defined(fits):
    private = fits[fits["method"] != "non-private"]
    random_start = private[private["method"] == "random-init"]
    assert (random_start["nnz"] == random_start["n_coef"]).all()
    zero = private[private["method"] == "zero-init"]
    assert (zero["nnz"] <= zero["n_iter"]).all()
    assert (zero["fw_nnz"] == zero["nnz"]).all()
    sparsifier = private[private["method"] == "sparsifier"]
    assert (sparsifier["nnz"] == np.minimum(sparsifier["target"], sparsifier["fw_nnz"])).all()
    assert (sparsifier["epsilon_count"] == 0.25 * sparsifier["epsilon"]).all()
    np.testing.assert_allclose(sparsifier["epsilon_count"] + sparsifier["epsilon_fw"],
                               sparsifier["epsilon"])
    n_train = int(fits["n_train"].iloc[0])
    for _, row in sparsifier.iterrows():
        assert row["n_iter"] == auto_n_iter(10.0, n_train, row["epsilon_fw"], 1 / n_train**2,
                                            TINY["p"] + 1)
    # every private row carries the count and certificate of its split's non-private solve
    reference = fits[fits["method"] == "non-private"].set_index("split")
    for _, row in private.iterrows():
        assert row["count"] == reference.loc[row["split"], "nnz"]
        assert row["count_converged"] == reference.loc[row["split"], "count_converged"]
    assert ((fits["accuracy"] >= 0) & (fits["accuracy"] <= 1)).all()
    assert ((fits["nnz_on_support"] <= fits["nnz"])
            & (fits["nnz_on_support"] <= TINY["k"])).all()


def test_private_lasso_experiment_is_deterministic_and_seeded(fits):
    pd.testing.assert_frame_equal(private_lasso_experiment(["synthetic"], **RUN), fits)
    other = private_lasso_experiment(["synthetic"], **{**RUN, "seed": 1})
    assert not np.array_equal(other["accuracy"].to_numpy(), fits["accuracy"].to_numpy())


def test_private_lasso_experiment_results_do_not_depend_on_other_budgets(fits):
    alone = private_lasso_experiment(["synthetic"], **{**RUN, "epsilons": [4.0]})
    both = fits[(fits["epsilon"] == 4.0) | fits["epsilon"].isna()]
    pd.testing.assert_frame_equal(alone.reset_index(drop=True), both.reset_index(drop=True))


def test_trials_share_splits_when_asked():
    out = private_lasso_experiment(["synthetic"], **{**RUN, "epsilons": [4.0], "n_trials": 4},
                                   splits_by_dataset={"synthetic": 2})
    private = out[out["method"] == "zero-init"]
    np.testing.assert_array_equal(private.sort_values("trial")["split"], [0, 1, 0, 1])
    assert len(out[out["method"] == "non-private"]) == 2


def test_splits_by_dataset_accepts_ids_as_strings():
    # papermill passes the keys of a dict parameter as strings
    out = private_lasso_experiment([1510], methods=("zero-init",), epsilons=[5.0], n_trials=2,
                                   splits_by_dataset={"1510": 1})
    assert len(out[out["method"] == "non-private"]) == 1
    assert (out["split"] == 0).all() and out["dataset"].eq("wdbc").all()


def test_checkpoints_resume_an_interrupted_run(tmp_path, monkeypatch, fits):
    calls = []
    original = p1._private_rows

    @functools.wraps(original)  # stands in for p1's unit function (its module keys the cache)
    def interrupted(data, split, indices, reference, settings):
        calls.append(split)
        if split == 1:
            raise KeyboardInterrupt  # the run stops after the first split's budgets
        return original(data, split, indices, reference, settings)

    monkeypatch.setattr(p1, "_private_rows", interrupted)
    with pytest.raises(KeyboardInterrupt):
        private_lasso_experiment(["synthetic"], **RUN, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("p1-private-*.pkl"))) == 1
    assert len(list(tmp_path.glob("p1-nonprivate-*.pkl"))) == 3
    assert not list(tmp_path.glob(".*tmp"))

    monkeypatch.setattr(p1, "_private_rows", original)
    resumed = private_lasso_experiment(["synthetic"], **RUN, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(resumed, fits, check_dtype=False)

    def fail(*args, **kwargs):
        raise AssertionError("a finished unit was recomputed")

    monkeypatch.setattr(p1, "_private_rows", functools.wraps(original)(fail))
    monkeypatch.setattr(p1, "nonprivate_optimum", fail)
    pd.testing.assert_frame_equal(
        private_lasso_experiment(["synthetic"], **RUN, cache_dir=tmp_path), fits,
        check_dtype=False)
    changed = {**RUN, "count_fraction": 0.5}
    with pytest.raises(AssertionError, match="recomputed"):
        private_lasso_experiment(["synthetic"], **changed, cache_dir=tmp_path)


@pytest.mark.parametrize("bad, match", [
    (dict(methods=("exact",)), "methods"),
    (dict(epsilons=[0.0]), "epsilons"),
    (dict(epsilons=[1.0, 1.0]), "distinct"),
    (dict(n_trials=0), "n_trials"),
    (dict(splits_by_dataset={44: 2}), "splits_by_dataset"),
    (dict(count_noise="gaussian"), "count_noise"),
])
def test_private_lasso_experiment_rejects_bad_settings(bad, match):
    with pytest.raises(ValueError, match=match):
        private_lasso_experiment(["synthetic"], **{**RUN, **bad})


# ---------------------------------------------------------------------------------------
# count noise


def test_count_noise_sd_closed_forms_match_the_pmfs():
    k = np.arange(-4000, 4001)
    for epsilon in (0.05, 0.3, 1.0, 2.5):
        alpha = math.exp(-epsilon)
        geometric = alpha ** np.abs(k)
        geometric /= geometric.sum()
        assert count_noise_sd(epsilon, 1, "geometric") == pytest.approx(
            math.sqrt(np.sum(k**2 * geometric)), rel=1e-9)
        b = 1 / epsilon  # P(round(Z) = k) from the Laplace distribution function
        tail = 0.5 * np.exp(-np.abs(k + 0.5) / b)
        cdf = np.where(k + 0.5 >= 0, 1 - tail, tail)
        pmf = np.diff(np.concatenate([[0.0], cdf]))
        assert count_noise_sd(epsilon, 1, "laplace") == pytest.approx(
            math.sqrt(np.sum(k**2 * pmf)), rel=1e-9)
    # sensitivity 2 at budget 2 epsilon is the same noise
    assert count_noise_sd(1.0, 2, "geometric") == pytest.approx(
        count_noise_sd(0.5, 1, "geometric"))


def test_count_noise_sd_geometric_is_narrower_by_a_vanishing_margin():
    for epsilon in (0.01, 0.1, 1.0, 3.0):
        assert count_noise_sd(epsilon, 1, "geometric") < count_noise_sd(epsilon, 1, "laplace")
    b = 200.0  # variances 2b^2 - 1/6 and 2b^2 + 1/12 up to O(1/b^2)
    assert count_noise_sd(1 / b, 1, "geometric") ** 2 == pytest.approx(2 * b**2 - 1 / 6, abs=1e-3)
    assert count_noise_sd(1 / b, 1, "laplace") ** 2 == pytest.approx(2 * b**2 + 1 / 12, abs=1e-3)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf])
def test_count_noise_sd_rejects_bad_budgets(bad):
    with pytest.raises(ValueError, match="epsilon_count"):
        count_noise_sd(bad, 1, "geometric")


def test_count_noise_experiment_composes_count_and_top_entries():
    kwargs = dict(epsilons_count=[0.1, 2.0], epsilon_fw=3.0, n_fw_trials=4, n_draws=50,
                  synthetic=TINY, seed=0)
    draws = count_noise_experiment("synthetic", **kwargs)
    assert len(draws) == 2 * 2 * 50
    assert (draws["nnz"] == np.minimum(draws["target"], draws["fw_nnz"])).all()
    assert draws["target"].between(1, TINY["p"]).all()
    np.testing.assert_array_equal(draws["fw_trial"], draws["draw"] % 4)
    # the Frank-Wolfe part is shared by every column: same nonzeros per Frank-Wolfe trial
    assert draws.groupby("fw_trial")["fw_nnz"].nunique().eq(1).all()
    pd.testing.assert_frame_equal(count_noise_experiment("synthetic", **kwargs), draws)
    spread = draws.groupby(["noise", "epsilon_count"])["target"].std()
    for noise in ("geometric", "laplace"):
        assert spread[(noise, 0.1)] > spread[(noise, 2.0)]


# ---------------------------------------------------------------------------------------
# rate


def test_rate_experiment_excess_is_certified_nonnegative_and_t_is_automatic(tmp_path):
    kwargs = dict(epsilons=[2.0], seeds=[0, 1], n_trials=2, p=6, k=2)
    rates = rate_experiment([200, 400], **kwargs, cache_dir=tmp_path)
    assert len(rates) == 2 * 2 * 2
    assert (rates["excess"] >= -rates["gap"]).all()
    assert (rates["zero_excess"] > 0).all()
    for n, part in rates.groupby("n"):
        assert (part["n_iter"] == auto_n_iter(10.0, n, 2.0, 1 / n**2, 7)).all()
    assert len(list(tmp_path.glob("p1-rate-*.pkl"))) == 4
    pd.testing.assert_frame_equal(rate_experiment([200, 400], **kwargs, cache_dir=tmp_path),
                                  rates, check_dtype=False)


def test_fit_rate_slope_recovers_a_known_slope():
    rng = np.random.default_rng(0)
    ns = np.array([100, 300, 1000, 3000, 10000])
    rows = [{"epsilon": 1.0, "n": n, "seed": s, "trial": 0,
             "excess": 2.0 * n ** -0.5 * math.exp(0.05 * rng.standard_normal())}
            for n in ns for s in range(6)]
    fit = fit_rate_slope(pd.DataFrame(rows)).iloc[0]
    assert fit["ci_low"] < -0.5 < fit["ci_high"]
    assert fit["slope"] == pytest.approx(-0.5, abs=4 * fit["slope_se"])
    assert 0 < fit["slope_se"] < 0.05
    exact = fit_rate_slope(pd.DataFrame(
        [{"epsilon": 1.0, "n": n, "seed": 0, "excess": n ** -0.7} for n in ns])).iloc[0]
    assert exact["slope"] == pytest.approx(-0.7)
    assert exact["last_slope"] == pytest.approx(-0.7)
    assert exact["bend"] == pytest.approx(0.0, abs=1e-12)
    bent = fit_rate_slope(pd.DataFrame(
        [{"epsilon": 1.0, "n": n, "seed": 0, "excess": n ** -0.2 * (0.5 if n == ns[-1] else 1)}
         for n in ns])).iloc[0]
    assert bent["bend"] < 0 and bent["last_slope"] < bent["slope"]
    assert exact["slope_se"] == pytest.approx(0.0, abs=1e-12)


def test_fit_rate_slope_rejects_nonpositive_excess():
    frame = pd.DataFrame({"epsilon": 1.0, "n": [10, 20], "seed": 0, "excess": [0.1, 0.0]})
    with pytest.raises(ValueError, match="> 0"):
        fit_rate_slope(frame)


# ---------------------------------------------------------------------------------------
# display


def test_mean_sd_formats():
    assert mean_sd([1.0, 2.0, 3.0], ".2f") == "2.00 ± 1.00"
    assert mean_sd([4.0, 4.0]) == "4"
    assert mean_sd([math.nan]) == "–"


def test_tables_and_figures_render(fits):
    assert len(nonprivate_table(fits)) == 1
    table = private_table(fits, ("zero-init", "sparsifier"), {"nonzeros": ("nnz", ".3g")})
    assert list(table.columns) == ["dataset", "ε", "T", "majority", "nonzeros: private LASSO",
                                   "nonzeros: Sparsifier"]
    assert len(table) == 2
    nnz = paired_differences(fits, "nnz", "sparsifier", "zero-init")
    accuracy = paired_differences(fits, "accuracy", "sparsifier", "zero-init")
    assert (nnz["n"] == 3).all()
    by_epsilon = sparsity_by_epsilon(nnz, accuracy, accuracy)
    assert list(by_epsilon["datasets"]) == [1] * len(by_epsilon)
    assert by_epsilon["sparser on"].tolist() == [int(m < 0) for m in nnz.sort_values(
        "epsilon")["mean"]]
    for figure in (plot_dense(fits, ["synthetic"]), plot_sparsity_summary(nnz, accuracy)):
        assert figure.axes
        plt.close(figure)
    draws = count_noise_experiment("synthetic", epsilons_count=[0.5], epsilon_fw=2.0,
                                   n_fw_trials=2, n_draws=20, synthetic=TINY)
    assert len(count_noise_table(draws)) == 2
    plt.close(plot_count_noise(draws))
    rates = rate_experiment([200, 400], epsilons=[2.0], seeds=[0, 1], n_trials=1, p=6, k=2)
    slopes = fit_rate_slope(rates)
    assert rate_table(rates, slopes)["n"].iloc[0] == "200–400"
    plt.close(plot_rate(rates, slopes))


def test_count_release_error_at_both_sensitivities():
    table = count_release_error(["a", "b"], [3, 0], [8, 40], epsilon_count=0.25, n_draws=2000,
                                seed=1)
    assert list(table["count_sensitivity"]) == ["1", "max", "1", "max"]
    assert list(table["sensitivity"]) == [1, 8, 1, 40]
    assert table["noise_sd"].tolist() == [count_noise_sd(0.25, s, "geometric")
                                          for s in (1, 8, 1, 40)]
    proven = table[table["count_sensitivity"] == "max"]
    assert (proven["at_ends"] > 0.7).all()  # >= exp(-0.25) = 0.78 in expectation
    assert table["mean_abs_error"].iloc[3] > 3 * table["mean_abs_error"].iloc[2]
    again = count_release_error(["a", "b"], [3, 0], [8, 40], epsilon_count=0.25,
                                n_draws=2000, seed=1)
    pd.testing.assert_frame_equal(table, again)


def test_l2_rows_are_the_l2_classifier_on_each_split_with_its_own_stream():
    out = private_lasso_experiment(["synthetic"], methods=("zero-init", "l2"), epsilons=[2.0],
                                   n_trials=2, synthetic=TINY, seed=0)
    data = load_p1_data("synthetic", synthetic=TINY, seed=0)
    splits = stratified_splits(data.y, 2, random_state=split_seed(0, data.code))
    l2 = out[out["method"] == "l2"].set_index("split")
    assert (l2["nnz"] == TINY["p"]).all() and (l2["n_iter"] == 1).all()
    for split, (train, test) in enumerate(splits):
        X = data.mapped_on(train)
        model = ObjectivePerturbationClassifier(
            epsilon=2.0, classes=[0, 1],
            random_state=noise_rng(0, data.code, 2.0, split, p1.METHODS.index("l2")))
        model.fit(X[train], data.y[train])
        assert l2.loc[split, "accuracy"] == model.score(X[test], data.y[test])


@pytest.mark.parametrize("n_iter_rule", ["auto", "talwar"])
def test_sparsifier_rows_are_the_library_sparsifier_on_each_split(n_iter_rule):
    """The Sparsifier's rows are ``sparsify_trials`` on the split's training rows (P1's count,
    its budget share and steps, the stream of its (budget, split, method)), although they run
    in one engine call with the other methods and take the split's count as given."""
    out = private_lasso_experiment(["synthetic"], methods=("zero-init", "sparsifier"),
                                   epsilons=[1.0, 4.0], n_trials=4, n_splits=2, synthetic=TINY,
                                   seed=0, n_iter_rule=n_iter_rule)
    data = load_p1_data("synthetic", synthetic=TINY, seed=0)
    splits = stratified_splits(data.y, 2, random_state=split_seed(0, data.code))
    rows = out[out["method"] == "sparsifier"].set_index(["epsilon", "split", "trial"])
    for epsilon in (1.0, 4.0):
        for split, (train, test) in enumerate(splits):
            n_iter = (math.ceil((10.0 * train.size * 0.75 * epsilon) ** (2 / 3))
                      if n_iter_rule == "talwar" else "auto")
            fit = sparsify_trials(
                data.X[train], data.y[train], lam=10.0, n_iter=n_iter, epsilon=epsilon,
                n_trials=2, count_fraction=0.25, count_sensitivity=P1_COUNT_SENSITIVITY,
                random_state=noise_rng(0, data.code, epsilon, split,
                                       p1.METHODS.index("sparsifier")))
            metrics = evaluate_weights(fit.W, fit.intercept, data.X[test], data.y[test])
            cell = rows.loc[(epsilon, split)]
            assert (cell["n_iter"] == fit.n_iter).all()
            np.testing.assert_array_equal(cell["target"], fit.n_nonzero_target)
            np.testing.assert_array_equal(cell["fw_nnz"], fit.weights_nnz)
            np.testing.assert_array_equal(cell["nnz"], metrics["nnz"])
            np.testing.assert_array_equal(cell["accuracy"], metrics["accuracy"])

