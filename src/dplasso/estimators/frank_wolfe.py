r"""Frank-Wolfe LASSO logistic regression: non-private (exact selection) and private (Talwar).

Both solve the L1-constrained problem (binary logistic, or multinomial for more than two
classes; ``lam`` is a constraint radius, not a penalty weight)

.. math:: \min_{\|w\|_1 \le \lambda} \frac1n \sum_{i=1}^n \ell(w; x_i, y_i)

by ``T`` Frank-Wolfe steps from the engine :func:`dplasso.optim.frank_wolfe.frank_wolfe`; they
differ in the vertex selection only.
"""
from __future__ import annotations

from dplasso.estimators.base import FrankWolfeClassifierBase, holding_budget
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.params import (
    DEFAULT_LAM,
    check_accountant,
    check_choice,
    check_epsilon,
    check_n_iter_or_auto,
    resolve_delta,
)
from dplasso.estimators.private_frank_wolfe import (
    INITS,
    SELECTIONS,
    private_frank_wolfe_trials,
)
from dplasso.estimators.problem import classification_loss, prepare_design, split_intercept
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION, split_threshold_budget
from dplasso.optim.frank_wolfe import exact_select, frank_wolfe
from dplasso.optim.validation import check_lam, check_n_iter
from dplasso.optim.wolfe_gap import wolfe_gap

__all__ = ["FrankWolfeLassoClassifier", "PrivateFrankWolfeLassoClassifier"]


@shared_docs
class FrankWolfeLassoClassifier(FrankWolfeClassifierBase):
    r"""Non-private L1-constrained logistic regression by Frank-Wolfe with exact selection.

    Each step moves toward the vertex :math:`\pm\lambda e_j` minimising
    :math:`\langle s, \nabla L(w_t)\rangle` (``argmin``), step :math:`2/(t+2)`, from zero.
    Two classes use the logistic loss, more the multinomial loss with a weight matrix.

    {{prediction}}

    Parameters
    ----------
    lam : float, default=10.0
        Radius of the L1 ball (a constraint radius, not a penalty weight); see
        :data:`dplasso.estimators.params.DEFAULT_LAM`.
    n_iter : int, default=1000
        Number of Frank-Wolfe steps ``T`` (the solution has at most ``T`` nonzeros).
    fit_intercept : bool, default=True
        Append a constant feature 1 *inside* the L1 ball; its coefficient is ``intercept_``.
    bounds : {"error", "clip"}, default="error"
        Rows must satisfy :math:`\|x_i\|_\infty \le 1`; ``"error"`` rejects others (naming
        the first), ``"clip"`` clips every entry to ``[-1, 1]`` in ``fit``.
        {{rounding}}
    classes : array-like of shape (C,) or None, default=None
        {{public_classes}}

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
        Class labels.
    coef_ : ndarray of shape (1, p) or (C, p)
        Coefficients (binary: of the positive class ``classes_[1]``).
    intercept_ : ndarray of shape (1,) or (C,)
        Coefficient(s) of the constant feature (zeros without an intercept).
    n_iter_ : int
        Steps run.
    wolfe_gap_ : float
        Wolfe gap of the output, a certificate: its objective exceeds the optimum of the
        constrained problem by at most this much.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` has string column names.

    See Also
    --------
    PrivateFrankWolfeLassoClassifier : The same solver with private vertex selection.

    Notes
    -----
    Exact selection gives :math:`L(w_T) - L^\star = O(C_f/T)` (curvature constant
    :math:`C_f \le (2\lambda)^2 \|X\|_2^2/(4n)` for the logistic loss). Cost per step: one
    product :math:`X^\top R` and :math:`O(n + p)` updates; sparse ``X`` is never densified.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.estimators import FrankWolfeLassoClassifier
    >>> X = np.array([[-1.0, 0.5], [-0.5, -0.5], [0.5, 0.5], [1.0, -0.5]])
    >>> y = np.array([0, 0, 1, 1])
    >>> FrankWolfeLassoClassifier(lam=5.0, n_iter=200).fit(X, y).predict(X)
    array([0, 0, 1, 1])
    """

    def __init__(self, lam=DEFAULT_LAM, n_iter=1000, fit_intercept=True, bounds="error",
                 classes=None):
        self.lam = lam
        self.n_iter = n_iter
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.classes = classes

    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        {{training_rows}}
        y : array-like of shape (n,)
            Class labels (at least two classes).

        Returns
        -------
        self
        """
        lam = check_lam(self.lam)
        n_iter = check_n_iter(self.n_iter)
        X, y_encoded, classes = self._validate_training_data(X, y)
        design = prepare_design(X, fit_intercept=self.fit_intercept, bounds=self.bounds)
        loss, _ = classification_loss(classes.size)
        result = frank_wolfe(loss, design, y_encoded, lam, n_iter, exact_select,
                             check_input=False)
        gradient = loss.gradient(design, y_encoded, result.W)
        self.wolfe_gap_ = float(wolfe_gap(result.W, gradient, lam)[0])
        self._set_model(*split_intercept(result.W, self.fit_intercept), classes)
        self.n_iter_ = n_iter
        return self


@shared_docs
class PrivateFrankWolfeLassoClassifier(FrankWolfeClassifierBase):
    r"""Differentially private L1-constrained logistic regression (Talwar et al.'s Frank-Wolfe).

    Frank-Wolfe over the L1 ball where each step's vertex is chosen by a private selection
    (report-noisy-min with Laplace noise, or the exponential mechanism) calibrated so that the
    ``T`` steps together are :math:`(\varepsilon, \delta)`-DP. Two classes use the logistic
    loss; more use the multinomial loss with a weight matrix :math:`W \in \mathbb
    R^{p \times C}` and vertices :math:`\pm\lambda E_{jc}` (P1, Appendix A).

    {{prediction}}

    Parameters
    ----------
    lam : float, default=10.0
        Radius of the L1 ball (a constraint radius, not a penalty weight); data-independent
        default :data:`dplasso.estimators.params.DEFAULT_LAM`.
    n_iter : int or "auto", default="auto"
        Steps ``T``. ``"auto"``: the ``T <= 1000`` minimising Talwar et al.'s error bound
        :math:`2\lambda^2/(T+2) + 2b(T)\ln(2m)` for the calibrated noise scale :math:`b(T)`
        (:func:`dplasso.estimators.private_frank_wolfe.auto_n_iter`); it uses only public
        quantities (``lam``, ``epsilon``, ``delta``, ``n``, ``p``).
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Total ``delta`` in ``[0, 1)``; None means ``1/n**2``. With ``delta = 0`` the
        steps compose by basic composition (pure :math:`\varepsilon`-DP).
    selection : {"laplace", "exponential"}, default="laplace"
        ``"laplace"``: report-noisy-min, steps composed by advanced composition (Talwar et
        al.). ``"exponential"``: exponential mechanism, composed in zCDP (each step
        :math:`\varepsilon_0^2/8`-zCDP) and converted to :math:`(\varepsilon, \delta)`.
        Either composes by basic composition instead (no ``delta``) where that needs less
        noise, as for few steps.
    init : {"zero", "random"}, default="zero"
        ``"zero"`` (P1) or a uniform random point of the ball (Talwar et al.'s start, the
        "naive" variant of P1: untouched coordinates keep their random values, so the
        output is dense).
    threshold : {"private", "none"}, default="private"
        {{threshold}}
    threshold_fraction : float, default=0.1
        {{threshold_fraction}}
    fit_intercept : bool, default=True
        Append a constant feature 1 *inside* the L1 ball; its coefficient is ``intercept_``.
    bounds : {"error", "clip"}, default="error"
        Rows must satisfy :math:`\|x_i\|_\infty \le 1`; ``"error"`` rejects others (naming
        the first); ``"clip"`` clips every entry to ``[-1, 1]`` (a fixed per-row map, so
        the guarantee holds for the unclipped data too), in ``fit``.
        {{rounding}}
    accountant : BudgetAccountant or None, default=None
        When given, ``fit`` holds ``(epsilon, delta)`` before any work (refused if it does
        not fit in the remaining budget), spends the ledger against the hold when done, and
        frees what it did not spend (all of it if the fit raises).
    random_state : None, int or numpy.random.Generator, default=None
        Source of the noise; None draws OS entropy.
    classes : array-like of shape (C,) or None, default=None
        {{private_classes}}

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    coef_ : ndarray of shape (1, p) or (C, p)
    intercept_ : ndarray of shape (1,) or (C,)
    n_iter_ : int
        Steps run ``T``.
    privacy_ledger_ : PrivacyLedger
        The released mechanisms: ``T`` selections with their per-step guarantee, then the
        threshold (``threshold="private"``).
    privacy_guarantee_ : PrivacyGuarantee
        The composed ``(epsilon, delta)``: the steps at :math:`(1-f_b)\varepsilon` (or all
        of it without a threshold) and the threshold at :math:`f_b\varepsilon`, basic
        composition.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    FrankWolfeLassoClassifier : Non-private, exact selection.
    SparsifierClassifier : This estimator followed by P1's top-:math:`\tilde c` step.

    Notes
    -----
    - Neighbouring relation: replace-one (same ``n``, one row ``(x_i, y_i)`` replaced).
    - Data domain: rows :math:`\|x_i\|_\infty \le 1` (the intercept column of ones
      included); labels from the public label set ``classes`` (without it the set is read
      from ``y`` and the guarantee does not cover neighbours that differ in which labels
      occur), encoded ``0..C-1``.
    - Sensitivity: every vertex score :math:`\pm\lambda g_j` moves by at most
      :math:`\Delta = 2\lambda/n` (per-example gradient entries in :math:`[-1, 1]`;
      :func:`dplasso.privacy.calibration.fw_score_sensitivity`).
    - Guarantee: :math:`(\varepsilon, \delta)`-DP; each step is
      :math:`2\Delta/b`-DP, ``T`` steps composed as described under ``selection``
      (:func:`dplasso.estimators.private_frank_wolfe.calibrate_selection`).
    - Numerics: idealised floats (the selectors' float samplers).
    - Post-processing: the weights are a function of the selected vertices (and the
      data-independent start).
    - Cost per step: one product :math:`X^\top R`, :math:`2m` noise draws
      (:math:`m = p` or :math:`pC`, plus the intercept).

    References
    ----------
    .. [1] K. Talwar, A. Thakurta and L. Zhang, "Nearly-Optimal Private LASSO", NeurIPS 2015.
    .. [2] A. Khanna, F. Lu, E. Raff and B. Testa, "Sparse Private LASSO Logistic
       Regression", arXiv:2304.12429, 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.estimators import PrivateFrankWolfeLassoClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(500, 5))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = PrivateFrankWolfeLassoClassifier(epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> model.privacy_guarantee_.epsilon <= 5.0
    True
    """

    _private_fit = True

    def __init__(self, lam=DEFAULT_LAM, n_iter="auto", epsilon=1.0, delta=None,
                 selection="laplace", init="zero", threshold="private",
                 threshold_fraction=DEFAULT_THRESHOLD_FRACTION, fit_intercept=True,
                 bounds="error", accountant=None, random_state=None, classes=None):
        self.lam = lam
        self.n_iter = n_iter
        self.epsilon = epsilon
        self.delta = delta
        self.selection = selection
        self.init = init
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def fit(self, X, y):
        """Fit the model privately (check the budget, fit, spend).

        Parameters
        ----------
        {{training_rows}}
        y : array-like of shape (n,)
            Class labels (at least two classes).

        Returns
        -------
        self

        Raises
        ------
        BudgetExceededError
            If ``accountant`` cannot afford ``(epsilon, delta)``; raised before any
            computation on the data.
        """
        lam = check_lam(self.lam)
        epsilon = check_epsilon(self.epsilon)
        check_choice(self.selection, "selection", SELECTIONS)
        check_choice(self.init, "init", INITS)
        split_threshold_budget(epsilon, self.threshold, self.threshold_fraction)
        accountant = check_accountant(self.accountant)
        X, y_encoded, classes = self._validate_training_data(X, y)
        check_n_iter_or_auto(self.n_iter)
        delta = resolve_delta(self.delta, X.shape[0])
        with holding_budget(accountant, epsilon, delta) as spend:
            result = private_frank_wolfe_trials(
                X, y_encoded, lam=lam, n_iter=self.n_iter, epsilon=epsilon, delta=delta,
                n_classes=classes.size, selection=self.selection, init=self.init,
                fit_intercept=self.fit_intercept, bounds=self.bounds,
                threshold=self.threshold, threshold_fraction=self.threshold_fraction,
                random_state=self.random_state)
            spend(result.accounting)
        self._set_model(result.W, result.intercept, classes)
        self.n_iter_ = result.n_iter
        self.privacy_ledger_ = result.ledger
        self.privacy_guarantee_ = result.guarantee
        return self

