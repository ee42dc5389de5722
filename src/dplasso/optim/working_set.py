r"""A working-set certified solver for the L1-ball problem: restricted solves, full certificate.

The solution of :math:`\min_{\|w\|_1 \le \lambda} L(w)` is sparse, so most columns of ``X``
never matter; but a solve restricted to a guessed set of columns is only trusted once the
Wolfe gap of the *whole* problem says so. The gap at a point ``w`` that is zero outside a
column set ``S`` splits as

.. math::

    G(w) = \langle w_S, g_S \rangle + \lambda \|g\|_\infty
         = G_S(w_S) + \lambda \bigl(\|g\|_\infty - \|g_S\|_\infty\bigr)_+ ,

the gap :math:`G_S` of the restricted problem plus what the columns outside ``S`` add when
one of their gradient entries exceeds every entry inside. Both are read from one full
gradient :math:`g = X^\top r / n`, computed after each restricted solve; the solver stops only
when the full :math:`G(w) \le` ``tol`` :math:`\times L(0)`, the certificate and tolerance of
:func:`~dplasso.optim.reference.solve_reference`. Otherwise it adds the columns whose entries
exceed :math:`\|g_S\|_\infty` (the only ones the second term depends on), largest first, and
re-solves from the current point (restricted target: a tenth of the last full gap). A round
that adds nothing means ``S`` holds the gap: the restricted solve then runs to ``tol``
:math:`\times L(0)` itself, and the first time this happens ``S`` is first cut down to the
columns where ``w`` is nonzero (a smaller smoothness constant, hence a longer step). After
that single cut ``S`` only grows, at most ``p`` times, and a round that does not grow it
ends with the full gap equal to the restricted gap, at most the target: the loop ends.
"""
from __future__ import annotations

import numpy as np

from dplasso.optim.fista_batch import fista_batch
from dplasso.optim.losses import Loss
from dplasso.optim.reference import ReferenceSolution
from dplasso.optim.validation import check_lam, check_positive_int, check_X_bounded

__all__ = ["solve_working_set", "solve_working_set_many"]

_TIE_RTOL = 1e-12
"""Columns whose score is within this relative distance of a cut-off are taken with it."""


def solve_working_set(loss, X, y, lam, *, tol=1e-10, max_iter=100_000, check_every=10,
                      initial_size=32):
    r"""Solve :math:`\min_{\|w\|_1 \le \lambda} L(w)` to a certified accuracy, column set by set.

    Parameters
    ----------
    loss : Loss
        A loss from :mod:`dplasso.optim.losses`.
    X : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix, rows ``||x_i||_inf <= 1`` (checked); sparse stays sparse.
    y : array-like of shape (n,)
        Targets in the loss's encoding.
    lam : float
        Radius of the L1 ball, ``> 0``.
    tol : float, default=1e-10
        Stop when the Wolfe gap *of the full problem* is at most ``tol * L(0)`` (as
        :func:`~dplasso.optim.reference.solve_reference`).
    max_iter : int, default=100000
        Cap on the FISTA iterations summed over the restricted solves.
    check_every : int, default=10
        Restricted-gap check period of the restricted solves.
    initial_size : int, default=32
        Columns in the first working set: those with the largest gradient entries at
        ``w = 0`` (with every column tied with the last one).

    Returns
    -------
    ReferenceSolution
        ``gap`` is the Wolfe gap of ``w`` on all ``p`` columns; ``n_iter`` the FISTA
        iterations summed over the restricted solves; ``converged`` whether
        ``gap <= tol * L(0)``.

    Notes
    -----
    A column's score is its largest gradient entry in absolute value (over the ``C``
    classes for multinomial weights, whose rows enter and leave together). A cut-off takes
    every column tied with it (within a relative ``1e-12``), so identical columns enter
    together and stay equal, as they do in a whole-design solve from zero. Each round costs
    one restricted solve (its smoothness constant from ``X[:, S]``) and one full gradient.
    The restricted solves are :func:`~dplasso.optim.reference.fista` on ``X[:, S]``, warm
    started; their first target is a tenth of the gap at zero, then a tenth of the last
    full gap while ``S`` grows, never below ``tol * L(0)``. When the optimum is not unique
    (ties at the KKT boundary), the support of the certified point may differ from a
    whole-design solve's; both are certified to the same gap.
    """
    if not isinstance(loss, Loss):
        raise TypeError(f"loss must be a dplasso.optim.losses.Loss, got {type(loss).__name__}")
    X = check_X_bounded(X)
    y = loss.check_target(y, X.shape[0])
    lam = check_lam(lam)
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a finite number > 0, got {tol!r}")
    max_iter = check_positive_int(max_iter, "max_iter")
    check_every = check_positive_int(check_every, "check_every")
    initial_size = check_positive_int(initial_size, "initial_size")
    return solve_working_set_many(loss, [(X, y)], lam, tol=tol, max_iter=max_iter,
                                  check_every=check_every, initial_size=initial_size)[0]


def solve_working_set_many(loss, problems, lam, *, tol, max_iter, check_every=10,
                           initial_size=32):
    """:func:`solve_working_set` of each ``(X, y)`` of ``problems`` (checked inputs: dense or
    sparse ``X`` in the domain, ``y`` in the loss's encoding), the restricted solves of all
    problems run together by :func:`~dplasso.optim.fista_batch.fista_batch` (one pass of
    numpy calls per iteration for all of them: many small problems, such as the block
    median's blocks, cost about as much as one). Returns a list of
    :class:`~dplasso.optim.reference.ReferenceSolution`."""
    steps = [_working_set_steps(loss, X, y, lam, tol=tol, max_iter=max_iter,
                                initial_size=initial_size) for X, y in problems]
    results = [None] * len(steps)
    pending = {}
    replies = dict.fromkeys(range(len(steps)))
    while replies:
        for i, reply in replies.items():
            try:
                pending[i] = steps[i].send(reply)
            except StopIteration as done:
                results[i] = done.value
        order = list(pending)
        solved = fista_batch(loss, [(request[0], problems[i][1], *request[1:])
                                    for i, request in pending.items()],
                             lam, check_every=check_every)
        replies, pending = dict(zip(order, solved)), {}
    return results


def _working_set_steps(loss, X, y, lam, *, tol, max_iter, initial_size):
    """The algorithm of :func:`solve_working_set` on checked inputs, as a generator: it yields
    each restricted solve ``(X_working, w_start, target, max_iter)`` and is sent back
    ``(w, n_iter)`` of that solve (by :func:`~dplasso.optim.fista_batch.fista_batch`, which
    runs a single problem through :func:`~dplasso.optim.reference.fista`); it returns the
    :class:`ReferenceSolution`."""
    n_features = X.shape[1]
    w = np.zeros(loss.weight_shape(n_features, 1))
    scale, G = loss.value_and_gradient(X, y, w)
    scale = objective = float(scale[0])
    target = tol * scale
    scores = _column_scores(G)
    gap = lam * float(scores.max())
    n_done = 0
    if gap > target:
        working = _top_columns(scores, min(initial_size, np.count_nonzero(scores)))
        w_working = w[working]
        inner_target = max(target, 0.1 * gap)
        pruned = False
        while True:
            X_working = X[:, working]
            w_working, k = yield X_working, w_working, inner_target, max_iter - n_done
            n_done += k
            objective, G = _value_and_full_gradient(loss, X, X_working, y, w_working)
            scores = _column_scores(G)
            gap = float(np.vdot(w_working, G[working]) + lam * scores.max())
            if gap <= target or n_done >= max_iter:
                break
            inside = float(scores[working].max())
            scores[working] = -np.inf
            violating = np.flatnonzero(scores > inside)
            if violating.size:
                new = violating[_top_columns(scores[violating],
                                             min(max(initial_size, working.size),
                                                 violating.size))]
                working = np.concatenate([working, new])
                w_working = np.concatenate(
                    [w_working, np.zeros((new.size,) + w_working.shape[1:])])
                inner_target = max(target, 0.1 * gap)
            else:  # the set holds the gap: only the restricted solve is short of the target
                inner_target = target
                nonzero = np.flatnonzero(np.any(w_working.reshape(working.size, -1), axis=1))
                if not pruned and nonzero.size:
                    working, w_working, pruned = working[nonzero], w_working[nonzero], True
        w = np.zeros(loss.weight_shape(n_features, 1))
        w[working] = w_working
    return ReferenceSolution(w=w[..., 0], objective=objective, gap=gap, n_iter=n_done,
                             converged=gap <= target)


def _column_scores(G):
    """Largest absolute gradient entry per column of ``X`` (over classes and the trial)."""
    return np.abs(G).reshape(G.shape[0], -1).max(axis=1)


def _top_columns(scores, k):
    """Indices of the ``k`` largest scores and of every score tied with the ``k``-th (``> 0``)."""
    cutoff = np.partition(scores, scores.size - k)[scores.size - k]
    return np.flatnonzero((scores >= cutoff * (1.0 - _TIE_RTOL)) & (scores > 0))


def _value_and_full_gradient(loss, X, X_working, y, w_working):
    """``L(w)`` and the gradient on every column, for ``w`` zero outside the working set."""
    values, R = loss.value_and_residual(loss.linear_predictor(X_working, w_working), y)
    return float(values[0]), loss.gradient_from_residual(X, R)
