"""A Frank-Wolfe selector that gives each group of trial columns its own selector.

Runs that share a design but not a selection rule (exact and private, two noise scales,
two budgets) go through the engine as the columns of one batched weight matrix, so every
step costs one product ``X^T R`` for all of them; :class:`ColumnSelector` then selects for
each group as that group's own run would have.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ColumnSelector"]


class ColumnSelector:
    """``select(scores, rng)`` for :func:`dplasso.optim.frank_wolfe.frank_wolfe`, by groups.

    Parameters
    ----------
    groups : sequence of tuple
        ``(columns, select)``, ``(columns, select, rng)`` or ``(columns, select, rng,
        n_iter)``: the trial columns (distinct across groups, together ``0..K-1``), the
        group's selector ``select(scores, rng)``, its generator (None: the engine's) and
        its number of steps (None: every step). A group is called with its columns' scores
        only, and only for its first ``n_iter`` steps (the engine's per-trial ``n_iter``
        then discards its columns' choices): with its own generator, a group draws exactly
        what a run of its columns alone, with that generator, would draw.

    Notes
    -----
    The selector counts its calls (one per engine step), so one instance serves one engine
    run.
    """

    def __init__(self, groups):
        self._groups = []
        for group in groups:
            columns, select, rng, n_iter = (tuple(group) + (None, None))[:4]
            columns = np.asarray(columns, dtype=np.intp)
            if columns.size:
                self._groups.append((_as_index(columns), select, rng, n_iter))
        self._n_trials = sum(_width(cols) for cols, _, _, _ in self._groups)
        self._step = 0

    def __call__(self, scores, rng):
        self._step += 1
        chosen = np.zeros(self._n_trials, dtype=np.intp)
        for columns, select, own_rng, n_iter in self._groups:
            if n_iter is None or self._step <= n_iter:
                chosen[columns] = select(scores[:, columns], rng if own_rng is None else own_rng)
        return chosen


def _as_index(columns):
    """A slice for consecutive columns (a view of the scores, no copy), else the array."""
    if columns.size and np.array_equal(columns, np.arange(columns[0], columns[0] + columns.size)):
        return slice(int(columns[0]), int(columns[0]) + columns.size)
    return columns


def _width(columns):
    return columns.stop - columns.start if isinstance(columns, slice) else columns.size
