r"""The book's one rule for "clearly ahead", "clearly behind" or neither.

A mean difference over trials (of two methods on the same splits, of a method against the
majority rate, of two variants' independent runs) is *clear* when it lies more than
:data:`CLEAR_Z` standard errors from zero. :func:`clear_verdicts` applies the rule to any
number of cells and counts the outcomes; every comparison of the experiments
(:func:`~dplasso.experiments.p1_baselines.paired_comparison`, the chapters' sentences and
tables) decides through it, so the rule and its tie convention live in one place.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["CLEAR_Z", "VERDICTS", "Verdicts", "clear_verdicts"]

CLEAR_Z = 2.0
"""Standard errors by which a mean difference must exceed zero to be clear: about a 5%
two-sided error rate per cell for approximately normal means."""

VERDICTS = ("better", "tie", "worse")
"""The verdicts, from the side of the method the differences are taken for."""


class Verdicts(NamedTuple):
    """:func:`clear_verdicts`'s outcome.

    Attributes
    ----------
    labels : ndarray of str
        Each cell's verdict, in the shape of the means.
    better, tie, worse : int
        How many cells got each verdict.
    """

    labels: np.ndarray
    better: int
    tie: int
    worse: int


def clear_verdicts(mean, se, *, z=CLEAR_Z):
    r"""Each cell's verdict on its mean difference, and the counts.

    Parameters
    ----------
    mean : float or array-like
        Mean differences :math:`\bar d` (the method's value minus the other's).
    se : float or array-like
        Their standard errors :math:`s`, broadcast against ``mean``; NaN (one trial, no
        spread) makes a tie.
    z : float, default=CLEAR_Z

    Returns
    -------
    Verdicts
        ``"better"`` where :math:`\bar d > z s`, ``"worse"`` where :math:`\bar d < -z s`,
        ``"tie"`` otherwise.
    """
    mean = np.asarray(mean, dtype=np.float64)
    margin = z * np.broadcast_to(np.asarray(se, dtype=np.float64), mean.shape)
    better, worse = mean > margin, mean < -margin
    labels = np.where(better, "better", np.where(worse, "worse", "tie"))
    return Verdicts(labels, int(better.sum()), int(labels.size - better.sum() - worse.sum()),
                    int(worse.sum()))
