"""The L2 reference: logistic regression by objective perturbation, as a classifier."""
from __future__ import annotations

from dplasso.baselines._inputs import check_positive_real
from dplasso.baselines.l2_objective_perturbation import (
    objective_perturbation_trials,
    reference_mechanism,
)
from dplasso.estimators.base import FrankWolfeClassifierBase, holding_budget
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.objective_perturbation import L2_JACOBIAN_SHARE, L2_NOISES
from dplasso.estimators.params import (
    check_accountant,
    check_choice,
    check_epsilon,
    check_fraction,
    resolve_delta,
)
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION, split_threshold_budget

__all__ = ["ObjectivePerturbationClassifier"]


@shared_docs
class ObjectivePerturbationClassifier(FrankWolfeClassifierBase):
    r"""Private L2-regularised logistic regression by objective perturbation.

    The dense private model a practitioner compares a sparse one against (Chaudhuri,
    Monteleoni & Sarwate 2011; Kifer, Smith & Thakurta 2012): the exact minimiser of the
    logistic loss plus a quadratic term and a random linear term, then the private threshold
    (:func:`dplasso.baselines.l2_objective_perturbation.objective_perturbation_trials`).
    With more than two classes the weights are one-vs-rest: one such release per class
    against the others, each at ``1/C`` of the weights' budget, and a row goes to the class
    of largest score.

    {{prediction}}

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        What Gaussian noise may spend, in ``[0, 1)``; None means ``1/n**2`` (the
        Sparsifier's default). Gamma noise spends 0.
    noise : {"auto", "gamma", "gaussian"}, default="auto"
        ``"auto"``: the noise of smaller expected norm at the same budget (public: ``d``,
        the budget, ``delta``;
        :func:`~dplasso.estimators.objective_perturbation.choose_noise`).
    jacobian_share : float, default=L2_JACOBIAN_SHARE
        Share :math:`s \in (0, 1)` of the weights' budget paid for the Jacobian term; it sets
        the quadratic weight :math:`\Lambda = d/(4(e^{s\varepsilon'} - 1))` (the public
        regularisation rule; chosen on the synthetic family,
        :data:`~dplasso.estimators.objective_perturbation.L2_JACOBIAN_SHARE`).
    quad_weight : float or None, default=None
        A given public :math:`\Lambda` instead of the rule.
    threshold : {"private", "none"}, default="private"
        As in :class:`dplasso.estimators.PrivateFrankWolfeLassoClassifier`: a share
        ``threshold_fraction`` of ``epsilon`` releases the decision threshold after the
        weights.
    threshold_fraction : float, default=0.1
    tol : float, default=1e-9
        Solver tolerance (sup norm of the mean gradient): the weights lie within
        ``n sqrt(d) tol / quad_weight_`` of the exact minimiser the guarantee assumes (a
        solve that misses it warns ``ConvergenceWarning``).
    fit_intercept : bool, default=True
        A constant feature inside the model (regularised like the others).
    bounds : {"error", "clip"}, default="error"
        Rows must satisfy :math:`\|x_i\|_\infty \le 1`; ``"clip"`` clips entries to
        ``[-1, 1]`` in ``fit``.
    accountant : BudgetAccountant or None, default=None
        Holds the fit's budget before any computation (refused if it cannot afford it),
        spends each part against the hold (the weights, then the threshold) and frees what
        the fit did not spend.
    random_state : None, int or numpy.random.Generator, default=None
    classes : array-like of shape (C,) or None, default=None
        {{private_classes}}

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    coef_ : ndarray of shape (1, p) or (C, p)
        Dense; for :math:`C > 2` classes row :math:`c` is class :math:`c` against the rest.
    intercept_ : ndarray of shape (1,) or (C,)
    quad_weight_ : float
        The :math:`\Lambda` used (``n``-scaled objective), of each release.
    noise_ : str
        The noise drawn from.
    privacy_ledger_ : PrivacyLedger
        One objective-perturbation event (one per class for :math:`C > 2`), then the
        threshold.
    privacy_guarantee_ : PrivacyGuarantee
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    dplasso.estimators.SparseDPLogisticRegression : The sparse private model (the
        library's recommended one).

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, so :math:`\|x_i\|_2 \le R = \sqrt d`
      over the ``d = p + 1`` columns; labels from the public label set.
    - Sensitivity: the stationarity noise, :math:`2R` in L2; the Jacobian ratio,
      :math:`1 + R^2/(4\Lambda)` (the book's ``lem-objective-perturbation``).
    - Guarantee: :math:`(\varepsilon, \delta)`-DP by basic composition of the weights'
      :math:`((1 - f_b)\varepsilon, \delta_b)` and the threshold's :math:`f_b\varepsilon`
      (:math:`\delta_b = 0` for Gamma noise); for :math:`C > 2` classes the weights' part
      is the basic composition of the :math:`C` one-vs-rest releases at
      :math:`((1 - f_b)\varepsilon/C, \delta_b/C)` each (the book's ``cor-one-vs-rest``).
    - Numerics: idealised floats; the exact minimiser is assumed.
    - Cost: one L-BFGS solve on ``n x d`` (one per class for :math:`C > 2`).

    References
    ----------
    .. [1] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially Private Empirical
       Risk Minimization", JMLR 12, 2011.
    .. [2] D. Kifer, A. Smith and A. Thakurta, "Private Convex Empirical Risk Minimization
       and High-dimensional Regression", COLT 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.baselines import ObjectivePerturbationClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(2000, 5))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = ObjectivePerturbationClassifier(epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _private_fit = True

    def __init__(self, epsilon=1.0, delta=None, noise="auto", jacobian_share=L2_JACOBIAN_SHARE,
                 quad_weight=None, threshold="private",
                 threshold_fraction=DEFAULT_THRESHOLD_FRACTION, tol=1e-9, fit_intercept=True,
                 bounds="error", accountant=None, random_state=None, classes=None):
        self.epsilon = epsilon
        self.delta = delta
        self.noise = noise
        self.jacobian_share = jacobian_share
        self.quad_weight = quad_weight
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.tol = tol
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
        {{budget_refused}}
        """
        epsilon = check_epsilon(self.epsilon)
        _, epsilon_fit = split_threshold_budget(epsilon, self.threshold,
                                                self.threshold_fraction)
        check_choice(self.noise, "noise", L2_NOISES)
        check_fraction(self.jacobian_share, "jacobian_share")
        if self.quad_weight is not None:
            check_positive_real(self.quad_weight, "quad_weight")
        check_positive_real(self.tol, "tol")
        accountant = check_accountant(self.accountant)
        X, y_encoded, classes = self._validate_training_data(X, y)
        delta = resolve_delta(self.delta, X.shape[0])
        mechanism = reference_mechanism(X.shape[1] + int(self.fit_intercept), epsilon_fit,
                                        delta, n_classes=classes.size, noise=self.noise,
                                        jacobian_share=self.jacobian_share,
                                        quad_weight=self.quad_weight)
        spent_delta = delta if mechanism.noise == "gaussian" else 0.0
        with holding_budget(accountant, epsilon, spent_delta) as spend:
            result = objective_perturbation_trials(
                X, y_encoded, epsilon=epsilon, delta=delta, n_classes=classes.size,
                noise=mechanism.noise,
                jacobian_share=self.jacobian_share, quad_weight=self.quad_weight,
                fit_intercept=self.fit_intercept, bounds=self.bounds, threshold=self.threshold,
                threshold_fraction=self.threshold_fraction, tol=self.tol,
                random_state=self.random_state)
            spend(result.accounting)
        self._set_model(result.W, result.intercept, classes)
        self.quad_weight_ = float(mechanism.quad_weight)
        self.noise_ = mechanism.noise
        self.privacy_ledger_ = result.ledger
        self.privacy_guarantee_ = result.guarantee
        return self
