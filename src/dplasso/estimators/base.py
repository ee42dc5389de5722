"""What the Frank-Wolfe LASSO classifiers share: training-data checks and the linear model.

The scikit-learn contract through public pieces only (``BaseEstimator``, ``ClassifierMixin``,
``sklearn.utils.validation``): ``__init__`` stores, ``fit`` validates and sets attributes
with a trailing underscore, prediction is the linear model ``X coef_.T + intercept_``.
Coefficient layout follows scikit-learn's linear classifiers: ``coef_`` of shape ``(1, p)``
and ``intercept_`` of shape ``(1,)`` for two classes (the positive class is ``classes_[1]``),
``(C, p)`` and ``(C,)`` for ``C > 2`` classes (multinomial).
"""
from __future__ import annotations

import contextlib
import re

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from dplasso.estimators.params import check_bool, check_choice
from dplasso.estimators.problem import BOUNDS, apply_bounds

__all__ = ["FrankWolfeClassifierBase", "spend_budget"]

_ACCEPT_SPARSE = ("csr", "csc")


def spend_budget(accountant, accounting):
    """Record each separately composed part of a fit's ledger with ``accountant``.

    Parameters
    ----------
    accountant : BudgetAccountant
    accounting : tuple of (PrivacyLedger, PrivacyGuarantee)
        From :class:`~dplasso.estimators.private_frank_wolfe.TrialsResult`; each ledger is
        spent under the composition rule its guarantee states (the events are pure, so the
        guarantee's ``delta`` is the rule's slack or target).
    """
    for ledger, guarantee in accounting:
        delta = None if guarantee.method == "basic" else guarantee.delta
        accountant.spend(ledger, guarantee.method, delta)


@contextlib.contextmanager
def _naming_the_input(default="X"):
    """Re-raise scikit-learn's input errors with the argument named (``X``, ``y`` or both)."""
    try:
        yield
    except ValueError as err:
        message = str(err)
        if re.search(r"\b[Xy]\b", message):
            raise
        if "inconsistent numbers of samples" in message:
            raise ValueError(f"X and y have {message[message.index('inconsistent'):]}") from None
        raise ValueError(f"{default}: {message}") from None


class FrankWolfeClassifierBase(ClassifierMixin, BaseEstimator):
    """Base class: label encoding, input checks, prediction. Not an estimator on its own.

    Subclasses define ``fit`` and the parameters ``fit_intercept`` and ``bounds``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_training_data(self, X, y):
        """Checked ``X`` (sparse kept), labels encoded ``0..C-1``, and ``classes_``.

        Raises
        ------
        ValueError
            On empty or non-finite ``X``, a length mismatch, a continuous target, a single
            class, or an invalid ``fit_intercept``/``bounds`` (the data domain itself is
            checked when the design is built).
        """
        check_bool(self.fit_intercept, "fit_intercept")
        check_choice(self.bounds, "bounds", BOUNDS)
        with _naming_the_input():
            X, y = validate_data(self, X, y, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64)
        with _naming_the_input("y"):
            check_classification_targets(y)
        classes, y_encoded = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"y contains one class only ({classes[0]!r}); a classifier needs at least "
                "two classes"
            )
        return X, y_encoded, classes

    def _set_model(self, W, intercept, classes):
        """Store ``classes_``, ``coef_`` and ``intercept_`` from one trial's weights.

        ``W`` has shape ``(p, 1)`` (binary) or ``(p, C, 1)``; ``intercept`` ``(1,)`` or
        ``(C, 1)``.
        """
        self.classes_ = classes
        if W.ndim == 2:
            self.coef_ = W[:, 0][np.newaxis, :].copy()
            self.intercept_ = np.asarray(intercept, dtype=np.float64).reshape(1)
        else:
            self.coef_ = W[:, :, 0].T.copy()
            self.intercept_ = np.asarray(intercept, dtype=np.float64)[:, 0].copy()

    def decision_function(self, X):
        """Linear scores: ``(n,)`` for two classes (of ``classes_[1]``), else ``(n, C)``.

        ``X`` meets the data domain as in ``fit``: with ``bounds="clip"`` it is clipped to
        ``[-1, 1]``, with ``bounds="error"`` a row outside it raises ``ValueError``.
        """
        check_is_fitted(self)
        with _naming_the_input():
            X = validate_data(self, X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64,
                              reset=False)
        X = apply_bounds(X, self.bounds)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        """Class probabilities ``(n, C)``: logistic for two classes, softmax otherwise."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = expit(scores)
            return np.column_stack([1.0 - positive, positive])
        return softmax(scores, axis=1)

    def predict(self, X):
        """The class with the largest score."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
