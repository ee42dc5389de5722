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
from dplasso.experiments.p2 import (
    COMBINATIONS,
    final_counts,
    noise_scale_vs_dimension,
    rows_for_noise_below,
    schedule_label,
    screening_experiment,
    wolfe_gap_curves,
)
from dplasso.experiments.p2_display import (
    plot_gap_curves,
    plot_noise_vs_dimension,
    plot_screened_over_iterations,
    spread,
    spread_table,
)
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
    # per (task, seed): (1 non-private run + 3 combinations x 2 trials) x (20 + 4 + 1 rounds)
    assert len(rounds) == 2 * 2 * (1 + 3 * 2) * (20 + 4 + 1)
    runs = rounds.groupby(["task", "seed", "optimiser", "screening", "schedule"])["trial"]
    for (_, _, optimiser, screening, _), trials in runs:
        expected = {0} if optimiser == screening == "non-private" else {0, 1}
        assert set(trials) == expected
    rounds_per_run = rounds.groupby(["task", "seed", "trial", "optimiser", "screening",
                                     "schedule"])["t"].apply(list)
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
    keys = ["task", "seed", "trial", "optimiser", "screening", "schedule"]
    assert rounds.groupby(keys)["n_screened"].apply(lambda s: s.is_monotonic_increasing).all()
    # a feature screened is zero in the output: final nonzeros fit in the unscreened ones
    finals = final_counts(rounds)
    unscreened = 30 - finals["n_screened"]
    assert (finals["final_nnz_true_nonzero"] + finals["final_nnz_true_zero"] <= unscreened).all()


def test_nonprivate_screening_never_keeps_a_nonzero_off_the_support(rounds):
    finals = final_counts(rounds)
    reference = finals[(finals["optimiser"] == "non-private")
                       & (finals["screening"] == "non-private")]
    assert len(reference) == 2 * 2 * 3
    assert (reference["final_nnz_true_zero"] == 0).all()


def test_final_counts_has_one_row_per_run(rounds):
    finals = final_counts(rounds)
    assert len(finals) == 2 * 2 * (1 + 3 * 2) * 3
    for column in ("frac_screened_true_zero", "frac_screened_true_nonzero",
                   "frac_true_nonzero_kept"):
        assert finals[column].between(0, 1).all()
    last = rounds.sort_values("t").groupby(["task", "seed", "trial", "optimiser", "screening",
                                            "schedule"]).tail(1)
    assert sorted(finals["t"]) == sorted(last["t"])


def test_screening_experiment_is_deterministic(rounds):
    pd.testing.assert_frame_equal(rounds, screening_experiment(**SCREENING))
    one_task = screening_experiment(**{**SCREENING, "seeds": [1]}, tasks="logistic")
    expected = rounds[(rounds["task"] == "logistic") & (rounds["seed"] == 1)]
    pd.testing.assert_frame_equal(one_task, expected.reset_index(drop=True))


def test_checkpoints_resume_without_recomputing_finished_seeds(rounds, tmp_path, monkeypatch):
    first = screening_experiment(**SCREENING, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(first, rounds)
    files = sorted(tmp_path.glob("p2-screening-*.csv"))
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
    assert len(list(tmp_path.glob("p2-screening-*.csv"))) == 8
    assert not list(tmp_path.glob(".*.tmp"))


def test_column_selector_and_callback_route_columns():
    seen = []

    def first(scores, rng):
        seen.append(("first", scores.shape))
        return np.zeros(scores.shape[1], dtype=int)

    def second(scores, rng):
        seen.append(("second", scores.shape))
        return np.ones(scores.shape[1], dtype=int)

    select = p2._ColumnSelector([([0, 2], first), ([1], second), ([], first)])
    assert list(select(np.zeros((4, 3)), None)) == [0, 1, 0]
    assert seen == [("first", (4, 2)), ("second", (4, 1))]

    def screen_all(t, W, G, gap):
        return np.ones(W.shape, dtype=bool)

    callback = p2._ColumnCallback([([1], screen_all), ([0, 2], lambda *a: None)])
    mask = callback(1, np.zeros((5, 3)), np.zeros((5, 3)), np.zeros(3))
    assert mask.shape == (5, 3) and mask[:, 1].all() and not mask[:, [0, 2]].any()
    assert p2._ColumnCallback([([0], lambda *a: None)])(1, np.zeros((2, 1)), np.zeros((2, 1)),
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
    # the noise depends on (n, d) only: equal over seeds, proportional to sqrt(d + 1)
    for (task, d), group in noise.groupby(["task", "d"]):
        assert np.ptp(group["sigma"]) == 0
    per_task = noise[noise["seed"] == 0]
    for task, group in per_task.groupby("task"):
        unit = group["sigma"] / np.sqrt(group["d"] + 1)
        assert np.ptp(unit) <= 1e-9 * unit.max()
        loss = SquaredLoss(y_bound=6.0) if task == "linear" else LogisticLoss()
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


def test_rows_for_noise_below_is_the_boundary():
    def noise(n, task):
        loss = SquaredLoss(y_bound=70.0) if task == "linear" else LogisticLoss()
        sens = screening_sensitivity(n, 600, 5.0, loss)
        return math.sqrt(2) * gaussian_sigma_analytic(sens.l2, 2.5, 1 / 6000)

    for task, target in (("linear", 5.0), ("logistic", 0.05)):
        n = rows_for_noise_below(target, task, 600)
        assert noise(n, task) <= target < noise(n - 1, task)
    assert rows_for_noise_below(1e9, "logistic", 10) == 1
    with pytest.raises(ValueError, match="target"):
        rows_for_noise_below(0.0, "linear", 600)


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
                       & (finals["screening"] == "non-private")]
    shown = spread_table(reference, {"kept": ("frac_true_nonzero_kept", True),
                                     "screened": ("n_screened", False)})
    assert list(shown.columns) == ["task", "schedule", "runs", "kept (%)", "screened"]
    assert list(shown["schedule"][:3]) == ["every iteration", "every 5th", "last iteration"]
    assert (shown["runs"] == 2).all()
    figures = [
        plot_screened_over_iterations(
            rounds[(rounds["optimiser"] == "private") & (rounds["screening"] == "private")],
            reference=rounds[(rounds["optimiser"] == "non-private")
                             & (rounds["screening"] == "non-private")]),
        plot_gap_curves(wolfe_gap_curves(**TINY, n_trials=2, delta=1 / 240)),
        plot_noise_vs_dimension(noise_scale_vs_dimension(**NOISE)),
    ]
    assert [len(f.axes) for f in figures] == [6, 2, 2]
    for figure in figures:
        plt.close(figure)
