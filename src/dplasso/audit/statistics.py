r"""Statistic adapters for the sensitivity search: the quantities the project privatises.

Each adapter is a callable ``statistic(X, y) -> ndarray`` for
:func:`dplasso.audit.sensitivity.sensitivity_search`, with two optional hints the search
uses: ``label_values`` (labels a replacement row may take) and ``search_directions(X, y)``
(directions, shape ``(p, d)``, whose aligned sign rows move the statistic most). Any other
callable ``f(X, y) -> ndarray`` can be searched as it is.

=========================  ===========================================  =====================
adapter                    value                                        sensitivity (replace-one)
=========================  ===========================================  =====================
:class:`FeatureSum`        :math:`\sum_i x_{ij}`                         2 (theorem)
:class:`LabelCount`        :math:`\sum_i y_i`, binary labels             1 (theorem)
:class:`FrankWolfeScores`  vertex scores :math:`\pm\lambda\nabla L(W)`   sup norm: from the loss
:class:`LassoSupportSize`  nonzeros of the non-private L1-ball fit       *unknown*: searched
:class:`SplitScreening`    :math:`(|g|/\sqrt p\Delta_g, G/\Delta_G)`      L2: :math:`\sqrt2` (theorem)
=========================  ===========================================  =====================
"""
from __future__ import annotations

import numpy as np

from dplasso.estimators.count import lasso_support_size
from dplasso.estimators.problem import prepare_design
from dplasso.optim.losses import LogisticLoss, Loss, MultinomialLoss, SquaredLoss
from dplasso.optim.reference import solve_reference
from dplasso.screening.private import split_screening_sensitivity
from dplasso.screening.rule import screen

__all__ = ["FeatureSum", "LabelCount", "FrankWolfeScores", "LassoSupportSize",
           "SplitScreening"]


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
    gap by the reference solver.

    Parameters
    ----------
    lam : float
        L1-ball radius ``> 0``.
    fit_intercept : bool, default=True
        Append the constant column (its coefficient is not counted).
    tol : float, default=1e-10
        Wolfe-gap target relative to :math:`L(0)` (``solve_reference``).

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
        count = lasso_support_size(X, np.asarray(y).astype(np.int64), lam=self.lam,
                                   fit_intercept=self.fit_intercept, tol=self.tol)
        return np.array([count], dtype=np.float64)

    def search_directions(self, X, y):
        """The solution and the loss gradient at it, in feature space, shape ``(p, 2)``."""
        loss = LogisticLoss()
        design = prepare_design(X, fit_intercept=self.fit_intercept, bounds="error")
        labels = loss.check_target(y, X.shape[0])
        w = solve_reference(loss, design, labels, self.lam, tol=self.tol).w
        gradient = loss.gradient(design, labels, w[:, np.newaxis])[:, 0]
        return np.column_stack([w, gradient])[: X.shape[1]]


class SplitScreening:
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

    def search_directions(self, X, y):
        """The weights and the gradient (aligned rows make residuals and gradient moves extreme)."""
        y = self.loss.check_target(y, X.shape[0])
        return np.column_stack([self.W[:, 0], self.loss.gradient(X, y, self.W)[:, 0]])
