"""The selection design run and its rule (:mod:`dplasso.experiments.design`)."""
import numpy as np
import pandas as pd

from dplasso.estimators import sparsify_trials
from dplasso.experiments.design import (
    BINARY_FAMILY,
    choose_selection,
    design_split,
    selection_design,
)
from dplasso.experiments.p1 import evaluate_weights


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


def test_choose_selection_reads_only_budgets_of_at_least_one():
    record = pd.DataFrame({
        "epsilon": [0.5, 0.5, 1.0, 1.0, 5.0, 5.0],
        "selection": ["laplace", "exponential"] * 3,
        "accuracy": [0.99, 0.10, 0.60, 0.62, 0.70, 0.71]})
    assert choose_selection(record) == "exponential"
    record.loc[4, "accuracy"] = 0.80  # laplace ahead on the mean over eps >= 1
    assert choose_selection(record) == "laplace"
