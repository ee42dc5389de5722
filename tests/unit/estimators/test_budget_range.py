"""Budgets, deltas and step counts at the ends of their documented ranges: every private
estimator fits at both ends of ``EPSILON_RANGE`` and at ``MIN_DELTA``, and refuses what lies
outside with a message naming the parameter, before any work (the issue's 1e300 and 1e-300 gave
an OverflowError, a root finder's message, the exact sampler's "scale must be <= 2**40" and, for
private ADMM, an all-zero model)."""
import re
import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from experiment_sparsifier import ExperimentSparsifier
from dplasso.baselines import DPIGHTClassifier, PrivateADMMClassifier, TwoStageClassifier
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators import (
    FrankWolfeLassoClassifier,
    PrivateFrankWolfeLassoClassifier,
    SparsifierClassifier,
    private_frank_wolfe_trials,
)
from dplasso.estimators.params import EPSILON_RANGE, MIN_DELTA
from dplasso.optim.validation import DOMAIN_REMEDY, MAX_N_ITER, check_n_iter

DATA = sparse_logistic_synthetic(n=120, p=30, k=3, random_state=0)
Y3 = np.random.default_rng(0).integers(0, 3, DATA.X.shape[0])

# (estimator, extra parameters, labels); every private estimator and its calibrations
PRIVATE = [
    (PrivateFrankWolfeLassoClassifier, {}, 2),
    (PrivateFrankWolfeLassoClassifier, {"selection": "exponential"}, 2),
    (PrivateFrankWolfeLassoClassifier, {}, 3),
    (SparsifierClassifier, {}, 2),
    (SparsifierClassifier, {}, 3),
    (ExperimentSparsifier, {}, 2),
    (ExperimentSparsifier, {"count": "block-median"}, 2),
    (ExperimentSparsifier, {"count": "noise-floor"}, 2),
    (ExperimentSparsifier, {}, 3),
    (TwoStageClassifier, {}, 2),
    (TwoStageClassifier, {"noise": "gaussian"}, 2),
    (PrivateADMMClassifier, {}, 2),
    (DPIGHTClassifier, {}, 2),
]
IDS = [f"{cls.__name__}-{'-'.join(map(str, extra.values())) or 'default'}-{c}"
       for cls, extra, c in PRIVATE]


def _fit(cls, extra, n_classes, **params):
    y = DATA.y if n_classes == 2 else Y3
    return cls(classes=list(range(n_classes)), random_state=0, **extra, **params).fit(DATA.X, y)


@pytest.mark.parametrize("cls, extra, n_classes", PRIVATE, ids=IDS)
@pytest.mark.parametrize("epsilon", EPSILON_RANGE, ids=["min-epsilon", "max-epsilon"])
@pytest.mark.parametrize("delta", [MIN_DELTA, None], ids=["min-delta", "default-delta"])
def test_every_private_estimator_fits_at_the_ends_of_the_range(cls, extra, n_classes,
                                                                epsilon, delta):
    model = _fit(cls, extra, n_classes, epsilon=epsilon, delta=delta)
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.intercept_))
    assert model.privacy_guarantee_.epsilon <= epsilon * (1 + 1e-9)


OUTSIDE = [1e300, 1e-300, 1e-30, 2e12, 5e-7]


@pytest.mark.parametrize("cls, extra, n_classes", PRIVATE, ids=IDS)
@pytest.mark.parametrize("epsilon", OUTSIDE, ids=[f"epsilon={e:g}" for e in OUTSIDE])
def test_a_budget_outside_the_range_is_refused_naming_epsilon(cls, extra, n_classes, epsilon):
    with pytest.raises(ValueError, match=re.escape(
            f"epsilon must lie in [1e-06, 1e+12], the budgets where the noise calibration "
            f"is defined (dplasso.estimators.params.EPSILON_RANGE), got {epsilon!r}")):
        _fit(cls, extra, n_classes, epsilon=epsilon)


@pytest.mark.parametrize("cls, extra, n_classes", PRIVATE, ids=IDS)
@pytest.mark.parametrize("delta", [1e-310, 5e-324])
def test_a_subnormal_delta_is_refused_naming_delta(cls, extra, n_classes, delta):
    with pytest.raises(ValueError, match=r"^delta must be 0 or at least 1e-300 .*got "
                                         + re.escape(repr(delta))):
        _fit(cls, extra, n_classes, epsilon=1.0, delta=delta)


def test_private_admm_at_the_issues_tiny_budget_is_refused_not_an_all_zero_model():
    with pytest.raises(ValueError, match="epsilon must lie in"):
        PrivateADMMClassifier(epsilon=1e-300, classes=[0, 1], random_state=0).fit(DATA.X, DATA.y)


def test_the_batched_entry_point_checks_the_range_too():
    with pytest.raises(ValueError, match="epsilon must lie in"):
        private_frank_wolfe_trials(DATA.X, DATA.y, lam=10.0, n_iter=5, epsilon=1e300,
                                   random_state=0)


N_ITER = [
    (FrankWolfeLassoClassifier, {}),
    (PrivateFrankWolfeLassoClassifier, {"epsilon": 1.0}),
    (SparsifierClassifier, {"epsilon": 1.0}),
    (PrivateADMMClassifier, {"epsilon": 1.0}),
    (DPIGHTClassifier, {"epsilon": 1.0}),
]


@pytest.mark.parametrize("cls, params", N_ITER, ids=[c.__name__ for c, _ in N_ITER])
def test_n_iter_beyond_the_maximum_is_refused_before_any_work(cls, params):
    started = time.process_time()
    with pytest.raises(ValueError, match=re.escape(
            f"n_iter must be <= {MAX_N_ITER} (dplasso.optim.validation.MAX_N_ITER), "
            f"got {10**9}")):
        cls(n_iter=10**9, classes=[0, 1], **params).fit(DATA.X, DATA.y)
    assert time.process_time() - started < 1.0


def test_the_maximum_itself_is_allowed():
    assert check_n_iter(MAX_N_ITER) == MAX_N_ITER
    with pytest.raises(ValueError, match="every must be <="):
        check_n_iter(MAX_N_ITER + 1, name="every")


def test_the_domain_error_suggests_public_bounds_first_then_clipping_with_its_cost():
    raw, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError) as excinfo:
        PrivateFrankWolfeLassoClassifier(epsilon=0.5, classes=[0, 1]).fit(raw, y)
    message = str(excinfo.value)
    assert message.endswith(DOMAIN_REMEDY)
    assert message.index("bounds known in advance") < message.index('bounds="clip"')
    assert "becomes a constant" in DOMAIN_REMEDY
    # The library page's example of that cost: clipping raw breast-cancer makes 9 of its 30
    # features constant.
    clipped = np.clip(raw, -1.0, 1.0)
    assert (np.ptp(clipped, axis=0) == 0).sum() == 9 and raw.shape[1] == 30
