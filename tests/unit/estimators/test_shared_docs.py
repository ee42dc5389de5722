"""Shared docstring sections: filled with their indentation, and left nowhere unfilled."""
import inspect

import pytest

import dplasso.baselines.estimators as baselines
import dplasso.estimators as estimators
from dplasso.estimators.docs import SECTIONS, shared_docs


def test_a_placeholder_line_becomes_its_section_indented_like_it():
    @shared_docs
    class Model:
        """Summary.

        Parameters
        ----------
        threshold_fraction : float
            {{threshold_fraction}}
        """

        def fit(self, X, y):
            """Fit.

            Parameters
            ----------
            {{training_rows}}
            """

    first, second = SECTIONS["threshold_fraction"].splitlines()
    assert f"\n            {first}\n            {second}\n" in Model.__doc__
    assert "\n            X : array-like" in Model.fit.__doc__
    assert "\n                Training data" in Model.fit.__doc__
    assert "{{" not in Model.__doc__ + Model.fit.__doc__


def test_an_unknown_section_is_an_error():
    with pytest.raises(KeyError, match="nope"):
        shared_docs(type("Model", (), {"__doc__": "Summary.\n\n    {{nope}}\n"}))


def test_no_public_estimator_shows_a_placeholder():
    shown = 0
    for module in (estimators, baselines):
        for name in module.__all__:
            cls = getattr(module, name)
            if inspect.isclass(cls):
                docs = [cls.__doc__ or ""] + [getattr(cls, "fit").__doc__ or ""
                                              if hasattr(cls, "fit") else ""]
                assert not any("{{" in doc for doc in docs), name
                shown += 1
    assert shown >= 8
