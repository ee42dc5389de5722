"""Unit tests of the P2 experiment functions (``dplasso.experiments.p2``) on tiny problems.

(File name: ``test_p2.py`` would clash with ``tests/reproduction/test_p2.py``; the test
folders are not packages.)
"""
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import dplasso.experiments.p2 as p2
from dplasso.experiments.columns import ColumnCallback
from dplasso.experiments.p2 import (
    COMBINATIONS,
    SEMANTICS,
    exact_optimum_support,
    final_counts,
    RELEASES,
    margin_noise_sd,
    noise_scale_vs_dimension,
    rows_for_noise_below,
    schedule_label,
    screening_experiment,
    screening_releases,
    wolfe_gap_curves,
)
from dplasso.experiments.p2_display import (
    plot_gap_curves,
    plot_noise_vs_dimension,
    plot_nonzeros_over_iterations,
    plot_screened_over_iterations,
    semantics_label,
    spread,
    spread_table,
)
from dplasso.data.synthetic import raj_response_bound
from dplasso.optim.column_selector import ColumnSelector
from dplasso.optim.losses import LogisticLoss, SquaredLoss
from dplasso.privacy.gaussian import gaussian_sigma_analytic
from dplasso.screening import screening_sensitivity


TINY = dict(n=120, p=30, n_pos=3, n_neg=3, lam=5.0, n_iter=20)
SCREENING = dict(TINY, seeds=[0, 1], schedules=[1, 5, None], n_trials=2, delta1=1 / 240,
                 delta2=1 / 240)
NOISE = dict(dims=[10, 20, 40], seeds=[0, 1], n=120, n_pos=3, n_neg=3, n_iter=20,
             delta=1 / 240, n_trials=3)


@pytest.fixture(scope="module")
def rounds():
    return screening_experiment(**SCREENING)


def test_screening_experiment_has_one_row_per_round_and_trial(rounds):
    assert list(rounds.columns) == p2._SCREENING_COLUMNS
    # per (task, seed): (1 non-private run + 3 combinations x 2 trials) x 2 semantics
    # x (20 + 4 + 1 rounds)
    assert len(rounds) == 2 * 2 * (1 + 3 * 2) * 2 * (20 + 4 + 1)
    runs = rounds.groupby(["task", "seed", "optimiser", "screening", "semantics",
                           "schedule"])["trial"]
    for (_, _, optimiser, screening, _, _), trials in runs:
        expected = {0} if optimiser == screening == "non-private" else {0, 1}
        assert set(trials) == expected
    assert set(rounds["semantics"]) == set(SEMANTICS)
    rounds_per_run = rounds.groupby(["task", "seed", "trial", "optimiser", "screening",
                                     "semantics", "schedule"])["t"].apply(list)
    for key, ts in rounds_per_run.items():
        assert ts == {"every iteration": list(range(1, 21)), "every 5th": [5, 10, 15, 20],
                      "last iteration": [20]}[key[-1]]
    assert set(zip(rounds["optimiser"], rounds["screening"])) == set(COMBINATIONS)


def test_screening_records_are_consistent(rounds):
    assert (rounds["n_screened"] == rounds["n_screened_true_zero"]
            + rounds["n_screened_true_nonzero"]).all()
    assert (rounds["n_screened_true_nonzero"] <= rounds["n_true_nonzero"]).all()
    assert (rounds["n_true_nonzero"] == 6).all() and (rounds["n_true_zero"] == 24).all()
    private = rounds["screening"] == "private"
    assert rounds.loc[private, "sigma"].gt(0).all() and rounds.loc[private, "radius"].isna().all()
    assert rounds.loc[~private, "radius"].gt(0).all() and rounds.loc[~private, "sigma"].isna().all()
    fw_private = rounds["optimiser"] == "private"
    assert rounds.loc[fw_private, "fw_scale"].gt(0).all()
    assert rounds.loc[~fw_private, "fw_scale"].isna().all()
    # the union of screened features only grows within a run
    keys = ["task", "seed", "trial", "optimiser", "screening", "semantics", "schedule"]
    assert rounds.groupby(keys)["n_screened"].apply(lambda s: s.is_monotonic_increasing).all()
    assert (rounds["nnz_kept"] <= rounds["nnz"]).all() and (rounds["nnz"] < rounds["t"]).all()
    assert (rounds["nnz_kept_true_nonzero"] <= rounds["nnz_kept"]).all()
    # a round leaves nonzero exactly the unmasked nonzeros: nnz_kept + screened nonzeros = nnz
    assert (rounds["nnz"] - rounds["nnz_kept"] <= rounds["n_screened_round"]).all()
    finals = final_counts(rounds)
    nnz = finals["final_nnz_true_nonzero"] + finals["final_nnz_true_zero"]
    exclude = finals["semantics"] == "zero-and-exclude"
    # excluded: a feature screened is zero in the output, so nonzeros fit in the unscreened
    assert (nnz[exclude] <= 30 - finals.loc[exclude, "n_screened"]).all()
    # may return: the step after the last round always adds a vertex, so never all zero
    assert (nnz[~exclude] >= 1).all()
    private_every = (finals["screening"] == "private") & (finals["schedule"] == "every iteration")
    assert (nnz[exclude & private_every] == 0).all()  # 20 noisy rounds ban every feature


def test_nonprivate_screening_never_keeps_a_nonzero_off_the_support(rounds):
    finals = final_counts(rounds)
    reference = finals[(finals["optimiser"] == "non-private")
                       & (finals["screening"] == "non-private")]
    assert len(reference) == 2 * 2 * 3 * 2
    assert (reference["final_nnz_true_zero"] == 0).all()


def test_final_counts_has_one_row_per_run(rounds):
    finals = final_counts(rounds)
    assert len(finals) == 2 * 2 * (1 + 3 * 2) * 2 * 3
    for column in ("frac_screened_true_zero", "frac_screened_true_nonzero",
                   "frac_true_nonzero_kept"):
        assert finals[column].between(0, 1).all()
    last = rounds.sort_values("t").groupby(["task", "seed", "trial", "optimiser", "screening",
                                            "semantics", "schedule"]).tail(1)
    assert sorted(finals["t"]) == sorted(last["t"])


def test_screening_experiment_is_deterministic(rounds):
    pd.testing.assert_frame_equal(rounds, screening_experiment(**SCREENING))
    one_task = screening_experiment(**{**SCREENING, "seeds": [1]}, tasks="logistic")
    expected = rounds[(rounds["task"] == "logistic") & (rounds["seed"] == 1)]
    pd.testing.assert_frame_equal(one_task, expected.reset_index(drop=True))


def test_checkpoints_resume_without_recomputing_finished_seeds(rounds, tmp_path, monkeypatch):
    first = screening_experiment(**SCREENING, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(first, rounds)
    files = sorted(tmp_path.glob("p2-screening-*.pkl"))
    assert len(files) == 4
    files[0].unlink()  # as if interrupted before the last unit was written
    calls = []
    original = p2._problem

    def counting(task, *args):
        calls.append((task, args[-1]))
        return original(task, *args)

    monkeypatch.setattr(p2, "_problem", counting)
    resumed = screening_experiment(**SCREENING, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(resumed, rounds)
    assert len(calls) == 1  # only the missing (task, seed)
    # different settings never reuse these checkpoints
    screening_experiment(**{**SCREENING, "n_trials": 1}, cache_dir=tmp_path)
    assert len(calls) == 1 + 4
    assert len(list(tmp_path.glob("p2-screening-*.pkl"))) == 8
    assert not list(tmp_path.glob(".*.tmp"))


def test_column_selector_and_callback_route_columns():
    seen = []

    def first(scores, rng):
        seen.append(("first", scores.shape))
        return np.zeros(scores.shape[1], dtype=int)

    def second(scores, rng):
        seen.append(("second", scores.shape))
        return np.ones(scores.shape[1], dtype=int)

    select = ColumnSelector([([0, 2], first), ([1], second), ([], first)])
    assert list(select(np.zeros((4, 3)), None)) == [0, 1, 0]
    assert seen == [("first", (4, 2)), ("second", (4, 1))]

    def screen_all(t, W, G, gap):
        return np.ones(W.shape, dtype=bool)

    callback = ColumnCallback([([1], screen_all), ([0, 2], lambda *a: None)])
    mask = callback(1, np.zeros((5, 3)), np.zeros((5, 3)), np.zeros(3))
    assert mask.shape == (5, 3) and mask[:, 1].all() and not mask[:, [0, 2]].any()
    assert ColumnCallback([([0], lambda *a: None)])(1, np.zeros((2, 1)), np.zeros((2, 1)),
                                                        np.zeros(1)) is None


def test_wolfe_gap_curves_shape_and_start():
    curves = wolfe_gap_curves(**TINY, seeds=[0, 1], n_trials=2, delta=1 / 240)
    assert list(curves.columns) == ["task", "seed", "trial", "optimiser", "t", "gap",
                                    "objective", "nnz", "fw_scale"]
    assert len(curves) == 2 * 2 * 21 * (1 + 2)
    start = curves[curves["t"] == 0]
    for _, group in start.groupby(["task", "seed"]):  # both start at w = 0; the gaps of the
        # trial columns of one batched product may differ in their last bits (BLAS kernels)
        np.testing.assert_allclose(group["gap"], group["gap"].iloc[0], rtol=1e-14, atol=0)
        assert (group["nnz"] == 0).all()
    assert (curves["gap"] >= -1e-12).all() and (curves["nnz"] <= curves["t"]).all()
    pd.testing.assert_frame_equal(curves, wolfe_gap_curves(**TINY, seeds=[0, 1], n_trials=2,
                                                           delta=1 / 240))


def test_noise_scale_vs_dimension_columns_and_scaling(tmp_path):
    noise = noise_scale_vs_dimension(**NOISE)
    assert len(noise) == 2 * 2 * 3
    assert list(noise["d"].unique()) == [10, 20, 40]
    # the noise depends on (n, d) only: equal over seeds, proportional to sqrt(d + 1) times
    # one coordinate's sensitivity (which depends on d only through the linear task's bound)
    for (task, d), group in noise.groupby(["task", "d"]):
        assert np.ptp(group["sigma"]) == 0
    per_task = noise[noise["seed"] == 0]
    for task, group in per_task.groupby("task"):
        unit = group["sigma"] / np.sqrt(group["d"] + 1) / group["sensitivity_coordinate"]
        assert np.ptp(unit) <= 1e-9 * unit.max()
        bound = raj_response_bound(120, 40, 6)
        loss = SquaredLoss(y_bound=bound) if task == "linear" else LogisticLoss()
        sens = screening_sensitivity(120, 40, 5.0, loss)
        row = group[group["d"] == 40].iloc[0]
        assert row["sensitivity_l2"] == sens.l2
        assert row["sigma"] == gaussian_sigma_analytic(sens.l2, 2.5, 1 / 240)
    assert np.allclose(noise["noise_sd_margin"], noise["sigma"] * math.sqrt(2))
    assert (noise["gap_term"] >= 0).all() and (noise["negative_term_max"] >= 0).all()
    assert (noise["negative_term_q25"] <= noise["negative_term"]).all()
    assert (noise["negative_term"] <= noise["negative_term_q75"]).all()
    for column in ("frac_screened_true_zero", "private_frac_screened_true_nonzero",
                   "frac_margin_above_noise_sd"):
        assert noise[column].between(0, 1).all()
    cached = noise_scale_vs_dimension(**NOISE, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(cached, noise)
    pd.testing.assert_frame_equal(noise_scale_vs_dimension(**NOISE, cache_dir=tmp_path), noise)


def test_margin_noise_and_rows_for_noise_below_is_the_boundary():
    def noise(n, task, bound):
        if task == "logistic":
            loss = LogisticLoss()
        else:
            loss = SquaredLoss(y_bound=70.0 if bound == "worst-case"
                               else raj_response_bound(n, 600, 70))
        sens = screening_sensitivity(n, 600, 5.0, loss)
        return math.sqrt(2) * gaussian_sigma_analytic(sens.l2, 2.5, 1 / 6000)

    for task, target, bound in (("linear", 5.0, "worst-case"), ("linear", 5.0, "generator"),
                                ("logistic", 0.05, "generator")):
        assert margin_noise_sd(task, 3000, 600, response_bound=bound) == noise(3000, task, bound)
        n = rows_for_noise_below(target, task, 600, response_bound=bound)
        assert noise(n, task, bound) <= target < noise(n - 1, task, bound)
    # the generator's bound (about 12 at 3000 x 600) gives less noise than ||w*||_1 = 70
    assert margin_noise_sd("linear", 3000, 600) < 0.5 * margin_noise_sd(
        "linear", 3000, 600, response_bound="worst-case")
    assert rows_for_noise_below(1e9, "logistic", 10) == 1
    with pytest.raises(ValueError, match="target"):
        rows_for_noise_below(0.0, "linear", 600)
    with pytest.raises(ValueError, match="response_bound"):
        margin_noise_sd("linear", 100, 10, response_bound="data")


def test_exact_optimum_support_is_certified_and_matches_the_screened_fit(rounds):
    optimum = exact_optimum_support(seeds=[0, 1], **{k: TINY[k] for k in (
        "n", "p", "n_pos", "n_neg", "lam")})
    assert len(optimum) == 4 and optimum["certified"].all()
    assert (optimum["gap"] >= 0).all()
    assert (optimum["nnz_true_nonzero"] / optimum["n_true_nonzero"]
            == optimum["frac_true_nonzero"]).all()
    # exact Frank-Wolfe with the safe rule never keeps a feature the optimum has at zero
    finals = final_counts(rounds)
    reference = finals[(finals["optimiser"] == "non-private")
                       & (finals["screening"] == "non-private")]
    merged = reference.merge(optimum, on=["task", "seed"])
    assert (merged["final_nnz_true_zero"] <= merged["nnz_true_zero"]).all()


@pytest.mark.parametrize("kwargs, message", [
    (dict(tasks=["poisson"]), "tasks"),
    (dict(tasks=[]), "tasks"),
    (dict(seeds=[]), "seeds"),
    (dict(seeds=[0, 0]), "distinct"),
    (dict(seeds=[-1]), "seed"),
    (dict(schedules=[]), "schedule"),
    (dict(schedules=[30]), "exceeds n_iter"),
    (dict(schedules=[1, 1]), "distinct"),
    (dict(n_trials=0), "n_trials"),
    (dict(combinations=[("private", "maybe")]), "combinations"),
    (dict(combinations=[]), "combinations"),
    (dict(combinations=[("private", "private")] * 2), "distinct"),
    (dict(radius_kind="tight"), "radius_kind"),
    (dict(semantics=[]), "semantics"),
    (dict(semantics=["zero"]), "semantics"),
    (dict(semantics=[SEMANTICS[0]] * 2), "semantics"),
])
def test_screening_experiment_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        screening_experiment(**{**SCREENING, **kwargs})


def test_noise_rejects_dimensions_below_the_support():
    with pytest.raises(ValueError, match="dimension"):
        noise_scale_vs_dimension(**{**NOISE, "dims": [5]})


def test_schedule_labels():
    assert schedule_label(None, 10) == "last iteration"
    assert schedule_label(1, 10) == "every iteration"
    assert [schedule_label(k, 1000) for k in (2, 3, 13, 21, 50)] == [
        "every 2nd", "every 3rd", "every 13th", "every 21st", "every 50th"]
    assert schedule_label(10, 10) == "every 10th (= last iteration)"


def test_display_helpers(rounds):
    assert spread([3, 3]) == "3"
    assert spread([1.0, 3.0]) == "2 ± 1 (1–3)"
    assert spread([0.25, 0.75], scale=100.0) == "50 ± 35 (25–75)"
    finals = final_counts(rounds)
    reference = finals[(finals["optimiser"] == "non-private")
                       & (finals["screening"] == "non-private")
                       & (finals["semantics"] == SEMANTICS[0])]
    shown = spread_table(reference, {"kept": ("frac_true_nonzero_kept", True),
                                     "screened": ("n_screened", False)})
    assert list(shown.columns) == ["task", "schedule", "runs", "kept (%)", "screened"]
    assert list(shown["schedule"][:3]) == ["every iteration", "every 5th", "last iteration"]
    assert (shown["runs"] == 2).all()
    both = spread_table(finals[finals["screening"] == "private"],
                        {"kept": ("frac_true_nonzero_kept", True)})
    assert list(both.columns) == ["task", "schedule", "semantics", "runs", "kept (%)"]
    assert list(both["semantics"][:2]) == [semantics_label(SEMANTICS[0]),
                                           semantics_label(SEMANTICS[1])]
    private = finals[finals["screening"] == "private"]
    two = pd.concat([private.assign(epsilon1=0.5, epsilon2=0.5),  # a run of two budgets
                     private.assign(epsilon1=1.0, epsilon2=4.0)])
    budgets = spread_table(two, {"kept": ("frac_true_nonzero_kept", True)})
    assert list(budgets.columns) == ["task", "schedule", "ε₁, ε₂", "semantics", "runs",
                                     "kept (%)"]
    assert list(budgets["ε₁, ε₂"][:4]) == ["0.5, 0.5", "0.5, 0.5", "1, 4", "1, 4"]
    assert budgets[["task", "schedule", "semantics", "runs"]].iloc[:2].equals(
        both[["task", "schedule", "semantics", "runs"]].iloc[:2])
    assert semantics_label("zero-and-may-return") == "zero-and-may-return (P2's reading)"
    with pytest.raises(ValueError, match="semantics"):
        semantics_label("zero")
    figures = [
        plot_screened_over_iterations(
            rounds[(rounds["optimiser"] == "private") & (rounds["screening"] == "private")],
            reference=rounds[(rounds["optimiser"] == "non-private")
                             & (rounds["screening"] == "non-private")]),
        plot_nonzeros_over_iterations(
            rounds[(rounds["optimiser"] == "non-private") & (rounds["screening"] == "private")]),
        plot_gap_curves(wolfe_gap_curves(**TINY, n_trials=2, delta=1 / 240)),
        plot_noise_vs_dimension(noise_scale_vs_dimension(**NOISE)),
    ]
    assert [len(f.axes) for f in figures] == [6, 4, 2, 2]
    for figure in figures:
        plt.close(figure)


def test_screening_releases_compares_the_releases_on_one_iterate(tmp_path):
    kwargs = dict(seeds=[0, 1], n=120, p=30, n_pos=3, n_neg=3, n_iter=20, delta=1 / 240,
                  n_trials=4)
    out = screening_releases(**kwargs)
    assert len(out) == 2 * 2 * len(RELEASES)
    assert list(out["release"].unique()) == list(RELEASES)
    for column in ("frac_screened_true_zero", "frac_screened_true_nonzero",
                   "frac_all_or_nothing", "exact_frac_screened_true_zero"):
        assert out[column].between(0, 1).all()
    split = out["release"] != RELEASES[0]
    assert out.loc[split, "noise_sd_gap"].gt(0).all()
    assert out.loc[~split, "noise_sd_gap"].isna().all()
    # the split release's gradient noise is far below Algorithm 1's (no radius term in it)
    by = out.groupby(["task", "seed"])
    for _, group in by:
        alg1 = group.loc[group["release"] == RELEASES[0], "noise_sd_gradient"].iloc[0]
        assert (group.loc[group["release"] != RELEASES[0], "noise_sd_gradient"] < alg1).all()
    pd.testing.assert_frame_equal(screening_releases(**kwargs, cache_dir=tmp_path), out)
