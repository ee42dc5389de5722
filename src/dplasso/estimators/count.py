r"""The Sparsifier's support size: the non-private count and its noisy release.

P1's Sparsifier keeps the :math:`\tilde c` largest-magnitude coefficients of a private
Frank-Wolfe fit, where :math:`\tilde c` is a noisy version of the number :math:`c` of nonzero
coefficients of a *non-private* LASSO logistic fit on the same data:

.. math:: \tilde c = \mathrm{clip}(c + Z,\ 1,\ m), \qquad
    Z \sim \mathrm{DLap}(\Delta_c/\varepsilon_1) \text{ (double geometric)}
    \ \text{or}\ \mathrm{round}(\mathrm{Lap}(\Delta_c/\varepsilon_1)),

with :math:`m` the number of countable coefficients (``p``, or ``p*C`` for a weight matrix)
and :math:`\Delta_c` the declared replace-one sensitivity of :math:`c`
(``count_sensitivity``).

**Which non-private fit** (:func:`lasso_support_size`). The *same* L1-constrained problem
the private fit solves — same loss, same radius ``lam``, same design including the intercept
column — solved to a certified Wolfe gap by the working-set solver
:func:`dplasso.optim.working_set.solve_working_set` (FISTA with exact Euclidean projection onto
the L1 ball on a growing set of columns, certified on all of them; default gap target
``1e-10`` times :math:`L(0)`). A coefficient counts when it is exactly nonzero: the projection
sets every coordinate below its threshold to exactly 0, and columns outside the working set are
0, so the solver's output has exact zeros and no extra threshold is needed. The intercept is
not counted.
Using the private problem's own ``lam`` adds no hyperparameter (a penalised fit would need its
own penalty), and makes :math:`c` the support size of the problem whose private solution is
sparsified.

**The sensitivity.** Replacing one row moves the gradient by :math:`O(1/n)`, but the
support can gain or lose several coordinates at once: one row can push every gradient
coordinate across the KKT boundary :math:`|g_j| = \|g\|_\infty` together. The book's
proposition ``prop-count-sensitivity`` constructs neighbouring datasets whose counts are 1 and
:math:`p`, and the count always lies in :math:`[0, m]`; so :math:`\Delta_c = m` is the only
proven bound, and nothing much smaller holds in general. That is the default
(``count_sensitivity="max"``, resolved by :func:`resolve_count_sensitivity`); it makes the
noise as wide as the range of :math:`c`. P1 takes :math:`\Delta_c = 1`, as if :math:`c` were a
counting query; pass ``count_sensitivity=1`` to reproduce P1, knowing that the count's
:math:`\varepsilon_1` then does not hold (a change by :math:`k` costs :math:`k\varepsilon_1`).
The ledger records which of the two a release used.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from dplasso.estimators.composition import compose_parts, pure_part
from dplasso.estimators.problem import classification_loss, prepare_design
from dplasso.estimators.params import (
    check_choice,
    check_count_sensitivity,
    check_epsilon,
)
from dplasso.optim.working_set import solve_working_set, solve_working_set_many
from dplasso.optim.validation import check_lam, check_X_bounded
from dplasso.privacy.discrete_laplace import (
    discrete_laplace_event,
    discrete_laplace_noise,
    discrete_laplace_sampled_scale,
    discrete_laplace_scale,
)
from dplasso.privacy.laplace import laplace_epsilon, laplace_event, laplace_noise
from dplasso.privacy.ulps import nudge

__all__ = [
    "COUNT_NOISES",
    "resolve_count_sensitivity",
    "count_noise_scale",
    "check_count_noise_scale",
    "count_noise_event",
    "compose_with_count",
    "noisy_count",
    "lasso_support_size",
    "lasso_support_sizes",
]

COUNT_NOISES = ("geometric", "laplace")
"""Count noises: exact double-geometric (discrete Laplace), or Laplace rounded to an integer."""

def resolve_count_sensitivity(sensitivity, n_countable):
    r"""The integer :math:`\Delta_c` a release is calibrated to.

    Parameters
    ----------
    sensitivity : "max" or int
        ``"max"``: the proven bound :math:`m` (the count lies in :math:`[0, m]`); an integer
        :math:`\ge 1`: a declared value, proven only when :math:`\ge m`.
    n_countable : int
        Number :math:`m \ge 1` of countable coefficients (``p``, or ``p*C``).

    Returns
    -------
    int
    """
    sensitivity = check_count_sensitivity(sensitivity)
    n_countable = _check_nonnegative_int(n_countable, "n_countable")
    if n_countable < 1:
        raise ValueError(f"n_countable must be >= 1, got {n_countable}")
    return n_countable if sensitivity == "max" else sensitivity


def count_noise_scale(epsilon, sensitivity, noise):
    r"""Noise scale :math:`b = \Delta_c/\varepsilon_1` of the count release.

    Parameters
    ----------
    epsilon : float or fractions.Fraction
        The count's budget :math:`\varepsilon_1 > 0`.
    sensitivity : int
        Sensitivity :math:`\Delta_c \ge 1` of the count (``"max"`` resolved already, see
        :func:`resolve_count_sensitivity`).
    noise : {"geometric", "laplace"}

    Returns
    -------
    fractions.Fraction or float
        ``"geometric"``: the exact rational :math:`\Delta_c/\varepsilon_1`
        (:func:`dplasso.privacy.discrete_laplace.discrete_laplace_scale`; a float epsilon is
        taken at its exact binary value). ``"laplace"``: the float quotient, raised by ulps
        if needed so that :func:`dplasso.privacy.laplace.laplace_epsilon` returns at most
        :math:`\varepsilon_1`.
    """
    noise = check_choice(noise, "count_noise", COUNT_NOISES)
    sensitivity = check_count_sensitivity(sensitivity)
    if sensitivity == "max":
        raise ValueError('count_sensitivity="max" needs the number of countable coefficients; '
                         "resolve it with resolve_count_sensitivity first")
    if noise == "geometric":
        if not isinstance(epsilon, numbers.Rational):
            epsilon = check_epsilon(epsilon, "epsilon_count")
        return discrete_laplace_scale(sensitivity, epsilon)
    epsilon = check_epsilon(epsilon, "epsilon_count")
    return nudge(sensitivity / epsilon, lambda b: laplace_epsilon(sensitivity, b) <= epsilon,
                 up=True, what="scale/privacy-map mismatch: the Laplace scale",
                 why=lambda b: (f"still gives epsilon={laplace_epsilon(sensitivity, b)!r} > the "
                                f"target epsilon={epsilon!r}"))


def check_count_noise_scale(epsilon, sensitivity, noise, *, n_countable):
    r"""Refuse, before any work, a count release whose noise the exact sampler cannot draw.

    The double-geometric sampler accepts scales up to ``2**40``
    (:func:`dplasso.privacy.discrete_laplace.discrete_laplace_sampled_scale`); the scale
    :math:`\Delta_c/\varepsilon_1` grows with the number of coefficients when
    ``count_sensitivity="max"``. Arguments as in :func:`count_noise_event`; raises
    ``ValueError`` naming ``epsilon_count`` and ``n_countable``.
    """
    scale = count_noise_scale(epsilon, sensitivity, noise)
    if noise == "geometric":
        try:
            discrete_laplace_sampled_scale(scale)
        except ValueError as error:
            raise ValueError(
                f"the count noise scale count_sensitivity / epsilon_count = {sensitivity} / "
                f"{float(epsilon):.4g} = {float(scale):.4g} (n_countable = {n_countable} "
                "coefficients) exceeds the exact double-geometric sampler's 2**40; raise "
                "epsilon or count_fraction, or use count_noise='laplace'") from error


def count_noise_event(epsilon, sensitivity, noise, *, n_countable):
    """Ledger event of one noisy-count release (pure ``epsilon``-DP at the stated sensitivity).

    Parameters
    ----------
    epsilon, sensitivity, noise
        As in :func:`count_noise_scale` (``sensitivity`` already resolved to an integer).
    n_countable : int
        Number ``m`` of countable coefficients: a sensitivity ``>= m`` is proven, a smaller
        one is declared.

    Returns
    -------
    PrivacyEvent
        ``"discrete-laplace"`` (exact numerics) or ``"laplace"`` (idealised floats); its note
        says whether the sensitivity is the proven bound or a declared (unproven) value.
    """
    scale = count_noise_scale(epsilon, sensitivity, noise)
    status = (f"proven sensitivity {sensitivity} (the count lies in [0, {n_countable}])"
              if sensitivity >= n_countable
              else f"declared (unproven) sensitivity {sensitivity} < {n_countable} countable")
    note = f"Sparsifier support size: nnz of the non-private L1-constrained fit; {status}"
    if noise == "geometric":
        return discrete_laplace_event(sensitivity, scale, note=note)
    return laplace_event(float(sensitivity), scale, note=note + "; rounded (post-processing)")


def compose_with_count(count_event, method_ledger, method_guarantee):
    """Basic composition of a count release with the fit that used its value.

    Parameters
    ----------
    count_event : PrivacyEvent
        From :func:`count_noise_event`.
    method_ledger : PrivacyLedger
        The fit's events.
    method_guarantee : PrivacyGuarantee
        The fit's total, under its own composition rule.

    Returns
    -------
    ledger : PrivacyLedger
        The count event, then the fit's events.
    guarantee : PrivacyGuarantee
        Epsilons and deltas added (``"basic"``).
    count_part : tuple of (PrivacyLedger, PrivacyGuarantee)
        The count alone, as one accounting part.
    """
    count_part = pure_part(count_event)
    ledger, guarantee = compose_parts([count_part, (method_ledger, method_guarantee)])
    return ledger, guarantee, count_part


def noisy_count(c, epsilon, sensitivity, noise, rng, *, n_max, size=None):
    r"""Release a support size: :math:`\mathrm{clip}(c + Z, 1, m)` with ``noise`` of scale
    :math:`\Delta_c/\varepsilon_1`.

    Parameters
    ----------
    c : int
        The non-private count, ``0 <= c <= n_max``.
    epsilon : float or fractions.Fraction
        Budget :math:`\varepsilon_1 > 0` of the release.
    sensitivity : "max" or int
        Replace-one sensitivity :math:`\Delta_c` of ``c``: ``"max"`` is the proven bound
        ``n_max``; an integer ``>= 1`` is declared (:func:`resolve_count_sensitivity`).
    noise : {"geometric", "laplace"}
        ``"geometric"``: exact double-geometric (discrete Laplace) integer noise,
        :math:`P(Z = k) \propto \alpha^{|k|}`, :math:`\alpha = e^{-\varepsilon_1/\Delta_c}`.
        ``"laplace"``: :math:`\mathrm{Lap}(\Delta_c/\varepsilon_1)` rounded to the nearest
        integer (P1's higher-variance comparison).
    rng : numpy.random.Generator
        Source of randomness.
    n_max : int
        Number ``m`` of countable coefficients (``p``, or ``p*C`` for a weight matrix); the
        upper clip.
    size : int, tuple of int or None, default=None
        Number of independent releases; None returns a single ``int``.

    Returns
    -------
    int or ndarray of int64
        Values in ``[1, n_max]``.

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: any dataset; ``c`` is a function of it.
    - Sensitivity: :math:`|c(D) - c(D')| \le \Delta_c`: proven for :math:`\Delta_c \ge`
      ``n_max``, otherwise declared (module docstring).
    - Guarantee: pure :math:`\varepsilon_1`-DP per release given the sensitivity
      (discrete Laplace: :math:`P(k)/P(k') \le e^{|k-k'|/b}`; Laplace: Dwork & Roth Thm 3.6).
      The ``size`` releases are independent repetitions, not a composition.
    - Numerics: ``"geometric"`` exact (integer sampler of Canonne, Kamath & Steinke 2020, at
      the rational scale :func:`count_noise_scale`); ``"laplace"`` idealised floats.
    - Post-processing: rounding and clipping to ``[1, n_max]``.
    - Cost: a few vectorised rounds of integer draws per release.
    """
    n_max = _check_nonnegative_int(n_max, "n_max")
    if n_max < 1:
        raise ValueError(f"n_max must be >= 1, got {n_max}")
    c = _check_nonnegative_int(c, "c")
    if c > n_max:
        raise ValueError(f"c must be <= n_max={n_max}, got {c}")
    scale = count_noise_scale(epsilon, resolve_count_sensitivity(sensitivity, n_max), noise)
    shape = () if size is None else size
    if noise == "geometric":
        released = np.clip(c + discrete_laplace_noise(scale, shape, rng), 1, n_max)
    else:  # clip in float first: a huge draw cannot overflow the integer cast
        released = np.clip(c + np.rint(laplace_noise(scale, shape, rng)), 1, n_max)
    released = np.asarray(released, dtype=np.int64)
    return int(released) if size is None else released


def _check_nonnegative_int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return int(value)


def _support_size(loss, design, y, lam, *, fit_intercept, tol=1e-10, max_iter=100_000):
    """Exact nonzeros of the reference solution on a prepared design, intercept excluded.

    Warns ``ConvergenceWarning`` when the gap target is not met within ``max_iter``. The
    message holds public parameters only (``tol``, ``max_iter``), never the gap reached or
    the iterations run: those are computed from the data and no ledger accounts for them.
    """
    solution = solve_working_set(loss, design, y, lam, tol=tol, max_iter=max_iter)
    return _solution_counts([solution], fit_intercept=fit_intercept, tol=tol,
                            max_iter=max_iter)[0]


def _solution_counts(solutions, *, fit_intercept, tol, max_iter):
    """Nonzeros of each solution, intercept excluded; one ``ConvergenceWarning`` if any
    missed its target (public parameters only in the message)."""
    if not all(solution.converged for solution in solutions):
        warnings.warn(
            f"the non-private count fit did not reach its Wolfe-gap target (tol={tol:g} x "
            f"L(0)) within max_iter={max_iter} iterations; the count is read from the last "
            "iterate", ConvergenceWarning, stacklevel=4)
    return [int(np.count_nonzero(s.w[:-1] if fit_intercept else s.w)) for s in solutions]


def lasso_support_size(X, y, *, lam, n_classes=2, fit_intercept=True, bounds="error",
                       tol=1e-10, max_iter=100_000):
    r"""The Sparsifier's non-private count :math:`c`: nonzeros of the L1-constrained fit.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Features (data domain checked or clipped, see ``bounds``).
    y : array-like of shape (n,)
        Encoded labels (``{0, 1}``, or ``0..n_classes-1``).
    lam : float
        L1-ball radius ``> 0``, the same as the private fit's.
    n_classes : int, default=2
        2: logistic loss, count over ``p`` coefficients; more: multinomial loss, count over
        the ``p*C`` entries of the weight matrix.
    fit_intercept : bool, default=True
        The constant column is in the ball but its coefficient(s) are not counted.
    bounds : {"error", "clip"}, default="error"
    tol : float, default=1e-10
        Wolfe-gap target relative to :math:`L(0)` (``solve_working_set``).
    max_iter : int, default=100000
        Iteration cap (a ``ConvergenceWarning`` if reached first).

    Returns
    -------
    int
        The count; *not* private (release it only through :func:`noisy_count`).

    Notes
    -----
    See the module docstring for the choice of solver and the status of its sensitivity.
    Cost: per working-set round, one restricted FISTA solve and one full gradient.
    """
    loss, _ = classification_loss(n_classes)
    design = prepare_design(X, fit_intercept=fit_intercept, bounds=bounds)
    return _support_size(loss, design, y, check_lam(lam), fit_intercept=fit_intercept,
                         tol=tol, max_iter=max_iter)


def lasso_support_sizes(datasets, *, lam, fit_intercept=True, bounds="error", tol=1e-10,
                        max_iter=100_000):
    """:func:`lasso_support_size` of each binary ``(X, y)`` of ``datasets`` (a list), the
    solves run together (:func:`~dplasso.optim.working_set.solve_working_set_many`): the
    same counts, faster for many small problems (a sensitivity search's neighbours)."""
    loss, _ = classification_loss(2)
    problems = []
    for X, y in datasets:
        design = check_X_bounded(prepare_design(X, fit_intercept=fit_intercept, bounds=bounds))
        problems.append((design, loss.check_target(y, design.shape[0])))
    solutions = solve_working_set_many(loss, problems, check_lam(lam), tol=tol,
                                       max_iter=max_iter)
    return _solution_counts(solutions, fit_intercept=fit_intercept, tol=tol, max_iter=max_iter)
