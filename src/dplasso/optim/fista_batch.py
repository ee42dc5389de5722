r"""Many restarted-FISTA solves at once: the loop of :func:`~dplasso.optim.reference.fista`
vectorised over problems.

A small problem (the block median's blocks: tens of rows, tens of columns) costs FISTA about
40 numpy calls per iteration whatever its size, so a thousand iterations of each of a few
hundred blocks spend their time in call overhead. :func:`fista_batch` stacks dense binary
logistic problems into one array, zero-padded to the largest rows and columns, and runs all
of them in one pass of numpy calls per iteration. Padding changes nothing: a zero column has
a zero gradient and stays zero under the projection, and a zero row adds nothing to
:math:`X^\top R` (each problem divides by its own number of rows). Each problem keeps its
own step (its smoothness constant), momentum, restarts, checks and stopping rule, and leaves
the batch when it stops. The arithmetic is the same operation by operation; only the order
of the terms inside a product or a sum may differ (different shapes), so iterates agree with
:func:`~dplasso.optim.reference.fista`'s to rounding. Problems are stacked by size in groups of
at most :data:`BATCH_BYTES`. Other losses, sparse designs, problems with
:data:`~dplasso.optim.reference._SORT_BELOW` or more columns, and a problem left alone in
its group, are solved one by one by :func:`~dplasso.optim.reference.fista`.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dplasso.optim.losses import LogisticLoss, sigmoid_into
from dplasso.optim.reference import _SORT_BELOW, fista

__all__ = ["BATCH_BYTES", "fista_batch"]

BATCH_BYTES = 4 * 2**20
"""Largest zero-padded stack of designs solved as one batch. A larger stack is read from
main memory twice per iteration and runs slower than its problems one by one (40 designs of
4601 x 40: 3.7 ms per product), so problems are grouped by size into stacks below it."""


def fista_batch(loss, requests, lam, *, check_every):
    """``[(x, n_iter) of fista(loss, X, y, lam, x0, target=t, max_iter=m, check_every=...)
    for X, y, x0, t, m in requests]``, the batchable requests run together.

    Inputs are checked by the caller (as for :func:`~dplasso.optim.reference.fista`).
    """
    batchable = [i for i, (X, *_) in enumerate(requests)
                 if type(loss) is LogisticLoss and not sp.issparse(X)
                 and 0 < X.shape[1] < _SORT_BELOW]
    results = [None] * len(requests)
    for group in _groups(batchable, [requests[i][0].shape for i in batchable]):
        for i, solved in zip(group, _logistic_batch([requests[i] for i in group], lam,
                                                    check_every, loss)):
            results[i] = solved
    for i, result in enumerate(results):  # alone: the plain loop has less overhead
        if result is None:
            X, y, x, target, max_iter = requests[i]
            x, _, _, k = fista(loss, X, y, lam, x, target=target, max_iter=max_iter,
                               check_every=check_every)
            results[i] = x, k
    return results


def _groups(indices, shapes):
    """``indices`` cut, in order of size, into groups of at least two whose zero-padded
    stack holds at most :data:`BATCH_BYTES` (an index in no group is solved alone)."""
    order = sorted(range(len(indices)), key=lambda j: shapes[j])
    groups, rows, cols = [], 0, 0
    for j in order:
        n, p = shapes[j]
        if groups and (len(groups[-1]) + 1) * max(rows, n) * max(cols, p) * 8 <= BATCH_BYTES:
            groups[-1].append(indices[j])
            rows, cols = max(rows, n), max(cols, p)
        else:
            groups.append([indices[j]])
            rows, cols = n, p
    return [group for group in groups if len(group) > 1]


def _logistic_batch(requests, lam, check_every, loss):
    count = len(requests)
    n_rows = max(X.shape[0] for X, *_ in requests)
    n_cols = max(X.shape[1] for X, *_ in requests)
    X = np.zeros((count, n_rows, n_cols))
    labels = np.zeros((count, n_rows))  # y (padded rows: any value)
    x = np.zeros((count, n_cols))
    for b, (Xb, yb, xb, _, _) in enumerate(requests):
        X[b, :Xb.shape[0], :Xb.shape[1]] = Xb
        labels[b, :Xb.shape[0]] = yb
        x[b, :Xb.shape[1]] = xb[:, 0]
    inv_n = np.array([1.0 / Xb.shape[0] for Xb, *_ in requests])
    step = np.array([1.0 / loss.smoothness(Xb) for Xb, *_ in requests])
    target = np.array([t for *_, t, _ in requests])
    max_iter = np.array([m for *_, m in requests])
    live = np.arange(count)
    out = [None] * count

    def gradient(w):
        R = np.matmul(X, -w[:, :, None])[:, :, 0]
        sigmoid_into(R)
        R -= labels
        G = np.matmul(R[:, None, :], X)[:, 0, :]
        G *= inv_n[:, None]
        return G

    def gaps(w):
        G = gradient(w)
        return np.einsum("bj,bj->b", w, G) + lam * np.abs(G).max(axis=1)

    def leave(stopped, n_done):
        nonlocal X, labels, x, inv_n, step, target, max_iter, live, extrapolated, theta
        for b in np.flatnonzero(stopped):
            width = requests[live[b]][0].shape[1]
            out[live[b]] = x[b, :width, None].copy(), int(n_done)
        keep = ~stopped
        X, labels, x, inv_n, step = X[keep], labels[keep], x[keep], inv_n[keep], step[keep]
        target, max_iter, live = target[keep], max_iter[keep], live[keep]
        extrapolated, theta = extrapolated[keep], theta[keep]

    extrapolated, theta = x, np.ones(count)
    leave((gaps(x) <= target) | (max_iter < 1), 0)
    n_done = 0
    while live.size:
        n_done += 1
        x_new = _project_rows(extrapolated - step[:, None] * gradient(extrapolated), lam)
        restart = np.einsum("bj,bj->b", extrapolated - x_new, x_new - x) > 0
        theta_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
        momentum = np.where(restart, 0.0, (theta - 1.0) / theta_new)
        extrapolated = np.where(restart[:, None], x_new,
                                x_new + momentum[:, None] * (x_new - x))
        theta = np.where(restart, 1.0, theta_new)
        x = x_new
        stopped = max_iter <= n_done
        if n_done % check_every == 0:
            stopped |= gaps(x) <= target
        if stopped.any():
            leave(stopped, n_done)
    return out


def _project_rows(v, lam):
    """:func:`~dplasso.optim.reference.project_l1_ball` of each row of ``v`` (sort rule)."""
    magnitude = np.abs(v)
    inside = magnitude.sum(axis=1) <= lam
    tail = np.sort(magnitude, axis=1)[:, ::-1]
    excess = np.cumsum(tail, axis=1) - lam
    active = tail * np.arange(1, v.shape[1] + 1) > excess
    last = v.shape[1] - 1 - np.argmax(active[:, ::-1], axis=1)
    theta = excess[np.arange(v.shape[0]), last] / (last + 1)
    magnitude -= theta[:, None]
    np.maximum(magnitude, 0.0, out=magnitude)
    magnitude *= np.sign(v)
    magnitude[inside] = v[inside]
    return magnitude
