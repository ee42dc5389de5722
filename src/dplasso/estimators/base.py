"""What the Frank-Wolfe LASSO classifiers share: training-data checks and the linear model.

The scikit-learn contract through public pieces only (``BaseEstimator``, ``ClassifierMixin``,
``sklearn.utils.validation``): ``__init__`` stores, ``fit`` validates and sets attributes
with a trailing underscore, prediction is the linear model ``X coef_.T + intercept_`` on the
rows of ``X`` clipped to ``[-1, 1]`` (the data domain binds the training rows only).
Coefficient layout follows scikit-learn's linear classifiers: ``coef_`` of shape ``(1, p)``
and ``intercept_`` of shape ``(1,)`` for two classes (the positive class is ``classes_[1]``),
``(C, p)`` and ``(C,)`` for ``C > 2`` classes (multinomial).

**The label set is public.** Every classifier takes ``classes``, the label set, as a
parameter: ``classes_`` (hence the loss, the shape of ``coef_`` and the private fit's ``T``
and ``m``) then does not depend on which labels occur in ``y``, and a class absent from
``y`` is fitted like any other. Without it the labels are read from ``y``
(``numpy.unique``), which distinguishes neighbours that differ in a label's presence; a
private classifier then warns :class:`PrivacyLeakWarning`, once per fit.
"""
from __future__ import annotations

import contextlib
import re
import warnings

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from dplasso.estimators.params import check_bool, check_choice
from dplasso.estimators.problem import BOUNDS, clip_to_domain

__all__ = ["FrankWolfeClassifierBase", "PrivacyLeakWarning", "check_classes", "spend_budget",
           "holding_budget"]

_ACCEPT_SPARSE = ("csr", "csc")


class PrivacyLeakWarning(UserWarning):
    """A private fit used something from the data that its guarantee does not account for.

    Emitted once per fit by a private classifier fitted without ``classes``: the label set
    then comes from ``y``, and the output (``classes_``, the shape of ``coef_``, the number
    of steps) tells a dataset in which a label occurs from its neighbour in which it does
    not, so the stated epsilon does not hold for such neighbours.
    """


def check_classes(classes, y):
    """The public label set, sorted, and ``y`` encoded on it.

    ``y`` is encoded against ``classes`` by value alone (``True == 1 == 1.0``, ``"1" != 1``),
    with no guess at what kind of target it is: neighbours whose labels all lie in
    ``classes`` are encoded alike whatever their type or how many distinct labels occur, and
    a label outside ``classes`` raises one error, whatever its type.

    Parameters
    ----------
    classes : array-like of shape (C,)
        The label set (public: chosen without looking at ``y``), at least two distinct labels,
        none of them NaN, all comparable with one another (they are sorted).
    y : ndarray of shape (n,)
        Labels, each one of ``classes``.

    Returns
    -------
    classes : ndarray of shape (C,)
        Sorted (``numpy.unique`` order).
    y_encoded : ndarray of intp of shape (n,)
        ``classes[y_encoded] == y``.

    Raises
    ------
    ValueError
        If ``classes`` is not one-dimensional, holds NaN or labels that cannot be sorted
        together, repeats a label, has fewer than two labels, or misses a label of ``y``.
    """
    given = np.asarray(classes)
    if given.ndim != 1:
        raise ValueError(f"classes must be one-dimensional, got shape {given.shape}")
    if any(label != label for label in given.tolist()):
        raise ValueError(f"classes must not contain NaN, got {given.tolist()!r}")
    try:
        if not isinstance(classes, np.ndarray) and given.tolist() != list(classes):
            raise TypeError  # numpy turned mixed labels into strings: ["a", 1] -> ["a", "1"]
        sorted_classes = np.unique(given)
    except TypeError:
        raise ValueError(f"classes must be labels that sort together (all numbers or all "
                         f"strings), got {list(classes)!r}") from None
    if sorted_classes.size != given.size:
        raise ValueError(f"classes must not repeat a label, got {given.tolist()!r}")
    if sorted_classes.size < 2:
        raise ValueError(f"classes must hold at least two labels, got {given.tolist()!r}")
    return sorted_classes, _encode_labels(np.asarray(y), sorted_classes)


def _encode_labels(y, sorted_classes):
    """Indices of ``y``'s labels in ``sorted_classes``, by value (Python equality and hash)."""
    index = {label: i for i, label in enumerate(sorted_classes.tolist())}
    try:
        values, inverse = np.unique(y, return_inverse=True)
    except TypeError:  # labels that do not sort together: encode one by one
        values, inverse = np.asarray(y, dtype=object), np.arange(y.size)
    codes = np.empty(values.size, dtype=np.intp)
    for k, label in enumerate(values.tolist()):
        try:
            codes[k] = index[label]
        except (KeyError, TypeError):  # TypeError: an unhashable label
            raise ValueError(f"y contains the label {label!r}, which is not in classes="
                             f"{sorted_classes.tolist()!r}") from None
    return codes[inverse.reshape(-1)]


def spend_budget(accountant, accounting):
    """Record each separately composed part of a fit's ledger with ``accountant``.

    Parameters
    ----------
    accountant : BudgetAccountant or BudgetHold
        The accountant, or the fit's hold on it (:func:`holding_budget`).
    accounting : tuple of (PrivacyLedger, PrivacyGuarantee)
        From :class:`~dplasso.estimators.private_frank_wolfe.TrialsResult`; each ledger is
        spent under the composition rule its guarantee states (the events are pure, so the
        guarantee's ``delta`` is the rule's slack or target).
    """
    for ledger, guarantee in accounting:
        delta = None if guarantee.method == "basic" else guarantee.delta
        accountant.spend(ledger, guarantee.method, delta)


@contextlib.contextmanager
def holding_budget(accountant, epsilon, delta):
    """Hold a fit's whole ``(epsilon, delta)`` on ``accountant`` for the ``with`` block.

    The hold is taken at entry (:meth:`~dplasso.privacy.accounting.BudgetAccountant.reserve`:
    a fit that does not fit is refused there, before any work) and yields the function that
    spends the fit's ``accounting`` against it (:func:`spend_budget`); at exit what the fit
    did not spend is free again, all of it when the block raised. With ``accountant=None``
    nothing is held and the function does nothing.
    """
    if accountant is None:
        yield lambda accounting: None
        return
    with accountant.reserve(epsilon, delta) as hold:
        yield lambda accounting: spend_budget(hold, accounting)


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

    Subclasses define ``fit`` and the parameters ``fit_intercept``, ``bounds`` and
    ``classes``; private ones set ``_private_fit = True``.
    """

    _private_fit = False
    """Whether ``fit`` releases a private output (then a label set read from ``y`` warns)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_training_data(self, X, y, *, stacklevel=3):
        """Checked ``X`` (sparse kept), labels encoded ``0..C-1``, and ``classes_``.

        ``classes_`` is the public ``classes`` when given (:func:`check_classes`: ``y`` is
        encoded against it first, and scikit-learn's guesses at the target type, which
        depend on the labels that occur, never run); otherwise the labels of ``y``, checked
        by ``check_classification_targets``, with a :class:`PrivacyLeakWarning` from a
        private classifier (``stacklevel`` points it at the caller of ``fit``).

        Raises
        ------
        ValueError
            On empty or non-finite ``X``, a length mismatch, an invalid ``classes`` or a
            label outside it, or an invalid ``fit_intercept``/``bounds`` (the data domain
            itself is checked when the design is built); without ``classes``, on a target
            scikit-learn does not take for class labels (e.g. "continuous") or a single
            class.
        """
        check_bool(self.fit_intercept, "fit_intercept")
        check_choice(self.bounds, "bounds", BOUNDS)
        with _naming_the_input():
            X = validate_data(self, X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64)
        with _naming_the_input("y"):
            y = column_or_1d(y, warn=True)
        with _naming_the_input():
            check_consistent_length(X, y)
        if self.classes is not None:
            classes, y_encoded = check_classes(self.classes, y)
            return X, y_encoded, classes
        with _naming_the_input("y"):
            assert_all_finite(y, input_name="y")
            check_classification_targets(y)
        if self._private_fit:
            warnings.warn(
                f"{type(self).__name__} was fitted without classes: the label set is read "
                "from y, which is not private (classes_ and the shape of coef_ show which "
                "labels occur). Pass the public label set as classes=...",
                PrivacyLeakWarning, stacklevel=stacklevel)
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

        Any finite row is scored: ``X`` is clipped to ``[-1, 1]`` first, whatever ``bounds``
        (the domain is a contract on the training rows, which ``fit`` enforces; a row in it
        is scored as it is, and clipping matches what ``bounds="clip"`` did in ``fit``).

        Raises
        ------
        ValueError
            If ``X`` contains NaN or infinity, or has a number of columns other than in
            ``fit``.
        """
        check_is_fitted(self)
        with _naming_the_input():
            X = validate_data(self, X, accept_sparse=_ACCEPT_SPARSE, dtype=np.float64,
                              reset=False)
        X = clip_to_domain(X)
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
