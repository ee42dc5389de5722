"""The selection design run, the joint release's summary and the rules
(:mod:`dplasso.experiments.design`)."""
import importlib.util
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dplasso.estimators import sparsify_trials
from dplasso.estimators.joint_release import SIZE_DECAY, constant_log_odds, joint_share
from dplasso.estimators.private_count import count_scale
from dplasso.estimators.objective_perturbation import L2_JACOBIAN_SHARE
from dplasso.experiments.design import (
    BINARY_FAMILY,
    CONFIG_KEYS,
    JOINT_SHARE_SCALES,
    MARGIN_KEYS,
    NULL_FAMILY,
    behind_reference,
    choose_joint,
    choose_margin,
    choose_radius,
    choose_selection,
    choose_weights_scale,
    design_record,
    design_split,
    joint_design,
    joint_summary,
    l2_design,
    margin_design,
    margin_summary,
    radius_design,
    radius_summary,
    reference_accuracy,
    selection_design,
    weights_design,
    weights_summary,
)
from dplasso.experiments.p1 import evaluate_weights


@pytest.mark.parametrize("name, design", [
    ("joint", joint_design), ("margin", margin_design), ("l2", l2_design),
    ("selection", selection_design), ("weights", weights_design), ("radius", radius_design)])
def test_committed_design_records_are_what_the_code_gives(name, design):
    """A record made before a change to the code it ran would set a default on stale rows: the
    smallest configuration of each half of the family (sparse, dense truth) is rerun here."""
    record = design_record(name)
    for k in (4, 8):
        config = next(c for c in BINARY_FAMILY if (c["n"], c["p"], c["k"]) == (250, 8, k))
        rows = record[record[list(config)].eq(pd.Series(config)).all(axis=1)]
        rerun = design([config])
        assert len(rows) == len(rerun) > 0
        pd.testing.assert_frame_equal(rows.reset_index(drop=True), rerun[list(record)],
                                      check_exact=False, rtol=1e-12, atol=1e-12)


def test_selection_design_runs_the_default_with_each_selection():
    config = next(c for c in BINARY_FAMILY if (c["n"], c["p"], c["coef_value"]) == (1000, 8, 10))
    record = selection_design([config], epsilons=(1.0, 5.0), n_trials=2)
    assert list(record["selection"]) == ["laplace", "exponential"] * 2
    assert list(record["epsilon"]) == [1.0, 1.0, 5.0, 5.0]
    assert record[list(config)].eq(pd.Series(config)).all().all()
    assert record["accuracy"].between(0, 1).all() and record["below"].between(0, 1).all()
    assert (record["nnz"] <= config["p"]).all()
    X_train, y_train, X_test, y_test, _ = design_split(config)
    fit = sparsify_trials(X_train, y_train, lam=10.0, n_iter="auto", epsilon=1.0, n_trials=2,
                          count="joint", selection="laplace", threshold="private",
                          random_state=np.random.default_rng([0, 1000, 0]))
    accuracy = evaluate_weights(fit.W, fit.intercept, X_test, y_test)["accuracy"].mean()
    assert record["accuracy"].iloc[0] == accuracy  # the row's selection is the one it ran


def test_weights_design_runs_the_default_with_each_weights_release():
    config = next(c for c in BINARY_FAMILY if (c["n"], c["p"], c["coef_value"]) == (1000, 32, 5))
    record = weights_design([config], epsilons=(2.0,), n_trials=2)
    assert list(record["weights"]) == ["frank-wolfe", "objective-perturbation"]
    assert list(record["n_columns"]) == [33, 33] and list(record["n_train"]) == [800, 800]
    X_train, y_train, X_test, y_test, _ = design_split(config)
    for index, weights in enumerate(record["weights"]):
        fit = sparsify_trials(X_train, y_train, lam=10.0, n_iter="auto", epsilon=2.0,
                              n_trials=2, count="joint", selection="exponential",
                              threshold="private", weights=weights,
                              random_state=np.random.default_rng([0, 2000, index]))
        accuracy = evaluate_weights(fit.W, fit.intercept, X_test, y_test)["accuracy"].mean()
        assert record["accuracy"].iloc[index] == accuracy


def test_joint_design_runs_the_weights_the_default_releases():
    small = next(c for c in BINARY_FAMILY if (c["n"], c["p"]) == (1000, 8))
    wide = next(c for c in BINARY_FAMILY if (c["n"], c["p"]) == (250, 128))
    grid = dict(epsilons=(1.0,), fractions=(0.3,), size_decays=(0.0,), constant_odds=(0.0,),
                n_trials=2)
    record = joint_design([small, wide], **grid)
    assert list(record["weights"]) == ["objective-perturbation", "frank-wolfe"]  # 9 <= 37
    forced = joint_design([small], weights="frank-wolfe", **grid)
    assert list(forced["weights"]) == ["frank-wolfe"]
    assert forced["accuracy"].iloc[0] != record["accuracy"].iloc[0]


def test_margin_design_is_the_joint_design_at_the_rule_s_share_and_the_log_odds():
    """Each margin row is the joint design's cell at the share the rule gives, scored at the
    log-odds beta + gamma sqrt(n) (n eps_j / nu)^a / s (s = 2 / eps_j), with and without
    signal."""
    for config in (BINARY_FAMILY[0], NULL_FAMILY[1]):
        margin = margin_design([config], epsilons=(2.0,), odds=(0.0, 4.0),
                               margins=(0.0, 1.0), growths=(0.0, 0.5), n_trials=2)
        n_train = int(margin["n_train"].iloc[0])
        fraction = joint_share(n_train, 2.0)
        assert (margin["fraction"] == fraction).all()
        assert list(margin["signal"].unique()) == [config["coef_value"] > 0]
        epsilon_joint = 2.0 - (1.8 - fraction * 1.8)  # the threshold's 0.1, then f of the rest
        for (beta, gamma, growth), row in margin.set_index(list(MARGIN_KEYS)).iterrows():
            rows = gamma * np.sqrt(n_train) * (n_train * epsilon_joint / 400) ** growth
            odds = beta + rows / count_scale(epsilon_joint)
            assert constant_log_odds(n_train, epsilon_joint, odds=beta, margin=gamma,
                                     growth=growth) == pytest.approx(odds)
            joint = joint_design([config], epsilons=(2.0,), fractions=(fraction,),
                                 size_decays=(SIZE_DECAY,), constant_odds=(odds,), n_trials=2)
            for column in ("accuracy", "below", "model_below", "constant", "nnz"):
                assert row[column] == pytest.approx(joint[column].iloc[0], abs=1e-12)
            assert row["model_below"] <= row["below"] + 1e-12
        larger = margin[margin["constant_margin"] == 1.0]["constant"].to_numpy()
        assert np.all(larger >= margin[margin["constant_margin"] == 0.0]["constant"])


def _reference(record, accuracy):
    """An L2 design record at the library's Jacobian share, as ``reference_accuracy`` reads
    it: ``accuracy`` on every (configuration, budget) cell of ``record``."""
    cells = record[[*CONFIG_KEYS, "epsilon"]].drop_duplicates()
    return reference_accuracy(cells.assign(share=L2_JACOBIAN_SHARE, accuracy=accuracy))


def test_behind_reference_is_more_than_half_a_point_below_and_needs_every_cell():
    cells = pd.DataFrame([{**BINARY_FAMILY[0], "epsilon": 1.0, "accuracy": a}
                          for a in (0.694, 0.696, 0.75)])
    reference = _reference(cells, 0.70)
    assert list(behind_reference(cells, reference)) == [True, False, False]
    other = cells.assign(epsilon=2.0)
    with pytest.raises(ValueError, match="lacks 3 of the design's"):
        behind_reference(other, reference)


def _margin_record(null_below_best):
    """Two candidates: (0, 0) the more accurate, on its worst configuration without signal a
    model below the majority ``null_below_best`` of the time (1% on the other); (0, 1) a
    point less accurate, 1% on both. Both release a constant of the test split's minority
    class 30% of the time on the first null configuration, which the bar does not count."""
    rows = []
    for gamma, accuracy, null_below in ((0.0, 0.70, null_below_best), (1.0, 0.69, 0.01)):
        for epsilon in (0.5, 1.0, 5.0):
            far = 0.9 if epsilon == 0.5 else 0.0  # eps 0.5 is not read
            rows.append({**BINARY_FAMILY[0], "signal": True, "epsilon": epsilon,
                         "constant_odds": 0.0,
                         "constant_margin": gamma, "margin_growth": 0.0,
                         "accuracy": accuracy, "below": 0.0, "model_below": 0.0})
            for model_below, constant_below in ((null_below + far, 0.3), (0.01, 0.0)):
                rows.append({"signal": False, "epsilon": epsilon, "constant_odds": 0.0,
                             "constant_margin": gamma, "margin_growth": 0.0, "accuracy": 0.6,
                             "below": model_below + constant_below,
                             "model_below": model_below})
    return pd.DataFrame(rows)


def test_choose_margin_is_the_most_accurate_candidate_below_the_bar_without_signal():
    """The bar is each null configuration's share of models below the majority: neither
    their mean (the 1% configuration would hide the 12% one) nor the released constants."""
    ahead = _reference(_margin_record(0.04), 0.5)  # no candidate behind the reference
    assert choose_margin(_margin_record(0.04), ahead) == {
        "constant_odds": 0.0, "constant_margin": 0.0, "margin_growth": 0.0}
    assert choose_margin(_margin_record(0.08), ahead) == {
        "constant_odds": 0.0, "constant_margin": 1.0, "margin_growth": 0.0}
    # the reference at 0.699 puts the less accurate candidate (0.69) behind it
    summary = margin_summary(_margin_record(0.04), _reference(_margin_record(0.04), 0.699))
    assert list(summary["behind_reference"]) == [0.0, 1.0]
    summary = margin_summary(_margin_record(0.08), ahead).set_index("constant_margin")
    assert list(summary["null_ok"]) == [False, True]
    assert summary.loc[0.0, "no signal: worst model below, ε=5"] == pytest.approx(0.08)
    assert summary.loc[0.0, "no signal: below, ε=5"] == pytest.approx((0.38 + 0.01) / 2)
    assert summary.loc[0.0, "below_ok"] == pytest.approx(2 / 3)  # all but the 38% cells
    record = _margin_record(0.08)
    record.loc[~record["signal"], "model_below"] = 0.2
    with pytest.raises(ValueError, match="no \\(beta, gamma, a\\)"):
        choose_margin(record, ahead)


def test_choose_margin_takes_fewer_cells_behind_the_reference_over_mean_accuracy():
    """Two signal configurations: gamma 0 is the more accurate on the mean (0.70) but 5
    points behind the reference (0.65) on one; gamma 1 (0.66 on both) is behind on none."""
    rows = []
    for gamma, accuracies in ((0.0, (0.80, 0.60)), (1.0, (0.66, 0.66))):
        for config, accuracy in zip(BINARY_FAMILY[:2], accuracies):
            rows.append({**config, "signal": True, "epsilon": 1.0, "constant_odds": 0.0,
                         "constant_margin": gamma, "margin_growth": 0.0,
                         "accuracy": accuracy, "below": 0.0, "model_below": 0.0})
        rows.append({**BINARY_FAMILY[0], "signal": False, "epsilon": 1.0,
                     "constant_odds": 0.0, "constant_margin": gamma, "margin_growth": 0.0,
                     "accuracy": 0.5, "below": 0.0, "model_below": 0.0})
    record = pd.DataFrame(rows)
    signal = record[record["signal"]]
    assert choose_margin(record, _reference(signal, 0.65))["constant_margin"] == 1.0
    assert choose_margin(record, _reference(signal, 0.50))["constant_margin"] == 0.0


def _weights_record(op_better_small, op_better_large):
    """Two cells at eps = 1, n = 1000 (so (n eps)^(1/3) = 10): d = 9 and d = 129."""
    rows = []
    for d, op_better in ((9, op_better_small), (129, op_better_large)):
        for weights, accuracy in (("frank-wolfe", 0.7), ("objective-perturbation",
                                                       0.8 if op_better else 0.6)):
            rows.append({**BINARY_FAMILY[0], "p": d - 1, "n_train": 1000, "n_columns": d,
                         "epsilon": 1.0, "weights": weights, "accuracy": accuracy,
                         "below": 0.0})
    return pd.DataFrame(rows)


def test_choose_weights_scale_takes_the_fewest_cells_behind_the_l2_reference():
    """Frank-Wolfe's weights score 0.7 on both cells, objective perturbation's 0.8 or 0.6."""
    small = _weights_record(True, False)
    reference = _reference(small, 0.75)  # 0.7 and 0.6 behind it, 0.8 not
    # c = 0 (never) is behind on both cells, every c with 9 <= 10 c on one; of those,
    # 10 c < 129 (Frank-Wolfe on the wide cell, 0.75) beats c >= 16 (0.7): smallest 1
    assert choose_weights_scale(small, reference, keep=0.0) == 1.0
    assert choose_weights_scale(small, reference, keep=8.0) == 8.0  # in use, kept
    assert choose_weights_scale(small, reference, keep=32.0) == 1.0  # not accurate
    never = _weights_record(False, False)
    assert choose_weights_scale(never, _reference(never, 0.65), keep=32.0) == 0.0
    both = _weights_record(True, True)
    assert choose_weights_scale(both, _reference(both, 0.75), keep=0.0) == 16.0  # 129 <= 160
    assert choose_weights_scale(both, _reference(both, 0.75), keep=32.0) == 32.0
    summary = weights_summary(small, reference).set_index("scale")
    assert summary.loc[0.0, "mean_accuracy"] == pytest.approx(0.7)
    assert summary.loc[1.0, "mean_accuracy"] == pytest.approx(0.75)
    assert list(summary.loc[[0.0, 1.0, 32.0], "behind_reference"]) == [1.0, 0.5, 0.5]
    assert summary.loc[32.0, "objective_perturbation"] == 1.0


def test_the_margin_saturates_at_the_margin_design_s_largest_rows_times_budget():
    """The library stops the margin's growth at the first thousand above the committed
    margin design's largest n eps_j
    (:data:`~dplasso.estimators.joint_release.MARGIN_SATURATION`): no design cell is scored
    past it."""
    from dplasso.estimators.joint_release import MARGIN_SATURATION
    from dplasso.estimators.sparsifier import sparsifier_budget
    cells = design_record("margin")[["n_train", "epsilon"]].drop_duplicates()
    reach = [n * (e - sparsifier_budget(e, n)[2]) for n, e in zip(cells["n_train"],
                                                                 cells["epsilon"])]
    assert max(reach) <= MARGIN_SATURATION < max(reach) + 1000


def test_choose_selection_reads_only_budgets_of_at_least_one():
    record = pd.DataFrame({
        "epsilon": [0.5, 0.5, 1.0, 1.0, 5.0, 5.0],
        "selection": ["laplace", "exponential"] * 3,
        "accuracy": [0.99, 0.10, 0.60, 0.62, 0.70, 0.71]})
    assert choose_selection(record) == "exponential"
    record.loc[4, "accuracy"] = 0.80  # laplace ahead on the mean over eps >= 1
    assert choose_selection(record) == "laplace"


def test_joint_summary_scores_each_cell_at_its_rule_s_share():
    fractions = np.round(np.arange(1, 9) / 10, 1)
    record = pd.DataFrame([
        {**BINARY_FAMILY[0], "n_train": 100, "epsilon": epsilon, "fraction": f,
         "size_decay": 0.0, "constant_odds": 0.0, "accuracy": f + epsilon / 100,
         "below": 0.0, "size_q25": 0, "size_q75": 0, "nnz": 1.0}
        for epsilon in (1.0, 5.0) for f in fractions])
    reference = _reference(record, 0.0)
    summary = joint_summary(record, reference, scales=(4.0, 7.0)).set_index("share_scale")
    # n eps = 100 and 500: c = 4 gives shares 0.4 and 0.2, c = 7 gives 0.7 and 0.3
    assert summary.loc[4.0, "accuracy, ε=1"] == 0.4 + 0.01
    assert summary.loc[4.0, "accuracy, ε=5"] == 0.2 + 0.05
    assert summary.loc[7.0, "accuracy, ε=1"] == 0.7 + 0.01
    assert summary.loc[7.0, "accuracy, ε=5"] == 0.3 + 0.05
    # accuracy grows with the share: the largest scale gives the largest shares (0.8, 0.5)
    assert choose_joint(record, reference) == {"share_scale": max(JOINT_SHARE_SCALES),
                                               "size_decay": 0.0, "constant_odds": 0.0}
    record["accuracy"] = 1.0 - record["fraction"] + record["epsilon"] / 100
    assert choose_joint(record, reference)["share_scale"] == min(JOINT_SHARE_SCALES)


def test_choose_joint_takes_fewer_cells_behind_the_reference_over_mean_accuracy():
    """Two configurations: alpha 0 is the more accurate on the mean (0.70) but 5 points
    behind the reference (0.65) on one; alpha 1 (0.66 on both) is behind on none."""
    record = pd.DataFrame([
        {**config, "n_train": 100, "epsilon": 1.0, "fraction": f, "size_decay": alpha,
         "constant_odds": 0.0, "accuracy": accuracy, "below": 0.0, "size_q25": 0,
         "size_q75": 0, "nnz": 1.0}
        for alpha, accuracies in ((0.0, (0.80, 0.60)), (1.0, (0.66, 0.66)))
        for config, accuracy in zip(BINARY_FAMILY[:2], accuracies)
        for f in np.round(np.arange(1, 9) / 10, 1)])
    summary = joint_summary(record, _reference(record, 0.65))
    assert set(summary.loc[summary["size_decay"] == 0.0, "behind_reference"]) == {0.5}
    assert choose_joint(record, _reference(record, 0.65))["size_decay"] == 1.0
    assert choose_joint(record, _reference(record, 0.50))["size_decay"] == 0.0


def test_joint_summary_rejects_a_record_without_a_share_its_rule_gives():
    record = pd.DataFrame([
        {**BINARY_FAMILY[0], "n_train": 100, "epsilon": 1.0, "fraction": f,
         "size_decay": 0.0, "constant_odds": 0.0, "accuracy": 0.6, "below": 0.0,
         "size_q25": 0, "size_q75": 0, "nnz": 1.0}
        for f in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8)])
    reference = _reference(record, 0.6)
    joint_summary(record, reference, scales=(4.0,))  # c = 4 gives 0.4 at n eps = 100
    with pytest.raises(ValueError, match=r"no rows at the shares \[0\.7\]"):
        joint_summary(record, reference, scales=(4.0, 7.0))


def test_radius_design_runs_the_default_with_frank_wolfe_weights_at_each_radius():
    config = BINARY_FAMILY[0]
    record = radius_design([config], epsilons=(2.0,), radii=(1.0, 10.0), n_trials=2)
    X_train, y_train, X_test, y_test, _ = design_split(config)
    for index, lam in enumerate((1.0, 10.0)):
        fit = sparsify_trials(X_train, y_train, epsilon=2.0, n_trials=2, lam=lam, n_iter="auto",
                              count="joint", threshold="private", selection="exponential",
                              weights="frank-wolfe",
                              random_state=np.random.default_rng([0, 2000, index]))
        accuracy = evaluate_weights(fit.W, fit.intercept, X_test, y_test)["accuracy"]
        row = record[record["lam"] == lam].iloc[0]
        assert row["accuracy"] == pytest.approx(accuracy.mean(), abs=1e-12)


def _radius_record(gap_at_one):
    """Radius 10 behind radius 1 by ``gap_at_one`` at eps 1 (and level at eps 5); eps 0.5,
    which the rule does not read, puts radius 40 far ahead."""
    rows = []
    for lam, at_half, at_one in ((1.0, 0.60, 0.70), (10.0, 0.60, 0.70 - gap_at_one),
                                 (40.0, 0.95, 0.60)):
        for epsilon, accuracy in ((0.5, at_half), (1.0, at_one), (5.0, 0.80)):
            rows.append({"lam": lam, "epsilon": epsilon, "accuracy": accuracy, "below": 0.0})
    return pd.DataFrame(rows)


def test_choose_radius_keeps_p1_s_radius_unless_another_is_beyond_the_tolerance():
    assert choose_radius(_radius_record(0.005)) == 10.0  # within a point: kept
    assert choose_radius(_radius_record(0.02)) == 1.0  # two points behind: replaced
    summary = radius_summary(_radius_record(0.02)).set_index("lam")
    assert list(summary["accurate"]) == [True, False, False]
    assert summary.loc[1.0, "mean_accuracy"] == pytest.approx(0.75)


def test_the_design_script_s_workers_give_the_table_of_one_process(monkeypatch):
    """``benchmarks/design_defaults.py --jobs`` runs one task per configuration: the same
    rows, in the same order, as one call over every configuration."""
    spec = importlib.util.spec_from_file_location(
        "design_defaults", Path(__file__).resolve().parents[3] / "benchmarks" /
        "design_defaults.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    tiny = partial(margin_design, epsilons=(2.0,), odds=(0.0,), margins=(0.0, 1.0))
    configs = (BINARY_FAMILY[0], NULL_FAMILY[1])
    monkeypatch.setitem(script.TABLES, "tiny", (tiny, configs, 2))
    pd.testing.assert_frame_equal(script.design_table("tiny", jobs=2),
                                  tiny(list(configs), n_trials=2))
