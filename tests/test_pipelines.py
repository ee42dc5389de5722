"""Every public estimator composes with scikit-learn: behind a scaler in a pipeline, in
``cross_val_score`` and ``GridSearchCV``, and predicting rows outside the data domain.

The domain ``||x_i||_inf <= 1`` is a contract on the training rows (what the privacy proofs
need), so only ``fit`` enforces it; ``predict``, ``predict_proba`` and ``decision_function``
clip any finite row to ``[-1, 1]``. A ``MinMaxScaler`` fitted on a training fold maps the
test fold partly outside ``[0, 1]``; before prediction clipped, every such score was an
error. The data are scikit-learn's breast-cancer set (569 rows, 30 features, two classes),
scaled by :class:`~dplasso.data.PublicRangeScaler` with the ranges its documentation states,
or by ``MinMaxScaler``; the multinomial path runs on the wine set (178 rows, 3 classes).
"""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from breast_cancer import documented_ranges
from dplasso.baselines import (
    DPIGHTClassifier,
    NonPrivateLassoClassifier,
    ObjectivePerturbationClassifier,
    PrivateADMMClassifier,
    TwoStageClassifier,
)
from dplasso.data import PublicRangeScaler
from dplasso.estimators import (
    FrankWolfeLassoClassifier,
    PrivateFrankWolfeLassoClassifier,
    SparseDPLogisticRegression,
    SparsifierClassifier,
)

NONPRIVATE = [FrankWolfeLassoClassifier, NonPrivateLassoClassifier]
PRIVATE = [PrivateFrankWolfeLassoClassifier, SparsifierClassifier, SparseDPLogisticRegression,
           TwoStageClassifier, PrivateADMMClassifier, DPIGHTClassifier,
           ObjectivePerturbationClassifier]
MULTICLASS = [FrankWolfeLassoClassifier, PrivateFrankWolfeLassoClassifier, SparsifierClassifier,
              SparseDPLogisticRegression, ObjectivePerturbationClassifier]


def _estimator(cls, classes=(0, 1)):
    """Defaults, the public label set, and for a private one epsilon = 1 and a fixed seed."""
    if cls in NONPRIVATE:
        return cls(classes=list(classes))
    return cls(epsilon=1.0, classes=list(classes), random_state=0)


SCALERS = {"public-range": lambda: PublicRangeScaler(*documented_ranges()),
           "min-max": MinMaxScaler}


@pytest.mark.parametrize("scaler", SCALERS)
@pytest.mark.parametrize("cls", NONPRIVATE + PRIVATE, ids=lambda cls: cls.__name__)
def test_cross_validation_scores_are_finite_behind_a_scaler(cls, scaler):
    X, y = load_breast_cancer(return_X_y=True)
    pipeline = make_pipeline(SCALERS[scaler](), _estimator(cls))
    scores = cross_val_score(pipeline, X, y, cv=3, error_score="raise")
    assert np.all((scores >= 0) & (scores <= 1)), scores


@pytest.mark.parametrize("scaler", SCALERS)
@pytest.mark.parametrize("cls", NONPRIVATE + PRIVATE, ids=lambda cls: cls.__name__)
def test_grid_search_scores_are_finite_and_the_refit_predicts(cls, scaler):
    X, y = load_breast_cancer(return_X_y=True)
    pipeline = make_pipeline(SCALERS[scaler](), _estimator(cls))
    step = pipeline.steps[-1][0]
    search = GridSearchCV(pipeline, {f"{step}__fit_intercept": [True, False]}, cv=3,
                          error_score="raise").fit(X, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert set(search.predict(np.full((2, 30), 1e4))) <= {0, 1}


@pytest.mark.parametrize("cls", NONPRIVATE + PRIVATE, ids=lambda cls: cls.__name__)
def test_prediction_clips_any_finite_row_and_leaves_rows_in_the_domain_as_they_are(cls):
    X, y = load_breast_cancer(return_X_y=True)
    scaled = PublicRangeScaler(*documented_ranges()).fit_transform(X)
    assert "accept any finite row and clip it" in " ".join(cls.__doc__.split())
    model = _estimator(cls).fit(scaled, y)
    tens = np.full((1, 30), 10.0)
    assert model.predict(tens)[0] in (0, 1)
    assert np.all(np.isfinite(model.predict_proba(tens)))
    np.testing.assert_array_equal(model.decision_function(tens),
                                  model.decision_function(np.ones((1, 30))))
    np.testing.assert_array_equal(
        model.decision_function(scaled),
        (scaled @ model.coef_.T + model.intercept_)[:, 0])
    for bad, word in ((np.nan, "NaN"), (np.inf, "infinity")):
        with pytest.raises(ValueError, match=f"X contains {word}"):
            model.predict(np.where(np.arange(30) == 3, bad, 0.0)[np.newaxis, :])


@pytest.mark.parametrize("cls", NONPRIVATE + PRIVATE, ids=lambda cls: cls.__name__)
def test_fit_still_enforces_the_domain_on_the_training_rows(cls):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match=r"violates the data domain .* row 0 has sup norm"):
        _estimator(cls).fit(X, y)


@pytest.mark.parametrize("cls", MULTICLASS, ids=lambda cls: cls.__name__)
def test_the_multinomial_model_composes_and_predicts_a_row_of_tens(cls):
    X, y = load_wine(return_X_y=True)
    pipeline = make_pipeline(MinMaxScaler(), _estimator(cls, classes=(0, 1, 2)))
    scores = cross_val_score(pipeline, X, y, cv=3, error_score="raise")
    assert np.all((scores >= 0) & (scores <= 1)), scores
    model = pipeline.fit(X, y)[-1]
    tens = np.full((1, X.shape[1]), 10.0)
    assert model.coef_.shape == (3, X.shape[1])
    assert model.predict(tens)[0] in (0, 1, 2)
    np.testing.assert_array_equal(model.predict_proba(tens),
                                  model.predict_proba(np.ones_like(tens)))
