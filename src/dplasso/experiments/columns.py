"""Many runs in one Frank-Wolfe engine call: each group of columns gets its own screening
hook, and a noisy-min selector its own scale per column (the experiments batch every run of
one data set and budget; the per-group selector is
:class:`dplasso.optim.column_selector.ColumnSelector`)."""
from __future__ import annotations

import numpy as np

from dplasso.privacy.selection import report_noisy_min

__all__ = ["ColumnCallback", "ScaledNoisyMinSelector"]


class ScaledNoisyMinSelector:
    """Report-noisy-min with its own Laplace scale per column, in one draw.

    ``argmin_i (s_i + b_k N_i) = argmin_i (s_i / b_k + N_i)`` for ``b_k > 0``, so column ``k``
    selects exactly as :class:`dplasso.privacy.selection.ReportNoisyMinSelector` at scale
    ``b_k`` would (the same law; a different random stream).

    Parameters
    ----------
    scales : array-like of shape (K,)
        The Laplace scale of each column, ``> 0``.
    """

    def __init__(self, scales):
        self._scales = np.asarray(scales, dtype=np.float64)
        if self._scales.ndim != 1 or not (self._scales > 0).all():
            raise ValueError("scales must be a vector of numbers > 0")

    def __call__(self, scores, rng):
        return report_noisy_min(scores / self._scales, 1.0, rng)


class ColumnCallback:
    """Engine callback giving each group of columns its own screening callback.

    Parameters
    ----------
    groups : sequence of (array of int, callable)
        Column indices and the callback of those columns (empty groups are dropped); the
        other columns are never masked.
    """

    wants_objective = True
    """The engine's loss values are handed on to the group callbacks that want them."""

    def __init__(self, groups):
        self.groups = [(np.asarray(cols), callback) for cols, callback in groups if len(cols)]

    def __call__(self, t, W, G, gap, objective=None):
        mask = None
        for cols, callback in self.groups:
            extra = {}
            if objective is not None and getattr(callback, "wants_objective", False):
                extra = {"objective": lambda cols=cols: objective()[cols]}
            group_mask = callback(t, W[:, cols], G[:, cols], gap[cols], **extra)
            if group_mask is not None:
                if mask is None:
                    mask = np.zeros(W.shape, dtype=bool)
                mask[:, cols] = group_mask
        return mask
