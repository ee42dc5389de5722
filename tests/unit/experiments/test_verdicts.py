"""The one rule for a clear difference (``dplasso.experiments.verdicts``). Not statistical."""
import numpy as np
import pandas as pd

from dplasso.experiments.verdicts import CLEAR_Z, VERDICTS, clear_verdicts


def test_a_difference_is_clear_beyond_two_standard_errors_only():
    mean = np.array([0.3, 0.2, 0.1, -0.2, -0.21, 0.0, 0.5, -0.5])
    se = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.0, np.nan, 0.0])
    verdicts = clear_verdicts(mean, se)
    # at exactly two standard errors a difference is not clear; no spread with a nonzero
    # mean is clear; a NaN standard error (one trial) is a tie
    assert verdicts.labels.tolist() == ["better", "tie", "tie", "tie", "worse", "tie", "tie",
                                        "worse"]
    assert (verdicts.better, verdicts.tie, verdicts.worse) == (1, 5, 2)
    assert CLEAR_Z == 2.0 and VERDICTS == ("better", "tie", "worse")


def test_verdicts_keep_the_cells_shape_and_take_a_scalar_error_and_another_margin():
    mean = pd.Series([1.0, -1.0, 0.5], index=["a", "b", "c"])
    verdicts = clear_verdicts(mean, 0.3)
    assert verdicts.labels.tolist() == ["better", "worse", "tie"]
    assert clear_verdicts(mean, 0.3, z=1.0).labels.tolist() == ["better", "worse", "better"]
    assert clear_verdicts([], []).labels.shape == (0,)
    grid = clear_verdicts(np.ones((2, 3)), np.full((2, 3), 0.4))
    assert grid.labels.shape == (2, 3) and grid.better == 6
