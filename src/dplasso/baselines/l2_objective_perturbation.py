r"""L2-regularised logistic regression by objective perturbation, batched over trials.

The private model a practitioner compares against first: the mechanism of
:mod:`dplasso.estimators.objective_perturbation` (Chaudhuri, Monteleoni & Sarwate 2011; Kifer,
Smith & Thakurta 2012) on every column, with its quadratic weight set by a public rule.
For a budget :math:`\varepsilon` of one fit and the threshold's share :math:`f_b`:

1. the weights get :math:`\varepsilon' = (1 - f_b)\varepsilon`, of which a share :math:`s`
   (``jacobian_share``) pays the Jacobian term: :math:`\Lambda` is the smallest quadratic
   weight with :math:`\log(1 + R^2/(4\Lambda)) = s\varepsilon'`, :math:`R = \sqrt d` for the
   :math:`d` columns of the design (the constant column included; rows
   :math:`\|x_i\|_\infty \le 1` give :math:`\|x_i\|_2 \le \sqrt d`), and the noise the rest
   :math:`\varepsilon_b = (1 - s)\varepsilon'`
   (:func:`~dplasso.estimators.objective_perturbation.l2_mechanism`);
2. each trial draws its noise :math:`b` and releases the exact minimiser of
   :math:`\frac1n[\sum_i \ell(w; x_i, y_i) + \frac{\Lambda}{2}\|w\|^2 + b^\top w]`
   (:func:`~dplasso.estimators.objective_perturbation.solve_perturbed_logistic`);
3. the private threshold (:func:`dplasso.estimators.threshold.release_threshold`) with
   :math:`f_b\varepsilon`, as for every private classifier of the library.

With :math:`C > 2` classes the weights are one-vs-rest: one such release per class
:math:`c` on the labels :math:`[y_i = c]`, each at an even share
:math:`(\varepsilon'/C, \delta/C)` (:func:`~dplasso.privacy.shares.even_share`), so that
basic composition gives :math:`(\varepsilon', \delta)` (the book's
``cor-one-vs-rest``); a row scores :math:`\arg\max_c w_c^\top x`, and the threshold moves one
class's offset, as for the multinomial models.

The noise is Gamma-norm (pure DP) or Gaussian (approximate DP, at the ``delta`` the
Sparsifier spends, :math:`1/n^2` by default); ``noise="auto"`` takes the one of smaller
expected norm, a function of ``d``, :math:`\varepsilon_b` and :math:`\delta` only
(:func:`~dplasso.estimators.objective_perturbation.choose_noise`). How
:data:`~dplasso.estimators.objective_perturbation.L2_JACOBIAN_SHARE` was set: on the
synthetic family only
(the book's "Beyond P1" chapter, ``benchmarks/design_defaults.py``).
"""
from __future__ import annotations

import numpy as np

from dplasso.baselines._inputs import check_positive_real
from dplasso.estimators.composition import compose_parts, pure_part
from dplasso.estimators.objective_perturbation import (
    L2_JACOBIAN_SHARE,
    l2_mechanism,
    perturbed_weights,
)
from dplasso.estimators.params import resolve_delta
from dplasso.estimators.private_frank_wolfe import TrialsResult
from dplasso.estimators.problem import classification_loss, prepare_design, split_intercept
from dplasso.estimators.threshold import (
    DEFAULT_THRESHOLD_FRACTION,
    release_threshold,
    split_threshold_budget,
)
from dplasso.optim.validation import check_n_trials
from dplasso.privacy.rng import as_generator
from dplasso.privacy.shares import even_share

__all__ = ["objective_perturbation_trials", "reference_mechanism"]

_TOL = 1e-9


def reference_mechanism(n_columns, epsilon, delta, *, n_classes=2, noise="auto",
                        jacobian_share=L2_JACOBIAN_SHARE, quad_weight=None):
    r"""The mechanism of each release of the L2 reference on ``d`` columns: the whole weights'
    budget :math:`(\varepsilon', \delta)` for two classes, the even share
    :math:`(\varepsilon'/C, \delta/C)` of each one-vs-rest release for :math:`C > 2`
    (:func:`~dplasso.estimators.objective_perturbation.l2_mechanism` at that budget)."""
    classification_loss(n_classes)  # checks n_classes
    if n_classes > 2:
        epsilon, delta = even_share(epsilon, n_classes), even_share(delta, n_classes)
    return l2_mechanism(n_columns, epsilon, delta, noise=noise, jacobian_share=jacobian_share,
                        quad_weight=quad_weight)


def objective_perturbation_trials(X, y, *, epsilon, delta=None, n_trials=1, n_classes=2,
                                  noise="auto", jacobian_share=L2_JACOBIAN_SHARE,
                                  quad_weight=None, fit_intercept=True, bounds="error",
                                  threshold="none", threshold_fraction=DEFAULT_THRESHOLD_FRACTION,
                                  tol=_TOL, random_state=None):
    r"""``K`` independent L2 objective-perturbation fits of one dataset (one-vs-rest for
    more than two classes).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Rows :math:`\|x_i\|_\infty \le 1` (``bounds``); sparse stays sparse.
    y : array-like of shape (n,)
        Encoded labels: ``{0, 1}`` for ``n_classes=2``, else ``0..n_classes-1``.
    epsilon : float
        Total budget of one trial.
    delta : float or None, default=None
        What a Gaussian noise may spend; None means ``1/n**2``. Gamma noise spends 0.
    n_trials : int, default=1
    n_classes : int, default=2
        More than two: one release per class against the rest, each at ``1/n_classes`` of
        the weights' budget and of ``delta``.
    noise : {"auto", "gamma", "gaussian"}, default="auto"
    jacobian_share : float, default=L2_JACOBIAN_SHARE
    quad_weight : float or None, default=None
    fit_intercept : bool, default=True
        The constant column inside the model (its weight is ``intercept``, regularised like
        the others).
    bounds : {"error", "clip"}, default="error"
    threshold : {"none", "private"}, default="none"
        ``"private"``: release each trial's offset (:math:`f_b\varepsilon`) after the weights.
    threshold_fraction : float, default=0.1
    tol : float, default=1e-9
        Sup norm of the mean-scaled gradient at which a solve stops: the released weights lie
        within :math:`n\sqrt d\,\mathrm{tol}/\Lambda` of the exact minimiser the analysis
        assumes (a solve that misses ``tol`` warns ``ConvergenceWarning``, naming ``tol``).
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    TrialsResult
        ``W`` of shape ``(p, K)``, or ``(p, C, K)`` for more classes; ``n_iter`` is 1 (one
        release), ``n_nonzero_target`` None; ``accounting`` holds the objective-perturbation
        part (one per class for more than two) and, with a threshold, the threshold part.

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, so :math:`\|x_i\|_2 \le \sqrt d`.
    - Sensitivity: the stationarity noise :math:`b_D(w)` moves by less than
      :math:`2\sqrt d` in L2; the Jacobian ratio is at most :math:`1 + d/(4\Lambda)` (the
      book's ``lem-objective-perturbation``).
    - Guarantee: the weights :math:`(\varepsilon', \delta_b)`-DP (:math:`\delta_b = 0` for
      Gamma noise; for :math:`C > 2` classes the basic composition of the :math:`C`
      one-vs-rest releases, each :math:`(\varepsilon'/C, \delta_b/C)`-DP, since replacing one
      row replaces at most one row of each class's binary dataset), the threshold
      :math:`f_b\varepsilon`-DP, basic composition.
    - Numerics: idealised floats; the exact minimiser is assumed (the solver's point within
      :math:`n\sqrt d\,\mathrm{tol}/\Lambda` of it).
    - Cost: one L-BFGS solve (then Newton polishing) on ``n x d`` per trial (and class).
    """
    epsilon_threshold, epsilon_fit = split_threshold_budget(epsilon, threshold,
                                                            threshold_fraction)
    n_trials = check_n_trials(n_trials)
    tol = check_positive_real(tol, "tol")
    design = prepare_design(X, fit_intercept=fit_intercept, bounds=bounds)
    n_samples, n_columns = design.shape
    mechanism = reference_mechanism(n_columns, epsilon_fit, resolve_delta(
        delta, n_samples), n_classes=n_classes, noise=noise, jacobian_share=jacobian_share,
        quad_weight=quad_weight)
    one_vs_rest = n_classes > 2
    y = np.asarray(y)
    rng = as_generator(random_state)
    about = (f"({mechanism.noise} noise, d={n_columns} columns, quadratic weight "
             f"{mechanism.quad_weight:.6g})")
    if one_vs_rest:
        W_full = np.stack([perturbed_weights(design, y == c, mechanism, n_trials=n_trials,
                                             rng=rng, tol=tol)
                           for c in range(n_classes)], axis=1)
        parts = [pure_part(mechanism.event(note=(
            f"L2 logistic regression by objective perturbation, class {c} of {n_classes} "
            f"against the rest {about}"))) for c in range(n_classes)]
    else:
        W_full = perturbed_weights(design, y, mechanism, n_trials=n_trials, rng=rng, tol=tol)
        parts = [pure_part(mechanism.event(note=(
            f"L2 logistic regression by objective perturbation {about}")))]
    W, intercept = split_intercept(W_full, fit_intercept)
    if threshold == "private":
        intercept, event = release_threshold(design, y, W, intercept, n_classes=n_classes,
                                             epsilon=epsilon_threshold, rng=rng)
        parts.append(pure_part(event))
    ledger, guarantee = compose_parts(parts)
    return TrialsResult(W, intercept, ledger, guarantee, tuple(parts), 1, None)
