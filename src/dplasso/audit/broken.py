r"""Deliberately broken variants of the privacy calibrations, to show the audits have power.

Each factory takes a correct function and returns a broken one *with the same signature*
(``functools.wraps``; ``inspect.signature`` reports the original's), so a broken variant
drops into the code path where the correct one goes; :func:`with_dependency` puts one inside
a library release (the release runs, its dependency broken). The returned function carries the
attribute ``broken_variant`` (the variant's name in :data:`BROKEN_VARIANTS`).

==========================  ==========================================================  =====================
variant                     what it does                                                true epsilon
==========================  ==========================================================  =====================
``halved-noise``            multiplies the noise-scale argument by 1/2                  2x the claim
``sensitivity-understated``  multiplies the sensitivity argument by a factor, 1/1.2 by    1/factor x the claim
                            default (1/2 for the screening release)
``composition-ignored``     per-step epsilon = the total: a ``T``-step calibration      up to ``T`` x
                            returns the one-step scale for the whole budget
``count-wrong-epsilon``     the count's epsilon argument multiplied by a factor (the    factor x the claim
                            whole budget used for the count instead of its share)
``reads-data``              a post-processing step that also reads the data: the        unbounded (claim 0)
                            noise-floor count kept to the entries that agree in sign
                            with the non-private gradient
``dimension-ignored``       a sensitivity computed for one coordinate (the dimension    up to sqrt(p) x
                            argument set to 1) instead of the p-vector's L2 one
``jacobian-ignored``        objective perturbation's quadratic weight cut to 1/16 while  above the claim
                            the claim keeps the calibrated Jacobian term
==========================  ==========================================================  =====================

The audits (:mod:`dplasso.audit.empirical`) must flag each variant they can detect at
their trial budget (``eps_lower > eps_claimed``); :mod:`dplasso.audit.cases` pairs every
mechanism family with its variants.
"""
from __future__ import annotations

import functools
import inspect
from fractions import Fraction
from unittest import mock

import numpy as np

__all__ = [
    "BROKEN_VARIANTS",
    "with_argument",
    "halved_noise",
    "understated_sensitivity",
    "ignored_composition",
    "wrong_count_epsilon",
    "reads_data",
    "ignored_dimension",
    "with_dependency",
]

BROKEN_VARIANTS = {
    "halved-noise": "noise scale halved",
    "sensitivity-understated": "scale computed with a fraction (1/1.2, or 1/2) of the true "
                               "sensitivity",
    "composition-ignored": "T-step composition ignored: per-step epsilon = total epsilon",
    "count-wrong-epsilon": "count noised with the whole budget instead of its share",
    "reads-data": "post-processing that reads the data (sign of the non-private gradient)",
    "dimension-ignored": "a vector's noise calibrated to one coordinate's sensitivity, not its L2",
    "jacobian-ignored": "objective perturbation's quadratic weight cut to 1/16, the claim kept",
}
"""Names and one-line descriptions of the broken variants."""


def with_argument(func, argument, transform, variant):
    """Return ``func`` with one argument transformed before the call (same signature).

    Parameters
    ----------
    func : callable
        The correct function.
    argument : str
        Name of the argument to transform (positional or keyword; its default is used when
        the caller omits it).
    transform : callable
        ``transform(value) -> value`` applied to that argument.
    variant : str
        Name of the broken variant (a key of :data:`BROKEN_VARIANTS`).

    Returns
    -------
    callable
        The broken function, with ``broken_variant = variant``.

    Raises
    ------
    ValueError
        If ``func`` has no argument called ``argument`` or ``variant`` is unknown.
    """
    signature = inspect.signature(func)
    if argument not in signature.parameters:
        raise ValueError(
            f"{getattr(func, '__name__', func)!r} has no argument {argument!r}; "
            f"its arguments are {list(signature.parameters)}"
        )
    if variant not in BROKEN_VARIANTS:
        raise ValueError(f"variant must be one of {sorted(BROKEN_VARIANTS)}, got {variant!r}")

    @functools.wraps(func)
    def broken(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        bound.arguments[argument] = transform(bound.arguments[argument])
        return func(*bound.args, **bound.kwargs)

    broken.broken_variant = variant
    return broken


def halved_noise(func, argument="scale"):
    """Broken variant ``halved-noise``: the noise-scale argument halved.

    Parameters
    ----------
    func : callable
        A sampler or selector taking a noise scale (``laplace_noise(scale, size, rng)``,
        ``report_noisy_min(scores, scale, rng)``, ``gaussian_noise(sigma, size, rng)``...).
    argument : str, default="scale"
        Name of the scale argument.
    """
    return with_argument(func, argument, lambda scale: 0.5 * scale, "halved-noise")


def understated_sensitivity(func, argument="sensitivity", factor=Fraction(5, 6)):
    """Broken variant ``sensitivity-understated``: the sensitivity argument times ``factor``.

    Parameters
    ----------
    func : callable
        A calibration taking a sensitivity (``laplace_scale(sensitivity, epsilon)``,
        ``calibrate_report_noisy_min(epsilon, delta, steps, sensitivity)``...).
    argument : str, default="sensitivity"
        Name of the sensitivity argument.
    factor : float or fractions.Fraction, default=Fraction(5, 6)
        The scale is computed with ``factor`` times the true sensitivity (``5/6 = 1/1.2``,
        exact, so integer sensitivities stay rational), so the true epsilon is ``1/factor``
        times the claim.
    """
    return with_argument(func, argument, lambda value: value * factor, "sensitivity-understated")


def ignored_composition(calibrate, scale_for_step):
    """Broken variant ``composition-ignored``: a ``T``-step calibration that spends the
    whole budget on every step.

    Parameters
    ----------
    calibrate : callable
        The correct calibration ``calibrate(epsilon, delta, steps, sensitivity) -> scale``
        (e.g. :func:`dplasso.privacy.calibration.calibrate_report_noisy_min`).
    scale_for_step : callable
        ``scale_for_step(sensitivity, step_epsilon) -> scale``, the one-step calibration the
        correct version applies to its per-step epsilon (e.g.
        :func:`dplasso.privacy.selection.report_noisy_min_scale`).

    Returns
    -------
    callable
        Same signature as ``calibrate``; returns ``scale_for_step(sensitivity, epsilon)``,
        so ``T`` steps spend up to ``T * epsilon``.
    """
    signature = inspect.signature(calibrate)
    missing = {"epsilon", "sensitivity"} - set(signature.parameters)
    if missing:
        raise ValueError(f"calibrate must take arguments 'epsilon' and 'sensitivity'; "
                         f"missing {sorted(missing)}")

    @functools.wraps(calibrate)
    def broken(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return scale_for_step(bound.arguments["sensitivity"], bound.arguments["epsilon"])

    broken.broken_variant = "composition-ignored"
    return broken


def wrong_count_epsilon(func, factor, argument="epsilon"):
    """Broken variant ``count-wrong-epsilon``: the count's epsilon argument times ``factor``.

    Parameters
    ----------
    func : callable
        The count's release or noise calibration, taking an epsilon (e.g.
        :func:`dplasso.estimators.count.noisy_count`).
    factor : float
        Ratio of the epsilon wrongly used to the count's share, e.g. ``1 / count_fraction``
        when the whole budget is used instead of the share ``count_fraction``.
    argument : str, default="epsilon"
        Name of the epsilon argument.
    """
    if not factor > 1.0:
        raise ValueError(f"factor must be > 1 (more epsilon than the share), got {factor!r}")
    return with_argument(func, argument, lambda value: value * factor, "count-wrong-epsilon")


def reads_data(count, loss, design, y):
    r"""Broken variant ``reads-data``: a count of released weights that also reads the data.

    Parameters
    ----------
    count : callable
        ``count(W, **public) -> ndarray (K,)`` computed from released weights ``W`` of shape
        ``(p, K)`` (e.g. :func:`dplasso.estimators.private_count.noise_floor_count`).
    loss : dplasso.optim.losses.Loss
    design : ndarray of shape (n, p + 1)
        The dataset's design, the constant column last.
    y : ndarray of shape (n,)

    Returns
    -------
    callable
        Same signature as ``count``: it applies ``count`` to the entries of ``W`` whose sign
        agrees with the non-private descent direction :math:`-\nabla L_D(0)` (the others
        zeroed), a plausible "confirmation" of the private support that makes the count a
        function of the data, not only of the released weights.
    """

    @functools.wraps(count)
    def broken(W, *args, **kwargs):
        W = np.asarray(W, dtype=np.float64)
        gradient = loss.gradient(design, y, np.zeros((design.shape[1], 1)))[:-1]
        return count(np.where(W * gradient < 0, W, 0.0), *args, **kwargs)

    broken.broken_variant = "reads-data"
    return broken
def ignored_dimension(func, argument="n_features"):
    """Broken variant ``dimension-ignored``: the dimension argument set to 1.

    Parameters
    ----------
    func : callable
        A sensitivity taking the vector's dimension (e.g.
        :func:`dplasso.screening.private.split_screening_sensitivity`, whose gradient part
        is :math:`\\sqrt p\\,\\Delta_g`): called for one coordinate, it returns the
        per-coordinate sensitivity where the L2 one is needed.
    argument : str, default="n_features"
        Name of the dimension argument.
    """
    return with_argument(func, argument, lambda value: 1, "dimension-ignored")


def with_dependency(release, module, name, replacement):
    """``release`` run with the function ``module.name`` replaced by ``replacement``.

    For a broken variant inside a library release that computes its noise scale or
    sensitivity itself: the audit still runs the release, with one of its dependencies
    broken (e.g. ``gaussian_noise`` halved inside
    :func:`dplasso.screening.private.private_screen_split`).

    Parameters
    ----------
    release : callable
        The library's release function.
    module : module
        The module whose global ``name`` the release looks up when it runs.
    name : str
    replacement : callable
        A broken variant (it carries ``broken_variant``) of ``module.name``.

    Returns
    -------
    callable
        Same signature as ``release``, with ``broken_variant`` of ``replacement``.
    """
    if not callable(getattr(module, name, None)):
        raise ValueError(f"{module.__name__} has no function {name!r}")
    variant = getattr(replacement, "broken_variant", None)
    if variant not in BROKEN_VARIANTS:
        raise ValueError(f"replacement must be a broken variant, got {replacement!r}")

    @functools.wraps(release)
    def broken(*args, **kwargs):
        with mock.patch.object(module, name, replacement):
            return release(*args, **kwargs)

    broken.broken_variant = variant
    return broken
