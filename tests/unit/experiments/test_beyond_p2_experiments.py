"""Beyond P2's experiment functions and tables on tiny problems (shapes, budgets, errors)."""
import numpy as np
import pandas as pd
import pytest

from dplasso.experiments import beyond_p2
from dplasso.experiments.beyond_p2 import choose_rule, real_experiment, synthetic_experiment
from dplasso.experiments.beyond_p2_display import (
    choice_table,
    frequency_table,
    headline_table,
    setting,
    verdict_facts,
)
from dplasso.experiments.columns import ScaledNoisyMinSelector

TINY = dict(n=240, p=30, n_pos=3, n_neg=3, n_test=60, epsilons=[1.0, 4.0], everys=[1, 3],
            shares=["equal", 0.2], n_trials=2)


@pytest.fixture(scope="module")
def synthetic():
    return synthetic_experiment(seeds=[0, 1], **TINY)


def test_synthetic_rows_cover_every_configuration_at_equal_budget(synthetic):
    private = synthetic[synthetic["variant"] != beyond_p2.REFERENCE]
    # no screening + Algorithm 1 at two frequencies + the rule at two frequencies x two shares
    per_cell = private.groupby(["data", "seed", "epsilon"]).size()
    assert (per_cell == (1 + 2 + 4) * TINY["n_trials"]).all()
    assert len(per_cell) == 2 * 2 * 2
    assert (private["epsilon_composed"] <= private["epsilon"] * (1 + 1e-12)).all()
    assert (private["epsilon_composed"] >= private["epsilon"] * (1 - 1e-6)).all()
    assert (private.groupby(["data", "seed", "epsilon"])["n_iter"].nunique() == 1).all()
    assert private["f1"].between(0, 1).all()
    assert (private["n_screened_true_nonzero"] <= private["n_true_nonzero"]).all()
    no_screening = private[private["variant"] == "no screening"]
    assert (no_screening["n_screened"] == 0).all()
    logistic = private[private["data"] == "logistic"]
    assert logistic["test_accuracy"].between(0, 1).all()
    assert private.loc[private["data"] == "linear", "test_accuracy"].isna().all()
    reference = synthetic[synthetic["variant"] == beyond_p2.REFERENCE]
    assert len(reference) == 4 and (reference["precision"] == 1).all()


def test_same_settings_same_results(synthetic):
    again = synthetic_experiment(seeds=[0, 1], **TINY)
    pd.testing.assert_frame_equal(again, synthetic)


def test_choice_and_tables(synthetic):
    chosen = choose_rule(synthetic)
    rule = synthetic[synthetic["variant"] == "one per round"]
    best = rule.groupby(["share", "every"])["f1"].mean().max()
    assert chosen["f1"] == best
    choice = choice_table(synthetic, chosen)
    assert (choice["chosen"] == "yes").sum() == 1 and choice["runs"].sum() == len(rule)
    results = synthetic.assign(source="synthetic")
    table = headline_table(results, chosen["every"], chosen["share"])
    assert len(table) == 2 * (2 * 3 + 1)
    assert set(table["variant"]) == {"no screening", "non-private",
                                     setting("Algorithm 1", chosen["every"]),
                                     setting("one per round", chosen["every"])}
    frequencies = frequency_table(results, chosen["share"])
    assert len(frequencies) == 2 * (1 + 2 + 2)
    facts = verdict_facts(results, chosen, 3)
    assert facts["synthetic"] == ["linear", "logistic"] and facts["real"] == []
    assert 0 <= facts["alg1_true_share_min"] <= facts["alg1_true_share_max"] <= 1


def test_real_experiment_against_the_nonprivate_support():
    real = real_experiment([15], n_splits=1, epsilons=[2.0], everys=[2], n_trials=2, lam=2.0)
    reference = real[real["variant"] == beyond_p2.REFERENCE]
    assert len(reference) == 1 and reference["f1"].iloc[0] == 1
    private = real[real["variant"] != beyond_p2.REFERENCE]
    assert set(private["variant"]) == set(beyond_p2.VARIANTS)
    assert (private["data_id"] == 15).all()


@pytest.mark.parametrize("bad, match", [
    (dict(tasks=["quadratic"]), "tasks"),
    (dict(seeds=[0, 0]), "distinct"),
    (dict(epsilons=[0.0]), "epsilon"),
    (dict(shares=[1.5]), "share"),
    (dict(everys=[0]), "every"),
    (dict(everys=[500]), "no round"),
    (dict(n_trials=0), "n_trials"),
    (dict(delta=1.0), "delta"),
])
def test_synthetic_experiment_rejects_bad_arguments(bad, match):
    with pytest.raises(ValueError, match=match):
        synthetic_experiment(**{**TINY, **bad})


def test_real_experiment_rejects_an_unknown_dataset():
    with pytest.raises(ValueError, match=r"dataset 28 \(optdigits\) is multiclass, not binary"):
        real_experiment([28])


def test_scaled_selector_matches_report_noisy_min_per_column():
    scores = np.array([[0.0, 0.0], [1.0, 1.0], [0.5, 0.5]])
    select = ScaledNoisyMinSelector([1e-9, 1e3])
    chosen = np.array([select(scores, np.random.default_rng(s)) for s in range(400)])
    assert (chosen[:, 0] == 0).all()  # tiny noise: the minimum
    assert len(set(chosen[:, 1])) == 3  # huge noise: every candidate wins sometimes
    with pytest.raises(ValueError, match="scales"):
        ScaledNoisyMinSelector([1.0, 0.0])
