r"""The library's recommended private model: :class:`SparseDPLogisticRegression`.

One private sparse logistic regression with the settings this project tested and
recommends, and only the parameters a user must set (the budget, the public label set, the
intercept, the data domain, the accountant, the seed). It is the Sparsifier
(:mod:`dplasso.estimators.sparsifier`) at :data:`RECOMMENDED_SETTINGS` instead of P1's
(:data:`~dplasso.estimators.sparsifier.P1_SETTINGS`,
:class:`~dplasso.estimators.SparsifierClassifier`): its fit is
:func:`~dplasso.estimators.sparsify_trials`'s at those settings, draw for draw, and
:func:`default_sparsifier_trials` is the same fit batched over trials, as the experiments run
it.
"""
from __future__ import annotations

from types import MappingProxyType

from dplasso.estimators.base import FrankWolfeClassifierBase
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.params import DEFAULT_LAM, DEFAULT_SELECTION
from dplasso.estimators.sparsifier import _fit_sparsifier, sparsify_trials
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.estimators.weights import DEFAULT_WEIGHTS

__all__ = ["RECOMMENDED_SETTINGS", "SparseDPLogisticRegression", "default_sparsifier_trials"]

RECOMMENDED_SETTINGS = MappingProxyType({
    "lam": DEFAULT_LAM,
    "n_iter": "auto",
    "count": "joint",
    "count_fraction": None,
    "count_sensitivity": "max",
    "count_noise": "geometric",
    "selection": DEFAULT_SELECTION,
    "threshold": "private",
    "threshold_fraction": DEFAULT_THRESHOLD_FRACTION,
    "weights": DEFAULT_WEIGHTS,
})
"""The Sparsifier's settings that :class:`SparseDPLogisticRegression` fixes (read-only).

The keywords of :func:`~dplasso.estimators.sparsifier.sparsify_trials` that are not
parameters of the model: the radius :data:`~dplasso.estimators.params.DEFAULT_LAM`,
Frank-Wolfe's ``"auto"`` step count, the joint release of the size and the threshold
(``"joint"``, its share by :func:`~dplasso.estimators.joint_release.joint_share`), the
exponential selection :data:`~dplasso.estimators.params.DEFAULT_SELECTION`, the threshold's
share :data:`~dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION` and the weights' rule
``DEFAULT_WEIGHTS`` (``"auto"``, :func:`~dplasso.estimators.weights.resolve_weights`;
``count_sensitivity`` and
``count_noise`` are unused by the joint release). The tuned constants behind them are
module constants, each documented with the record that chose it:
:data:`~dplasso.estimators.params.DEFAULT_SELECTION`,
:data:`~dplasso.estimators.weights.OBJECTIVE_PERTURBATION_SCALE`,
:data:`~dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION` and those of
:mod:`dplasso.estimators.joint_release` (``tests/unit/estimators/test_recommended.py``
checks the model against :func:`~dplasso.estimators.sparsify_trials` fit for fit)."""


@shared_docs
class SparseDPLogisticRegression(FrankWolfeClassifierBase):
    r"""Sparse differentially private logistic regression: the library's recommended model.

    The fit spends its budget :math:`(\varepsilon, \delta)` in two parts. The first
    releases the weights of an L2-regularised logistic model by objective perturbation
    where the design has few columns against the budget (a binary model with
    :math:`d \le c\,(n\varepsilon)^{1/3}` columns, the constant included), and by private
    Frank-Wolfe in an L1 ball otherwise. The second is one joint private release of the
    model's size and decision threshold: an exponential mechanism, scored by training
    accuracy, chooses how many of the largest weights to keep (the others are set to zero)
    together with the offset added to the intercept, or else a constant model. A constant
    model (``n_nonzero_target_ == 0``, ``coef_`` all zero) predicts one class for every row;
    it is released when no cut model beats the best constant on the training rows by a clear
    margin, which is the designed outcome where the data are too few for the budget, not a
    failure. The other settings are fixed at the values the project chose
    (:data:`RECOMMENDED_SETTINGS`); :func:`~dplasso.estimators.sparsify_trials` takes them
    (the counts, the selections, the budget shares) as experiment options.

    {{prediction}}

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Total ``delta`` in ``[0, 1)`` (spent by Frank-Wolfe, or by Gaussian
        objective-perturbation noise); None means ``1/n**2``.
    classes : array-like of shape (C,) or None, default=None
        {{private_classes}}
    fit_intercept : bool, default=True
        Append a constant feature 1 (inside the L1 ball for Frank-Wolfe); its coefficient
        is ``intercept_``, never cut and not counted in the size.
    bounds : {"error", "clip"}, default="error"
        Rows must satisfy :math:`\|x_i\|_\infty \le 1`; ``"clip"`` clips entries to
        ``[-1, 1]`` (a per-row map; the guarantee holds), in ``fit``.
        {{rounding}}
    accountant : BudgetAccountant or None, default=None
        Holds ``(epsilon, delta)`` before any computation (refused if it does not fit);
        spends each part against the hold after, in the order they ran (the weights, then
        the joint release); frees what the fit did not spend (all of it if the fit raises).
    random_state : None, int or numpy.random.Generator, default=None
        Source of all noise (the weights', then the joint release's); None draws OS
        entropy.

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    coef_ : ndarray of shape (1, p) or (C, p)
        At most ``n_nonzero_target_`` nonzeros.
    intercept_ : ndarray of shape (1,) or (C,)
        The cut model's intercept plus the released threshold offset; for a constant
        model, scores that pick its class (``±1``, or 1 for its class and 0 for the
        others).
    n_nonzero_target_ : int
        The released size; 0 when the constant model was released.
    n_iter_ : int
        Frank-Wolfe steps; 0 with objective-perturbation weights.
    privacy_ledger_ : PrivacyLedger
        The weights' events (the ``T`` selections, or the one objective perturbation), then
        the joint release, in the order they ran.
    privacy_guarantee_ : PrivacyGuarantee
        Basic composition of the weights' part and the joint release.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    SparsifierClassifier : P1's Sparsifier, as the paper states it.
    sparsify_trials : The same fit batched over trials, every setting an option.
    dplasso.baselines.ObjectivePerturbationClassifier : The L2 reference (dense weights).

    Notes
    -----
    - Neighbouring relation: replace-one (same ``n``, one row ``(x_i, y_i)`` replaced).
    - Data domain: rows :math:`\|x_i\|_\infty \le 1` (the intercept column included);
      labels from the public label set ``classes`` (without it, read from ``y``: not
      covered by the guarantee).
    - Sensitivity: the vertex scores, :math:`2\lambda/n` (proven,
      :func:`dplasso.privacy.calibration.fw_score_sensitivity`); the
      objective-perturbation weights' stationarity noise, :math:`2\sqrt d` in L2 (proven);
      the joint release's utilities, 1 (proven, the book's ``lemma-joint-release``).
    - Guarantee: :math:`(\varepsilon, \delta)`-DP by basic composition of the weights
      (Frank-Wolfe's selections composed by zCDP, or ``lem-objective-perturbation``) and
      the joint release, which spends the threshold's share
      :math:`f_b\varepsilon` and the share :math:`f` of the rest in one draw
      (:data:`~dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION`,
      :func:`~dplasso.estimators.joint_release.joint_share`). Which weights run is a
      public rule of ``n``, ``d``, ``epsilon`` and the classes
      (:func:`~dplasso.estimators.weights.resolve_weights`).
    - Numerics: idealised floats (selections, objective-perturbation noise, the joint
      release).
    - Post-processing: keeping the released number of largest magnitudes (ties toward the
      lower index).
    - Cost: ``T`` private Frank-Wolfe steps (one product :math:`X^\top R` each) or one
      perturbed L2 solve; one sort of the :math:`m` coefficients; one product of the design
      and one sort of the ``n`` training scores per candidate size.

    References
    ----------
    .. [1] A. Khanna, F. Lu, E. Raff and B. Testa, "Sparse Private LASSO Logistic
       Regression", arXiv:2304.12429, 2023.
    .. [2] K. Talwar, A. Thakurta and L. Zhang, "Nearly-Optimal Private LASSO", NeurIPS 2015.
    .. [3] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially Private Empirical
       Risk Minimization", JMLR 12, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.estimators import SparseDPLogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(500, 20))
    >>> y = (X[:, 0] - X[:, 1] > 0).astype(int)
    >>> model = SparseDPLogisticRegression(epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> int(np.count_nonzero(model.coef_)) <= model.n_nonzero_target_
    True
    """

    _private_fit = True

    def __init__(self, epsilon=1.0, delta=None, classes=None, fit_intercept=True,
                 bounds="error", accountant=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.classes = classes
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state

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
        {{budget_refused}}
        """
        return _fit_sparsifier(self, X, y, **RECOMMENDED_SETTINGS)


def default_sparsifier_trials(X, y, *, epsilon, n_classes=2, n_trials=1, delta=None,
                              random_state=None):
    """``K`` fits of ``SparseDPLogisticRegression(epsilon=epsilon)``, its other parameters
    at their defaults, batched (:func:`~dplasso.estimators.sparsifier.sparsify_trials` at
    :data:`RECOMMENDED_SETTINGS`): the library's recommended private model as the
    experiments run it. ``X``, ``y`` (encoded labels) and ``delta`` as there."""
    defaults = SparseDPLogisticRegression().get_params()
    return sparsify_trials(
        X, y, epsilon=epsilon, delta=delta, n_trials=n_trials, n_classes=n_classes,
        fit_intercept=defaults["fit_intercept"], bounds=defaults["bounds"],
        random_state=random_state, **RECOMMENDED_SETTINGS)
