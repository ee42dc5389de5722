r"""Statistic adapters for the sensitivity search: the quantities the project privatises.

Each adapter is a callable ``statistic(X, y) -> ndarray`` for
:func:`dplasso.audit.sensitivity.sensitivity_search`, with two optional hints the search
uses: ``label_values`` (labels a replacement row may take) and ``search_directions(X, y)``
(directions, shape ``(p, d)``, whose aligned sign rows move the statistic most). Any other
callable ``f(X, y) -> ndarray`` can be searched as it is.

===========================  ===========================================  ==============================
adapter                      value                                        sensitivity (replace-one)
===========================  ===========================================  ==============================
:class:`FeatureSum`          :math:`\sum_i x_{ij}`                        2 (theorem)
:class:`LabelCount`          :math:`\sum_i y_i`, binary labels            1 (theorem)
:class:`FrankWolfeScores`    vertex scores :math:`\pm\lambda\nabla L(W)`  sup norm: from the loss
:class:`LassoSupportSize`    nonzeros of the non-private L1-ball fit      *unknown*: searched
:class:`ThresholdUtility`    training accuracy of each public offset      1 (theorem)
:class:`AccuracyCountUtility` best training accuracy of each public size  1 (theorem)
:class:`BlockMedianUtility`  rank utility of the block support sizes      1 (theorem)
:class:`SplitScreening`      :math:`(|g|/\sqrt p\Delta_g, G/\Delta_G)`     L2: :math:`\sqrt2` (theorem)
:class:`ScreeningVector`     P2's screening vector :math:`(u_1..u_p, T)`  L2: lemma
===========================  ===========================================  ==============================
"""
from __future__ import annotations

import numpy as np

from dplasso.estimators.count import lasso_support_sizes
from dplasso.estimators.private_count import fit_support_sizes
from dplasso.estimators.problem import prepare_design
from dplasso.estimators.threshold import THRESHOLD_GRID_SIZE
from dplasso.optim.losses import LogisticLoss, Loss, MultinomialLoss, SquaredLoss
from dplasso.optim.working_set import solve_working_set
from dplasso.screening.private import split_screening_sensitivity
from dplasso.screening.rule import screen

__all__ = ["FeatureSum", "LabelCount", "FrankWolfeScores", "LassoSupportSize",
           "ThresholdUtility", "AccuracyCountUtility", "BlockMedianUtility", "SplitScreening", "ScreeningVector"]


class FeatureSum:
    r"""The sum of one feature over the rows, :math:`f(X) = \sum_i x_{ij}`.

    Parameters
    ----------
    feature : int, default=0
        Column ``j``.

    Notes
    -----
    Replace-one sensitivity 2: one term :math:`x_{ij} \in [-1, 1]` changes to another value
    in :math:`[-1, 1]`; attained by :math:`-1 \to +1`.
    """

    label_values = (0.0, 1.0)

    def __init__(self, feature=0):
        self.feature = int(feature)

    def __call__(self, X, y):
        column = X[:, [self.feature]]
        return np.asarray(column.sum(axis=0)).ravel()

    def search_directions(self, X, y):
        """The coordinate direction :math:`e_j` (aligned rows put :math:`\\pm 1` there)."""
        direction = np.zeros(X.shape[1])
        direction[self.feature] = 1.0
        return direction


class LabelCount:
    r"""The number of positive labels, :math:`f(y) = \sum_i y_i` for :math:`y_i \in \{0, 1\}`.

    Notes
    -----
    Replace-one sensitivity 1: one label changes by at most 1; attained by a label flip.
    """

    label_values = (0.0, 1.0)

    def __call__(self, X, y):
        return np.array([np.sum(y)], dtype=np.float64)


class FrankWolfeScores:
    r"""Frank-Wolfe vertex scores at fixed weights: :math:`(\lambda \nabla L(W), -\lambda \nabla L(W))`.

    The ``2m`` scores per trial the Frank-Wolfe engine hands to its selector
    (:func:`dplasso.optim.frank_wolfe.frank_wolfe`), for every trial column of ``W``.

    Parameters
    ----------
    loss : dplasso.optim.losses.Loss
        The loss (logistic, squared with ``y_bound``, or multinomial).
    W : ndarray of shape (p, K) or (p, C, K)
        The weights the gradient is taken at (inside the ``lam`` ball for the bound to hold).
    lam : float
        The L1-ball radius.

    Notes
    -----
    Under replace-one the gradient :math:`\nabla L = \frac1n \sum_i \nabla\ell(W; x_i, y_i)`
    changes by :math:`\frac1n(\nabla\ell(W; x', y') - \nabla\ell(W; x_i, y_i))`, so every
    score changes by at most :math:`2\lambda G/n` in sup norm, with ``G`` the per-example
    gradient sup bound (``loss.gradient_sup_bound(lam)``: 1 for logistic and multinomial,
    :math:`\lambda + y_{\max}` for squared loss).

    The search directions are the weight columns (an aligned row makes :math:`x^\top w`
    extreme, so the residual is extreme) and the gradient columns.
    """


    def __init__(self, loss, W, lam):
        if not isinstance(loss, Loss):
            raise TypeError(f"loss must be a dplasso.optim.losses.Loss, got {type(loss).__name__}")
        self.loss = loss
        self.W = np.asarray(W, dtype=np.float64)
        self.lam = float(lam)

    @property
    def label_values(self):
        """Labels a replacement row may take: the classes, or ``+-y_bound`` for squared loss."""
        if isinstance(self.loss, MultinomialLoss):
            return tuple(float(c) for c in range(self.loss.n_classes))
        if isinstance(self.loss, SquaredLoss):
            if self.loss.y_bound is None:
                raise ValueError("a squared-loss search needs the loss's y_bound")
            return (-self.loss.y_bound, 0.0, self.loss.y_bound)
        return (0.0, 1.0)

    def gradient(self, X, y):
        """The mean gradient ``(m, K)`` (flattened coordinates) at ``W``."""
        y = self.loss.check_target(y, X.shape[0])
        G = self.loss.gradient(X, y, self.W)
        return G.reshape(-1, G.shape[-1])

    def __call__(self, X, y):
        G = self.gradient(X, y)
        return np.concatenate([self.lam * G, -self.lam * G])

    def search_directions(self, X, y):
        """Weight and gradient columns, in feature space, shape ``(p, d)``."""
        p = X.shape[1]
        G = self.loss.gradient(X, self.loss.check_target(y, X.shape[0]), self.W)
        return np.hstack([self.W.reshape(p, -1), G.reshape(p, -1)])


class LassoSupportSize:
    r"""The Sparsifier's non-private count: nonzeros of the L1-constrained logistic fit.

    Evaluates :func:`dplasso.estimators.count.lasso_support_size`, the count P1's
    Sparsifier privatises: the same problem as the private fit (logistic loss, radius
    ``lam``, intercept column inside the ball and not counted), solved to a certified Wolfe
    gap by the working-set solver.

    Parameters
    ----------
    lam : float
        L1-ball radius ``> 0``.
    fit_intercept : bool, default=True
        Append the constant column (its coefficient is not counted).
    tol : float, default=1e-10
        Wolfe-gap target relative to :math:`L(0)` (``solve_working_set``).

    Notes
    -----
    No theorem bounds the replace-one sensitivity of this count below the number of
    countable coefficients: one row can push several gradient coordinates across the KKT
    boundary at once. The declared value is P1's 1 (the Sparsifier's ``count_sensitivity=1``),
    and the search reports what it finds. The search directions are the solution (without the intercept entry) and the
    loss gradient at it: aligned rows move the coordinates at the KKT boundary
    :math:`|g_j| = \|g\|_\infty`, the ones that can enter or leave the support.
    """

    label_values = (0.0, 1.0)

    def __init__(self, lam, fit_intercept=True, tol=1e-10):
        self.lam = float(lam)
        self.fit_intercept = bool(fit_intercept)
        self.tol = float(tol)

    def __call__(self, X, y):
        return self.many([(X, y)])[0]

    def many(self, datasets):
        """The statistic at each ``(X, y)`` of ``datasets``, the solves run together."""
        counts = lasso_support_sizes(
            [(X, np.asarray(y).astype(np.int64)) for X, y in datasets], lam=self.lam,
            fit_intercept=self.fit_intercept, tol=self.tol)
        return [np.array([count], dtype=np.float64) for count in counts]

    def search_directions(self, X, y):
        """The solution and the loss gradient at it, in feature space, shape ``(p, 2)``."""
        loss = LogisticLoss()
        design = prepare_design(X, fit_intercept=self.fit_intercept, bounds="error")
        labels = loss.check_target(y, X.shape[0])
        w = solve_working_set(loss, design, labels, self.lam, tol=self.tol).w
        gradient = loss.gradient(design, labels, w[:, np.newaxis])[:, 0]
        return np.column_stack([w, gradient])[: X.shape[1]]


class ThresholdUtility:
    r"""The private threshold's utilities: training accuracy of every public candidate.

    For fixed released weights (a public input here), the utility vector the exponential
    mechanism of :func:`dplasso.estimators.threshold.private_offsets` scores its candidates
    with, computed from its definition (the book's ``lemma-threshold``), not from the
    module's sorted-search code: :math:`u` counts the rows the model classifies correctly
    with the candidate offset added to its intercept.

    Parameters
    ----------
    W_full : ndarray of shape (q,) or (q, C)
        Released weights of every design column (the intercept last when
        ``fit_intercept``); one column per class for ``C > 2``.
    fit_intercept : bool, default=True
        Append the constant column to ``X``.
    grid_size : int, default=THRESHOLD_GRID_SIZE

    Notes
    -----
    Binary: the grid is :math:`R\,\mathrm{linspace}(-1, 1, G)`, :math:`R = \|w\|_1`, and a row
    is correct at :math:`g` when :math:`[s_i + g > 0] = y_i`. More classes: the pairs
    :math:`(c, g)` in class order (shape ``(C G,)``, pair :math:`(c, g_j)` at ``c G + j``);
    the model with :math:`g` added to class :math:`c` alone predicts :math:`c` when
    :math:`s_{ic} + g > \max_{c' \ne c} s_{ic'}` and otherwise the maximiser (first index on
    ties), on the grid :math:`2R\,\mathrm{linspace}(-1, 1, G)`, :math:`R = \max_c \|w_c\|_1`.
    Each row adds 0 or 1 to each entry, so the replace-one sensitivity in sup norm is 1
    (theorem); a label flip attains it. Cost :math:`O(nGC)`.
    """

    def __init__(self, W_full, fit_intercept=True, grid_size=THRESHOLD_GRID_SIZE):
        self.W_full = np.asarray(W_full, dtype=np.float64)
        if self.W_full.ndim not in (1, 2):
            raise ValueError(f"W_full must have shape (q,) or (q, C), got {self.W_full.shape}")
        self.n_classes = 2 if self.W_full.ndim == 1 else self.W_full.shape[1]
        self.fit_intercept = bool(fit_intercept)
        self.grid_size = int(grid_size)

    @property
    def label_values(self):
        """The class labels ``0..C-1``."""
        return tuple(float(c) for c in range(self.n_classes))

    def grid(self):
        """The public offsets, ``(G,)`` (the same for every class); they depend on ``W_full``
        only."""
        unit = np.linspace(-1.0, 1.0, self.grid_size)
        if self.W_full.ndim == 1:
            return np.abs(self.W_full).sum() * unit
        return 2.0 * np.abs(self.W_full).sum(axis=0).max() * unit

    def __call__(self, X, y):
        design = prepare_design(X, fit_intercept=self.fit_intercept, bounds="error")
        scores = np.asarray(design @ self.W_full)
        y = np.asarray(y).astype(np.int64)
        grid = self.grid()
        if self.W_full.ndim == 1:
            predicted = scores[:, np.newaxis] + grid[np.newaxis, :] > 0  # (n, G)
            return np.sum(predicted == (y == 1)[:, np.newaxis], axis=0).astype(np.float64)
        per_class = []
        for c in range(self.n_classes):
            others = scores.copy()
            others[:, c] = -np.inf
            rival = np.argmax(others, axis=1)
            wins = scores[:, [c]] + grid[np.newaxis, :] > others.max(axis=1)[:, np.newaxis]
            predicted = np.where(wins, c, rival[:, np.newaxis])
            per_class.append(np.sum(predicted == y[:, np.newaxis], axis=0))
        return np.concatenate(per_class).astype(np.float64)

    def search_directions(self, X, y):
        """The weight columns without the intercept entry, shape ``(p, C)`` or ``(p, 1)``."""
        W = self.W_full.reshape(self.W_full.shape[0], -1)
        return W[:X.shape[1]]


class AccuracyCountUtility:
    r"""The accuracy count's utilities: the best training accuracy of each public size.

    For fixed released weights (a public input here), the vector the exponential mechanism
    of :func:`dplasso.estimators.private_count.accuracy_count` scores the candidate sizes
    ``1, 2, 4, ..., m`` with, computed from its definition (the book's
    ``lemma-accuracy-count``), not from the module's code: the weights cut to their ``k``
    largest-magnitude entries (the intercept entry kept and not ranked; ties to the lower
    index), and the number of training rows that model classifies correctly, at the best
    threshold :math:`t` (binary: predict 1 when the score exceeds :math:`t`; every
    :math:`t` in :math:`\{-\infty\} \cup \{s_i\}` tried) or by its argmax (more
    classes, first index on ties).

    Parameters
    ----------
    W_full : ndarray of shape (q,) or (q, C)
        Released weights of every design column, the intercept last (``fit_intercept``).
    fit_intercept : bool, default=True

    Notes
    -----
    Each row adds 0 or 1 to every (size, threshold) count, so each count, and each size's
    maximum over thresholds, moves by at most 1 when a row is replaced: sup-norm
    sensitivity 1 (theorem). Cost :math:`O(n (q + n) S)` for ``S`` sizes.
    """

    def __init__(self, W_full, fit_intercept=True):
        self.W_full = np.asarray(W_full, dtype=np.float64)
        if self.W_full.ndim not in (1, 2):
            raise ValueError(f"W_full must have shape (q,) or (q, C), got {self.W_full.shape}")
        self.n_classes = 2 if self.W_full.ndim == 1 else self.W_full.shape[1]
        self.fit_intercept = bool(fit_intercept)

    @property
    def label_values(self):
        """The class labels ``0..C-1``."""
        return tuple(float(c) for c in range(self.n_classes))

    def sizes(self):
        """``1, 2, 4, ...`` below ``m``, and ``m`` (the ranked entries' number)."""
        weights = self.W_full[:-1] if self.fit_intercept else self.W_full
        m = weights.size
        return [2 ** j for j in range(m.bit_length()) if 2 ** j < m] + [m]

    def cut(self, k):
        """``W_full`` with all but its ``k`` largest-magnitude ranked entries zeroed."""
        W = self.W_full.reshape(self.W_full.shape[0], -1).copy()
        ranked = W[:-1] if self.fit_intercept else W
        flat = ranked.reshape(-1)  # a view: rows of features, classes within a row
        keep = sorted(range(flat.size), key=lambda j: (-abs(flat[j]), j))[:k]
        mask = np.zeros(flat.size, dtype=bool)
        mask[keep] = True
        flat[~mask] = 0.0
        return W.reshape(self.W_full.shape)

    def __call__(self, X, y):
        design = prepare_design(X, fit_intercept=self.fit_intercept, bounds="error")
        y = np.asarray(y).astype(np.int64)
        values = []
        for k in self.sizes():
            W = self.cut(k)
            scores = np.asarray(design @ W)
            if W.ndim == 1:
                cuts = np.append(-np.inf, scores)
                predicted = scores[:, np.newaxis] > cuts[np.newaxis, :]
                values.append(np.sum(predicted == (y == 1)[:, np.newaxis], axis=0).max())
            else:
                values.append(np.sum(np.argmax(scores, axis=1) == y))
        return np.array(values, dtype=np.float64)

    def search_directions(self, X, y):
        """The weight columns without the intercept entry, shape ``(p, C)`` or ``(p, 1)``."""
        W = self.W_full.reshape(self.W_full.shape[0], -1)
        return W[:X.shape[1]]


class BlockMedianUtility:
    r"""The block-median count's rank utility over the candidates :math:`k = 1, \dots, m`.

    Evaluates :func:`dplasso.estimators.private_count.block_support_sizes` (the blocks' own
    non-private support sizes, row :math:`i` in block :math:`i \bmod B`) and the utility
    :math:`u(k) = \min(\#\{b: c_b \le k\}, \#\{b: c_b \ge k\})` of
    :func:`~dplasso.estimators.private_count.block_median_count`, written from its
    definition (the book's ``lemma-block-median``).

    Parameters
    ----------
    lam : float
        L1-ball radius of the block fits.
    n_blocks : int
        ``B`` (public).
    fit_intercept : bool, default=True

    Notes
    -----
    Binary logistic blocks on dense ``X`` (``m = p``). Replacing one row changes one block, hence one :math:`c_b` (to any value), hence each
    of the two counts by at most 1: sup-norm sensitivity 1 (theorem). Each block's size is
    cached by the block's exact bytes, so a neighbour costs one block solve, not ``B``, and
    ``many`` solves the new blocks of many neighbours together (the sizes are those
    :func:`block_support_sizes` computes: a test checks it).
    """

    label_values = (0.0, 1.0)

    def __init__(self, lam, n_blocks, fit_intercept=True):
        self.lam = float(lam)
        self.n_blocks = int(n_blocks)
        self.fit_intercept = bool(fit_intercept)
        self._cache = {}

    def sizes(self, X, y):
        """Support size of each block, ``(B,)``."""
        return self._sizes([(X, y)])[0]

    def __call__(self, X, y):
        return _median_utility(self.sizes(X, y), X.shape[1])

    def many(self, datasets):
        """The utility at each ``(X, y)`` of ``datasets``; blocks not seen before are solved
        together."""
        return [_median_utility(sizes, X.shape[1])
                for sizes, (X, _) in zip(self._sizes(datasets), datasets)]

    def _sizes(self, datasets):
        loss = LogisticLoss()
        keys, new = [], {}
        for X, y in datasets:
            design = np.asarray(prepare_design(X, fit_intercept=self.fit_intercept,
                                               bounds="error"), dtype=np.float64)
            labels = loss.check_target(y, X.shape[0])
            keys.append([])
            for b in range(self.n_blocks):
                rows = np.arange(b, design.shape[0], self.n_blocks)
                block, block_y = design[rows], labels[rows]
                key = (block.tobytes(), block_y.tobytes())
                if key not in self._cache:
                    new[key] = block, block_y
                keys[-1].append(key)
        if new:
            sizes = fit_support_sizes(loss, list(new.values()), self.lam,
                                      fit_intercept=self.fit_intercept)
            self._cache.update(zip(new, sizes.tolist()))
        return [np.array([self._cache[key] for key in row], dtype=np.int64) for row in keys]


def _median_utility(sizes, n_countable):
    r""":math:`u(k) = \min(\#\{b: c_b \le k\}, \#\{b: c_b \ge k\})`, ``k = 1..m``."""
    k = np.arange(1, n_countable + 1)
    at_most = np.sum(sizes[np.newaxis, :] <= k[:, np.newaxis], axis=1)
    at_least = np.sum(sizes[np.newaxis, :] >= k[:, np.newaxis], axis=1)
    return np.minimum(at_most, at_least).astype(np.float64)


class _ScreeningStatistic:
    """What the screening adapters share: public weights ``w`` in the ``lam`` ball, the loss
    and the radius kind; labels a replacement row may take; search directions ``w`` and the
    loss gradient at it (aligned rows make residuals and gradient moves extreme)."""

    def __init__(self, loss, w, lam, radius_kind="dual"):
        self.loss = loss
        self.W = np.asarray(w, dtype=np.float64).reshape(-1, 1)
        self.lam = float(lam)
        self.radius_kind = radius_kind

    @property
    def label_values(self):
        """Labels a replacement row may take: ``{0, 1}`` or ``{-y_bound, 0, y_bound}``."""
        if isinstance(self.loss, SquaredLoss):
            return (-self.loss.y_bound, 0.0, self.loss.y_bound)
        return (0.0, 1.0)

    def search_directions(self, X, y):
        """The weights and the gradient (aligned rows make residuals and gradient moves extreme)."""
        y = self.loss.check_target(y, X.shape[0])
        return np.column_stack([self.W[:, 0], self.loss.gradient(X, y, self.W)[:, 0]])


class SplitScreening(_ScreeningStatistic):
    r"""The split screening release, rescaled: :math:`(|g| / (\sqrt p\,\Delta_g),\;
    G_{\mathrm{used}} / \Delta_G)` at one public weight vector.

    What :func:`dplasso.screening.private.private_screen_split` adds noise to, divided by
    the two sensitivities of :func:`~dplasso.screening.private.split_screening_sensitivity`,
    so that its replace-one L2 sensitivity is :math:`\sqrt2` (lemma
    ``lem-split-screening-sensitivity``).

    Parameters
    ----------
    loss : LogisticLoss or SquaredLoss
        The loss (squared: with ``y_bound``).
    w : ndarray of shape (p,)
        The public weights, inside the ``lam`` ball.
    lam : float
        The L1-ball radius.
    radius_kind : {"dual", "primal"}, default="dual"
        The radius whose gap is released.
    """

    def parts(self, X, y):
        """The unscaled release: ``(|g|, G_used)`` with ``|g|`` of shape ``(p,)``."""
        result = screen(X, y, self.W, self.lam, self.loss, radius_kind=self.radius_kind)
        norms = np.sqrt(np.asarray((X.multiply(X) if hasattr(X, "multiply") else X**2)
                                   .sum(axis=0)).ravel())
        magnitude = result.statistic[:, 0] - norms * result.radius[0]
        return magnitude, float(result.gap_used[0])

    def __call__(self, X, y):
        sensitivity = split_screening_sensitivity(*X.shape, self.lam, self.loss,
                                                  radius_kind=self.radius_kind)
        magnitude, gap = self.parts(X, y)
        return np.append(magnitude / sensitivity.gradient_l2, gap / sensitivity.gap)



class ScreeningVector(_ScreeningStatistic):
    r"""The vector one private screening round releases, at fixed public weights.

    :math:`q = (u_1, \dots, u_p, T)` of :func:`dplasso.screening.rule.screen` (the per-feature
    statistics and the threshold) for one weight column ``w``: the quantity
    :func:`dplasso.screening.private.release_screening_statistic` adds Gaussian noise to.

    Parameters
    ----------
    loss : LogisticLoss or SquaredLoss
    w : ndarray of shape (p,)
        The weights (public; inside the ball).
    lam : float
        The L1-ball radius.
    radius_kind : {"dual", "primal"}, default="dual"

    Notes
    -----
    Replace-one L2 sensitivity :math:`\Delta_2 = \sqrt{p+1}\,\Delta_u`
    (:func:`dplasso.screening.private.screening_sensitivity`, lemma
    ``lem-screening-sensitivity``). Search directions: ``w`` and the gradient at it.
    """

    def __call__(self, X, y):
        result = screen(X, self.loss.check_target(y, X.shape[0]), self.W, self.lam, self.loss,
                        radius_kind=self.radius_kind)
        return np.append(result.statistic[:, 0], result.threshold[0])

