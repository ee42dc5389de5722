r"""Docstring sections that several estimators share, written once.

:func:`shared_docs` replaces every line ``{{name}}`` of a class's docstring and of its
``fit``'s docstring by the section ``name`` of :data:`SECTIONS`, indented like that line.
"""
from __future__ import annotations

import re

__all__ = ["SECTIONS", "shared_docs"]

SECTIONS = {name: text.strip("\n") for name, text in {
    "threshold": r"""
``"private"``: after the weights are released, spend a share ``threshold_fraction``
of ``epsilon`` on releasing the decision threshold (an offset added to
``intercept_``) by the exponential mechanism over a public grid scored by training
accuracy (:mod:`dplasso.estimators.threshold`; proven sensitivity 1, the book's
``lemma-threshold``); the rest goes to the fit. ``"none"``: the fit's own intercept
coordinate (the behaviour before the threshold; private fits then often predict one
class). With ``fit_intercept=False`` the released offset is the only intercept.""",
    "threshold_fraction": r"""
Share :math:`f_b \in (0, 1)` of ``epsilon`` spent on the threshold
(:data:`dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION`).""",
    "rounding": r"""
Entries at most 4 ulps above 1 in absolute value (rounding, e.g. in
``MinMaxScaler(feature_range=(-1, 1))``) are clipped to ``±1`` in either mode. A
scaler fitted on the private data releases its minima and maxima outside any
guarantee: scale with bounds known in advance
(:class:`~dplasso.data.PublicRangeScaler`), or clip.""",
    "prediction": r"""
``predict``, ``predict_proba`` and ``decision_function`` accept any finite row and clip it
to ``[-1, 1]`` first (a row in the data domain is scored as it is): only ``fit`` enforces
the data domain, a contract on the training rows (scoring new rows spends no privacy).""",
    "private_classes": r"""
The label set, public (chosen without looking at ``y``): ``classes_`` is it, sorted,
whichever labels occur in ``y`` (an absent class is fitted like any other). None
reads the labels from ``y``, which is not private: the fit then warns
:class:`~dplasso.estimators.base.PrivacyLeakWarning`.""",
    "public_classes": r"""
The label set (sorted into ``classes_``; a class absent from ``y`` is allowed).
None reads the labels from ``y`` (this fit is not private, so nothing warns).""",
    "training_rows": r"""
X : array-like or scipy.sparse matrix of shape (n, p)
    Training data with rows :math:`\|x_i\|_\infty \le 1` (see ``bounds``).""",
    "budget_refused": r"""
BudgetExceededError
    If ``accountant`` cannot afford the fit; raised before any computation on the
    data.""",
}.items()}
"""Each shared section's text, unindented."""

_PLACEHOLDER = re.compile(r"^([ \t]*)\{\{(\w+)\}\}[ \t]*$", re.MULTILINE)


def _fill(doc):
    def section(match):
        indent, name = match.groups()
        return "\n".join(indent + line if line else line
                         for line in SECTIONS[name].splitlines())

    return _PLACEHOLDER.sub(section, doc) if doc else doc


def shared_docs(cls):
    """Class decorator: fill the ``{{name}}`` lines of ``cls``'s and its ``fit``'s docstrings."""
    cls.__doc__ = _fill(cls.__doc__)
    fit = cls.__dict__.get("fit")
    if fit is not None:
        fit.__doc__ = _fill(fit.__doc__)
    return cls
