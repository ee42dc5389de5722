"""What the baseline classifiers share: binary labels, the data domain, the check-fit-spend
flow of a private fit with its private threshold, and the released sparsity level."""
from __future__ import annotations

import numpy as np

from dplasso.baselines._inputs import check_positive_int
from dplasso.baselines.estimators.accounting import (
    account_fit,
    fit_with_private_count,
    with_private_threshold,
)
from dplasso.estimators.base import FrankWolfeClassifierBase, holding_budget
from dplasso.estimators.count import COUNT_NOISES, lasso_support_size
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.params import (
    check_accountant,
    check_choice,
    check_count_sensitivity,
    check_epsilon,
    check_fraction,
)
from dplasso.estimators.problem import apply_bounds
from dplasso.estimators.threshold import split_threshold_budget
from dplasso.optim.validation import check_lam
from dplasso.privacy.rng import as_generator

__all__ = ["BinaryBaselineClassifier", "PrivateBaselineClassifier", "CountedSparsityMixin"]


def _check_binary(classes, estimator):
    if classes.size != 2:
        raise ValueError(
            f"Only binary classification is supported: {estimator} needs y with exactly two "
            f"classes, got {classes.size}"
        )


def _check_n_nonzero(n_nonzero):
    if isinstance(n_nonzero, str):
        return check_choice(n_nonzero, "n_nonzero", ("count",))
    return check_positive_int(n_nonzero, "n_nonzero")


class BinaryBaselineClassifier(FrankWolfeClassifierBase):
    """Shared pieces: binary labels only, the data domain, the fitted linear model."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _training_data(self, X, y):
        """``(X, y01, classes)``: checked, two classes, rows in the domain (or clipped)."""
        X, y_encoded, classes = self._validate_training_data(X, y, stacklevel=4)
        _check_binary(classes, type(self).__name__)
        return apply_bounds(X, self.bounds), y_encoded, classes

    def _set_fit(self, fit, classes):
        intercept = 0.0 if fit.intercept is None else fit.intercept
        self._set_model(fit.coef[:, np.newaxis], np.array([intercept]), classes)


@shared_docs
class PrivateBaselineClassifier(BinaryBaselineClassifier):
    """The check-fit-spend flow of a private baseline; subclasses supply the method."""

    _private_fit = True

    def _check_method_params(self):
        """Validate the method's own parameters (before any data is looked at)."""
        raise NotImplementedError

    def _deltas(self, epsilon, n_samples):
        """``(delta_for_the_method, delta_spent)`` for ``n`` rows (public)."""
        raise NotImplementedError

    def _fit_private(self, X, y, epsilon, delta, rng):
        """Run the method on checked data; return an :class:`AccountedFit`."""
        raise NotImplementedError

    def fit(self, X, y):
        """Fit the model privately (check the budget, fit, spend).

        Parameters
        ----------
        {{training_rows}}
        y : array-like of shape (n,)
            Labels, exactly two classes.

        Returns
        -------
        self

        Raises
        ------
        {{budget_refused}}
        """
        epsilon = check_epsilon(self.epsilon)
        epsilon_threshold, epsilon_method = split_threshold_budget(
            epsilon, self.threshold, self.threshold_fraction)
        self._check_method_params()
        accountant = check_accountant(self.accountant)
        X, y_encoded, classes = self._training_data(X, y)
        delta, delta_spent = self._deltas(epsilon_method, X.shape[0])
        with holding_budget(accountant, epsilon, delta_spent) as spend:
            rng = as_generator(self.random_state)
            result = self._fit_private(X, y_encoded, epsilon_method, delta, rng)
            if self.threshold == "private":
                result = with_private_threshold(result, X, y_encoded,
                                                epsilon=epsilon_threshold, rng=rng)
            spend(result.accounting)
        self._set_fit(result.fit, classes)
        self.privacy_ledger_ = result.ledger
        self.privacy_guarantee_ = result.guarantee
        return self


class CountedSparsityMixin:
    """``n_nonzero`` given, or released from the Sparsifier's count (``"count"``)."""

    def _check_count_params(self):
        _check_n_nonzero(self.n_nonzero)
        check_fraction(self.count_fraction, "count_fraction")
        check_count_sensitivity(self.count_sensitivity)
        check_choice(self.count_noise, "count_noise", COUNT_NOISES)
        check_lam(self.count_lam, name="count_lam")

    def _fit_sparse(self, fit_function, X, y, epsilon, delta, rng, **fit_params):
        if self.n_nonzero == "count":
            count = lasso_support_size(X, y, lam=self.count_lam,
                                       fit_intercept=self.fit_intercept)
            result = fit_with_private_count(
                fit_function, X, y, count=count, epsilon=epsilon, delta=delta,
                count_fraction=self.count_fraction, count_sensitivity=self.count_sensitivity,
                count_noise=self.count_noise, random_state=rng,
                fit_intercept=self.fit_intercept, **fit_params)
        else:
            fit = fit_function(X, y, epsilon=epsilon, delta=delta, n_nonzero=self.n_nonzero,
                               fit_intercept=self.fit_intercept, random_state=rng,
                               **fit_params)
            result = account_fit(fit, delta, int(self.n_nonzero))
        self.n_nonzero_target_ = int(result.n_nonzero_target)
        return result

