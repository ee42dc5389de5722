"""A BudgetAccountant is a shared ledger: scikit-learn's cloning spends on the user's object,
and a pickled copy (process-based parallelism) refuses instead of spending on itself."""
import copy
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score

from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators import PrivateFrankWolfeLassoClassifier
from dplasso.privacy import BudgetAccountant
from dplasso.privacy.accounting import DetachedAccountantError, PrivacyLedger
from dplasso.privacy.laplace import laplace_event


def binary_problem(n, p):
    data = sparse_logistic_synthetic(n=n, p=p, k=3, random_state=0)
    return data.X, data.y, data.w_true


def _model(accountant, epsilon=1.0):
    return PrivateFrankWolfeLassoClassifier(epsilon=epsilon, n_iter=5, accountant=accountant,
                                            threshold="none", classes=[0, 1], random_state=0)


def test_copies_and_clone_share_the_accountant():
    accountant = BudgetAccountant(epsilon=2.0, delta=0.5)
    assert copy.copy(accountant) is accountant
    assert copy.deepcopy(accountant) is accountant
    assert clone(_model(accountant)).accountant is accountant


def test_spending_through_clone_lands_on_the_users_accountant():
    X, y, _ = binary_problem(n=200, p=8)
    accountant = BudgetAccountant(epsilon=2.0, delta=0.5)
    clone(_model(accountant)).fit(X, y)
    assert [g.epsilon for g in accountant.spent] == pytest.approx([1.0])


def test_cross_val_score_spends_every_fold_and_refuses_past_the_budget():
    X, y, _ = binary_problem(n=300, p=8)
    accountant = BudgetAccountant(epsilon=3.0, delta=0.5)
    scores = cross_val_score(_model(accountant), X, y, cv=3, error_score="raise")
    assert scores.shape == (3,)
    assert accountant.total_spent().epsilon == pytest.approx(3.0)
    assert accountant.remaining().epsilon == pytest.approx(0.0)
    with pytest.raises(ValueError, match="exceeds the remaining budget"):
        cross_val_score(_model(accountant), X, y, cv=3, error_score="raise")


def test_grid_search_with_one_job_spends_every_fit_and_the_refit():
    X, y, _ = binary_problem(n=300, p=8)
    accountant = BudgetAccountant(epsilon=10.0, delta=0.5)
    search = GridSearchCV(_model(accountant, epsilon=0.5), {"lam": [1.0, 10.0]}, cv=3,
                          n_jobs=1, error_score="raise").fit(X, y)
    assert len(accountant.spent) == 2 * 3 + 1  # six folds, then the refit
    assert accountant.total_spent().epsilon == pytest.approx(3.5)
    assert search.best_estimator_.accountant is accountant


def test_pickled_accountant_is_detached_and_refuses():
    accountant = BudgetAccountant(epsilon=2.0, delta=0.5)
    ledger = PrivacyLedger()
    ledger.record(laplace_event(1.0, 2.0))
    accountant.spend(ledger)
    copy_ = pickle.loads(pickle.dumps(accountant))
    assert copy_.detached and not accountant.detached
    assert copy_.spent == accountant.spent  # kept as a record
    for call in (lambda: copy_.check(0.1), lambda: copy_.spend(ledger)):
        with pytest.raises(DetachedAccountantError, match="pickled copy.*n_jobs=1"):
            call()
    assert len(accountant.spent) == 1


def test_fit_with_a_detached_accountant_refuses_before_any_work():
    X, y, _ = binary_problem(n=200, p=8)
    detached = pickle.loads(pickle.dumps(BudgetAccountant(epsilon=2.0, delta=0.5)))
    model = _model(detached)
    with pytest.raises(DetachedAccountantError):
        model.fit(X, y)
    assert not hasattr(model, "coef_")


def test_process_parallel_grid_search_refuses_instead_of_spending_on_copies():
    X, y, _ = binary_problem(n=200, p=8)
    accountant = BudgetAccountant(epsilon=10.0, delta=0.5)
    search = GridSearchCV(_model(accountant, epsilon=0.5), {"lam": [1.0, 10.0]}, cv=2,
                          n_jobs=2, error_score="raise")
    with pytest.raises(DetachedAccountantError, match="pickled copy"):
        search.fit(X, y)
    assert accountant.spent == ()
    assert np.isclose(accountant.remaining().epsilon, 10.0)
