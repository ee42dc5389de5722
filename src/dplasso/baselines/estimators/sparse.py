"""The two sparse baselines whose sparsity level ``s`` is given or released by the
Sparsifier's count: Kifer, Smith and Thakurta's two-stage method and Wang and Gu's DP-IGHT."""
from __future__ import annotations

from dplasso.baselines._inputs import check_positive_int, check_positive_real
from dplasso.baselines.estimators.base import CountedSparsityMixin, PrivateBaselineClassifier
from dplasso.baselines.estimators.rules import (
    DP_IGHT_N_ITER,
    check_auto_or_positive,
    fit_dp_ight_public_step,
)
from dplasso.estimators.objective_perturbation import NOISE_KINDS
from dplasso.baselines.two_stage import fit_two_stage
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.params import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    check_choice,
    check_fraction,
    resolve_delta,
)
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.optim.validation import check_n_iter

__all__ = ["TwoStageClassifier", "DPIGHTClassifier"]


@shared_docs
class TwoStageClassifier(CountedSparsityMixin, PrivateBaselineClassifier):
    r"""Kifer, Smith and Thakurta's two-stage private sparse logistic regression.

    Stage 1 selects ``s`` features privately from block votes (sample and aggregate), stage 2
    fits the logistic loss on them by objective perturbation
    (:func:`dplasso.baselines.two_stage.fit_two_stage`).

    {{prediction}}

    Parameters
    ----------
    n_nonzero : int or "count", default="count"
        Sparsity level ``s``. ``"count"``: released from the noisy support size of the
        non-private L1-constrained fit, as the Sparsifier does (module docstring), with a
        share ``count_fraction`` of ``epsilon``; an int: used as given (public).
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Used only by ``noise="gaussian"`` (None means ``1/n**2``); the default Gamma-norm
        noise is pure and spends ``delta = 0``.
    noise : {"gamma", "gaussian"}, default="gamma"
        Stage-2 noise.
    n_blocks : int or None, default=None
        Stage-1 blocks ``m``; None: :math:`\lfloor\sqrt n\rfloor`.
    block_C : float, default=1.0
        scikit-learn's ``C`` of each block's L1-penalised fit.
    selection_share : float, default=0.5
        Share of the method's budget spent on stage 1.
    count_fraction : float, default=0.25
        With ``n_nonzero="count"``: share :math:`f` of ``epsilon`` spent on the count (the
        Sparsifier's default, :data:`dplasso.estimators.params.DEFAULT_COUNT_FRACTION`).
    count_sensitivity : "max" or int, default="max"
        Replace-one sensitivity of the count, as in the Sparsifier: ``"max"`` is the proven
        bound ``p``; ``1`` is P1's declared, unproven choice (:mod:`dplasso.estimators.count`).
    count_noise : {"geometric", "laplace"}, default="geometric"
        Exact double-geometric noise, or Laplace noise rounded to an integer.
    count_lam : float, default=10.0
        L1-ball radius of the non-private fit whose nonzeros are counted (the Sparsifier's
        default :data:`dplasso.estimators.params.DEFAULT_LAM`).
    tol : float, default=1e-9
        Stage-2 solver tolerance (sup norm of the gradient).
    threshold : {"private", "none"}, default="private"
        {{threshold}}
    threshold_fraction : float, default=0.1
        {{threshold_fraction}}
    fit_intercept : bool, default=True
        A constant feature in the stage-2 model (never selected away, not counted in ``s``).
    bounds : {"error", "clip"}, default="error"
        Rows must satisfy :math:`\|x_i\|_\infty \le 1`; ``"clip"`` clips entries to
        ``[-1, 1]`` (a per-row map; the guarantee holds), in ``fit``.
        {{rounding}}
    accountant : BudgetAccountant or None, default=None
        Holds the fit's budget before any computation (refused if it cannot afford it),
        spends against the hold after, and frees what the fit did not spend.
    random_state : None, int or numpy.random.Generator, default=None
        Source of all noise (the count first); None draws OS entropy.
    classes : array-like of shape (2,) or None, default=None
        {{private_classes}}

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, p)
        At most ``n_nonzero_target_`` nonzeros.
    intercept_ : ndarray of shape (1,)
    n_nonzero_target_ : int
        The sparsity level used (released, or as given).
    privacy_ledger_ : PrivacyLedger
        The count event (with ``"count"``), the ``s`` selections and the stage-2 release.
    privacy_guarantee_ : PrivacyGuarantee
        Basic composition: ``(epsilon, delta)`` (``delta = 0`` for gamma noise).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    dplasso.estimators.SparsifierClassifier : P1's method, the same count release.

    Notes
    -----
    - Neighbouring relation: replace-one. The block partition is drawn independently of the
      data, so one replaced row changes one block.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, two classes from the public
      label set ``classes`` (without it, read from ``y``: not covered by the guarantee).
    - Sensitivity: the count, ``count_sensitivity`` (:math:`p` by default, proven); each
      block vote count, 1; stage 2 on ``d = s + 1`` columns, stationarity noise :math:`2\sqrt d` in L2 and
      Jacobian ratio :math:`1 + d/(4\Lambda)`.
    - Guarantee: :math:`(\varepsilon, \delta)`-DP by basic composition of the count
      (:math:`f\varepsilon`), the ``s`` exponential-mechanism selections and objective
      perturbation (their split of :math:`(1 - f)\varepsilon` is ``selection_share``).
    - Numerics: idealised floats (selection and stage-2 samplers; stage 2 assumes the exact
      minimiser), the count exact with ``"geometric"``.
    - Post-processing: zero padding off the selected support.
    - Constants Kifer et al. leave open, and ours: ``s`` (known in their theory; released
      from the count here, for the same treatment as the Sparsifier); ``m =
      floor(sqrt(n))`` blocks (balances vote noise against block size,
      :func:`dplasso.baselines.two_stage.default_n_blocks`); each block's support from
      liblinear's L1 fit at ``C = 1`` (scikit-learn's default, penalty
      :math:`\|w\|_1 + \sum_i \ell_i` on the block's :math:`\sqrt n` rows), voting for its
      ``s`` largest coefficients; the budget halved between the stages, and stage 2's
      Jacobian term given half of its share (Kifer et al.'s split); Gamma-norm noise
      (pure DP, as Chaudhuri et al.).
    - Cost: one accurate non-private solve (``"count"``), :math:`\sqrt n` liblinear fits on
      :math:`\sqrt n` rows, ``s`` exponential mechanisms, one L-BFGS solve on ``n x (s+1)``.

    References
    ----------
    .. [1] D. Kifer, A. Smith and A. Thakurta, "Private Convex Empirical Risk Minimization
       and High-dimensional Regression", COLT 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.baselines.estimators import TwoStageClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(400, 10))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = TwoStageClassifier(epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> int(np.count_nonzero(model.coef_)) <= model.n_nonzero_target_
    True
    """

    def __init__(self, n_nonzero="count", epsilon=1.0, delta=None, noise="gamma",
                 n_blocks=None, block_C=1.0, selection_share=0.5,
                 count_fraction=DEFAULT_COUNT_FRACTION, count_sensitivity="max",
                 count_noise="geometric", count_lam=DEFAULT_LAM, tol=1e-9, threshold="private",
                 threshold_fraction=DEFAULT_THRESHOLD_FRACTION, fit_intercept=True,
                 bounds="error", accountant=None, random_state=None,
                 classes=None):
        self.n_nonzero = n_nonzero
        self.epsilon = epsilon
        self.delta = delta
        self.noise = noise
        self.n_blocks = n_blocks
        self.block_C = block_C
        self.selection_share = selection_share
        self.count_fraction = count_fraction
        self.count_sensitivity = count_sensitivity
        self.count_noise = count_noise
        self.count_lam = count_lam
        self.tol = tol
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def _check_method_params(self):
        self._check_count_params()
        check_choice(self.noise, "noise", NOISE_KINDS)
        if self.n_blocks is not None:
            check_positive_int(self.n_blocks, "n_blocks")
        check_positive_real(self.block_C, "block_C")
        check_fraction(self.selection_share, "selection_share")
        check_positive_real(self.tol, "tol")

    def _deltas(self, epsilon, n_samples):
        delta = resolve_delta(self.delta, n_samples)
        if self.noise == "gamma":
            return 0.0, 0.0
        if delta == 0:
            raise ValueError("noise='gaussian' needs delta > 0, got delta=0.0")
        return delta, delta

    def _fit_private(self, X, y, epsilon, delta, rng):
        return self._fit_sparse(
            fit_two_stage, X, y, epsilon, delta, rng, n_blocks=self.n_blocks,
            block_C=self.block_C, selection_share=self.selection_share, noise=self.noise,
            tol=self.tol)


@shared_docs
class DPIGHTClassifier(CountedSparsityMixin, PrivateBaselineClassifier):
    r"""Wang and Gu's DP-IGHT: noisy gradient steps with hard thresholding to ``s`` features.

    :math:`w^{t+1} = H_s(w^t - \eta(\nabla L(w^t) + \xi^t))`, Gaussian :math:`\xi^t`,
    ``T`` steps from zero, zCDP accounting
    (:func:`dplasso.baselines.dp_ight.fit_dp_ight`).

    {{prediction}}

    Parameters
    ----------
    n_nonzero : int or "count", default="count"
        The L0 budget ``s``. ``"count"``: released from the noisy support size of the
        non-private L1-constrained fit, as the Sparsifier does (module docstring); an int:
        used as given.
    n_iter : int, default=30
        Steps ``T`` (:data:`DP_IGHT_N_ITER`).
    step_size : float or "auto", default="auto"
        :math:`\eta`; ``"auto"``: :func:`dp_ight_step_size` of ``s`` (public).
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Total ``delta`` in ``(0, 1)`` (the zCDP conversion needs ``delta > 0``); None means
        ``1/n**2``.
    count_fraction : float, default=0.25
        With ``n_nonzero="count"``: share :math:`f` of ``epsilon`` spent on the count (the
        Sparsifier's default, :data:`dplasso.estimators.params.DEFAULT_COUNT_FRACTION`).
    count_sensitivity : "max" or int, default="max"
        Replace-one sensitivity of the count, as in the Sparsifier: ``"max"`` is the proven
        bound ``p``; ``1`` is P1's declared, unproven choice (:mod:`dplasso.estimators.count`).
    count_noise : {"geometric", "laplace"}, default="geometric"
        Exact double-geometric noise, or Laplace noise rounded to an integer.
    count_lam : float, default=10.0
        L1-ball radius of the non-private fit whose nonzeros are counted (the Sparsifier's
        default :data:`dplasso.estimators.params.DEFAULT_LAM`).
    threshold : {"private", "none"}, default="private"
        {{threshold}}
    threshold_fraction : float, default=0.1
        {{threshold_fraction}}
    fit_intercept : bool, default=True
        A constant feature, never thresholded and not counted in ``s``.
    bounds : {"error", "clip"}, default="error"
    accountant : BudgetAccountant or None, default=None
    random_state : None, int or numpy.random.Generator, default=None
    classes : array-like of shape (2,) or None, default=None
        {{private_classes}}

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, p)
        At most ``n_nonzero_target_`` nonzeros.
    intercept_ : ndarray of shape (1,)
    n_nonzero_target_ : int
    n_iter_ : int
    step_size_ : float
        The step used.
    privacy_ledger_ : PrivacyLedger
        The count event (with ``"count"``) and the ``T`` Gaussian releases.
    privacy_guarantee_ : PrivacyGuarantee
        Basic composition of the count and the zCDP-converted steps:
        :math:`(\varepsilon, \delta)`.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    dplasso.estimators.SparsifierClassifier : P1's method, the same count release.

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, two classes from the public
      label set ``classes`` (without it, read from ``y``: not covered by the guarantee).
    - Sensitivity: the count, ``count_sensitivity`` (:math:`p` by default, proven); the mean
      gradient, :math:`2\sqrt d/n` in L2 (``d`` columns incl. the intercept).
    - Guarantee: :math:`(\varepsilon, \delta)`-DP: the count :math:`f\varepsilon`-DP, the
      ``T`` Gaussian steps :math:`T\Delta_2^2/(2\sigma^2)`-zCDP converted to
      :math:`((1 - f)\varepsilon, \delta)`, composed by basic composition.
    - Numerics: idealised floats (numpy's Gaussian sampler); the count exact with
      ``"geometric"``.
    - Post-processing: the gradient step and the hard thresholding.
    - Constants Wang and Gu leave open (their theory fixes them up to unknown constants of
      the design), and ours: ``s`` (released from the count, the Sparsifier's treatment);
      :math:`\eta = 4/(2s+1)` (:func:`dp_ight_step_size`: safe on every dataset of the
      domain); ``T = 30`` (:data:`DP_IGHT_N_ITER`); full-batch gradients (their stochastic
      gradients only add sampling noise at this budget accounting); start at zero.
    - Cost: one accurate non-private solve (``"count"``), then per step one ``X w`` and one
      ``X^T r``.

    References
    ----------
    .. [1] L. Wang and Q. Gu, "Differentially Private Iterative Gradient Hard Thresholding
       for Sparse Learning", IJCAI 2019.
    .. [2] P. Jain, A. Tewari and P. Kar, "On Iterative Hard Thresholding Methods for
       High-dimensional M-Estimation", NeurIPS 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.baselines.estimators import DPIGHTClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(400, 10))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = DPIGHTClassifier(n_nonzero=2, epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> int(np.count_nonzero(model.coef_)) <= 2
    True
    """

    def __init__(self, n_nonzero="count", n_iter=DP_IGHT_N_ITER, step_size="auto",
                 epsilon=1.0, delta=None, count_fraction=DEFAULT_COUNT_FRACTION,
                 count_sensitivity="max", count_noise="geometric", count_lam=DEFAULT_LAM,
                 threshold="private", threshold_fraction=DEFAULT_THRESHOLD_FRACTION,
                 fit_intercept=True, bounds="error", accountant=None, random_state=None,
                 classes=None):
        self.n_nonzero = n_nonzero
        self.n_iter = n_iter
        self.step_size = step_size
        self.epsilon = epsilon
        self.delta = delta
        self.count_fraction = count_fraction
        self.count_sensitivity = count_sensitivity
        self.count_noise = count_noise
        self.count_lam = count_lam
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def _check_method_params(self):
        self._check_count_params()
        check_n_iter(self.n_iter)
        check_auto_or_positive(self.step_size, "step_size")

    def _deltas(self, epsilon, n_samples):
        delta = resolve_delta(self.delta, n_samples)
        if delta == 0:
            raise ValueError("DP-IGHT needs delta > 0 (zCDP conversion), got delta=0.0")
        return delta, delta

    def _fit_private(self, X, y, epsilon, delta, rng):
        result = self._fit_sparse(fit_dp_ight_public_step, X, y, epsilon, delta, rng,
                                  n_iter=self.n_iter, step_size=self.step_size)
        self.n_iter_ = int(result.fit.info["n_iter"])
        self.step_size_ = float(result.fit.info["step_size"])
        return result

